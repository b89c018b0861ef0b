package conformance

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"
)

// quiet passes a test's failures on but drops the reference engine's
// diagnostics, which the framework logs for every failed step.
type quiet struct{ testing.TB }

func (quiet) Log(...any)          {}
func (quiet) Logf(string, ...any) {}

func envInt(t *testing.T, name string, def int64) int64 {
	s := os.Getenv(name)
	if s == "" {
		return def
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		t.Fatalf("%s=%q: %v", name, s, err)
	}
	return n
}

// TestCampaign runs a campaign of generated programs through both engines
// and fails on any difference that is not a known one. See TESTING.md.
func TestCampaign(t *testing.T) {
	programs := envInt(t, "GROUNDWORK_CONFORMANCE_PROGRAMS", 0)
	if programs == 0 {
		t.Skip("set GROUNDWORK_CONFORMANCE_PROGRAMS to run a campaign (TESTING.md)")
	}
	seed := envInt(t, "GROUNDWORK_CONFORMANCE_SEED", 1)
	c := Campaign{Seed: seed, Programs: int(programs), Workers: int(envInt(t, "GROUNDWORK_CONFORMANCE_WORKERS", 2))}
	start := time.Now()
	rep := c.Run(context.Background(), quiet{t})
	t.Logf("seed %d, %s: %s", seed, time.Since(start).Round(time.Millisecond), rep)
	if len(rep.Findings) == 0 {
		return
	}
	dir := os.Getenv("GROUNDWORK_CONFORMANCE_REDUCE")
	reduced := map[string]bool{}
	for _, f := range rep.Findings {
		t.Errorf("seed %d (%s): %s\nreplay: GROUNDWORK_CONFORMANCE_SEED=%d GROUNDWORK_CONFORMANCE_PROGRAMS=1 go test -run TestCampaign\n%s",
			f.Seed, f.Features, f.Differences[0], f.Seed, f.Program.Describe())
		if dir == "" || reduced[f.Signature()] {
			continue
		}
		reduced[f.Signature()] = true
		small := Reduce(context.Background(), quiet{t}, f.Outcome, 400)
		path := filepath.Join(dir, fmt.Sprintf("seed-%d.json", f.Seed))
		if err := small.Program.Save(path); err != nil {
			t.Fatal(err)
		}
		t.Logf("seed %d reduced to %s:\n%s%s", f.Seed, path, small.Program.Describe(), differences(small))
	}
}

func differences(o *Outcome) string {
	s := ""
	for _, d := range o.Differences {
		s += "  " + d.String() + "\n"
	}
	return s
}
