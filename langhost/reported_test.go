package langhost

import "testing"

// TestCauseOf: the cause an SDK logged keeps the engine's message alone.
func TestCauseOf(t *testing.T) {
	for _, tc := range []struct{ logged, cause, trace string }{
		{"an unhandled error occurred: program failed: \nwaiting for RPCs: rpc error: code = Unknown desc = no provider serves x",
			"no provider serves x", ""},
		{"Error: failed to register new resource extra [a:b:C]: 2 UNKNOWN: no provider serves a:b:C\n    at new C (/p/index.js:4:37)\n    at Object.<anonymous> (/p/index.js:6:1)",
			"Error: failed to register new resource extra [a:b:C]: no provider serves a:b:C",
			"    at new C (/p/index.js:4:37)\n    at Object.<anonymous> (/p/index.js:6:1)"},
		{"Running program '/p/index.js' failed with an unhandled exception:\n<ref *1> Error: failed to register new resource extra [a:b:C]: no provider serves a:b:C\n    at new C (/p/index.js:4:37) {\n  promise: Promise { <rejected> [Circular *1] }\n}",
			"Error: failed to register new resource extra [a:b:C]: no provider serves a:b:C",
			"    at new C (/p/index.js:4:37) {\n  promise: Promise { <rejected> [Circular *1] }\n}"},
		{"at the start is no trace", "at the start is no trace", ""},
		{"the program's own message", "the program's own message", ""},
	} {
		cause, trace := causeOf(tc.logged)
		if cause != tc.cause || trace != tc.trace {
			t.Errorf("causeOf(%q) = %q, %q; want %q, %q", tc.logged, cause, trace, tc.cause, tc.trace)
		}
	}
}
