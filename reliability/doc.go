// Package reliability holds the tests of issue #10: whatever happens — a
// crash, a kill, a failing provider, a corrupt file, bad input — no resource
// the engine created is ever forgotten, and the state it leaves always
// loads. It has no API; see TESTING.md at the repository root for what each
// test checks, how to run its long modes, and the figures of the last long
// run.
package reliability
