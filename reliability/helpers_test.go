package reliability_test

import (
	"context"
	"os"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"
)

// envInt reads a positive integer from the environment, or gives def.
func envInt(t testing.TB, name string, def int) int {
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 {
		t.Fatalf("%s=%q: want a non-negative integer", name, v)
	}
	return n
}

// bounded runs fn and fails the test (with every goroutine's stack) if it
// does not return within d: the engine must never deadlock.
func bounded[T any](t interface{ Fatalf(string, ...any) }, d time.Duration, what string, fn func() T) T {
	done := make(chan T, 1)
	go func() { done <- fn() }()
	select {
	case v := <-done:
		return v
	case <-time.After(d):
		buf := make([]byte, 1<<22)
		buf = buf[:runtime.Stack(buf, true)]
		t.Fatalf("%s did not return within %v (deadlock?); goroutines:\n%s", what, d, buf)
		panic("unreachable")
	}
}

// engineFrame matches a stack frame inside the module's own packages, but
// not in this test package or the fake world.
var engineFrame = regexp.MustCompile(`groundwork-iac/groundwork/(engine|dag|stepgen|state|monitor|providers|plugin)[./]`)

// leakedGoroutines returns the stacks of goroutines still running code of
// the engine's packages, after giving them up to a second to end.
func leakedGoroutines() []string {
	deadline := time.Now().Add(time.Second)
	for {
		buf := make([]byte, 1<<22)
		buf = buf[:runtime.Stack(buf, true)]
		var leaked []string
		for _, g := range strings.Split(string(buf), "\n\n") {
			if engineFrame.MatchString(g) && !strings.Contains(g, "reliability_test.") {
				leaked = append(leaked, g)
			}
		}
		if len(leaked) == 0 || time.Now().After(deadline) {
			return leaked
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// checkNoLeaks fails the test if goroutines of the engine outlive the
// operation that started them.
func checkNoLeaks(t testing.TB) {
	t.Helper()
	if leaked := leakedGoroutines(); len(leaked) > 0 {
		t.Fatalf("%d goroutines of the engine outlived the operation:\n%s", len(leaked), strings.Join(leaked, "\n\n"))
	}
}

var bg = context.Background()
