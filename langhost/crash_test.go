package langhost

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestCrashFilter(t *testing.T) {
	for _, tc := range []struct {
		name        string
		lines       []string
		crash       string
		info, debug []string
	}{
		{"a missing config value",
			[]string{"starting", "panic: Missing required configuration variable 'site:dir'",
				"\t\tplease set a value using the command `pulumi config set site:dir <value>`", "",
				"goroutine 1 [running]:", "main.main()", "\t/src/main.go:26 +0x25"},
			"Missing required configuration variable 'site:dir'\nplease set a value using the command `gw config set site:dir <value>`",
			[]string{"starting"},
			[]string{"goroutine 1 [running]:", "main.main()", "\t/src/main.go:26 +0x25"}},
		{"a runtime fatal error",
			[]string{"fatal error: all goroutines are asleep - deadlock!", "", "goroutine 1 [chan receive]:", "main.main()"},
			"all goroutines are asleep - deadlock!", nil, []string{"goroutine 1 [chan receive]:", "main.main()"}},
		{"a line that only looks like a panic",
			[]string{"panic: not really", "the program goes on"},
			"", []string{"panic: not really", "the program goes on"}, nil},
		{"no crash", []string{"hello", "goroutine 1 [running]: in a log line"},
			"", []string{"hello", "goroutine 1 [running]: in a log line"}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var info, debug []string
			f := &crashFilter{info: func(s string) { info = append(info, s) }, debug: func(s string) { debug = append(debug, s) }}
			for _, l := range tc.lines {
				f.line(l)
			}
			f.release()
			if got := withConfigCommand(f.crash(), "gw config set"); got != tc.crash {
				t.Errorf("crash = %q; want %q", got, tc.crash)
			}
			if diff := cmp.Diff(tc.info, info); diff != "" {
				t.Errorf("info lines (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.debug, debug); diff != "" {
				t.Errorf("debug lines (-want +got):\n%s", diff)
			}
		})
	}
}
