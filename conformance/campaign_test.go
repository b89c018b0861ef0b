package conformance

import (
	"context"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/groundwork-iac/groundwork/conformance/gen"
	"github.com/groundwork-iac/groundwork/conformance/spec"
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
	programs := envInt(t, "GROUNDWORK_CONFORMANCE_PROGRAMS", 300)
	switch {
	case os.Getenv("GROUNDWORK_CONFORMANCE_PROGRAMS") != "":
	case os.Getenv("GROUNDWORK_CONFORMANCE_LONG") != "":
		programs = 10000
	case testing.Short():
		programs = 30
	}
	seed := envInt(t, "GROUNDWORK_CONFORMANCE_SEED", 1)
	c := Campaign{Seed: seed, Programs: int(programs), Workers: int(envInt(t, "GROUNDWORK_CONFORMANCE_WORKERS", 2)),
		Reruns: int(envInt(t, "GROUNDWORK_CONFORMANCE_RERUNS", 3)), FixedSchedule: os.Getenv("GROUNDWORK_CONFORMANCE_SCHEDULE") == "fixed",
		Concurrent: os.Getenv("GROUNDWORK_CONFORMANCE_CONCURRENT") != ""}
	if s := os.Getenv("GROUNDWORK_CONFORMANCE_FEATURES"); s != "" {
		f, err := gen.ParseFeatures(s)
		if err != nil {
			t.Fatalf("GROUNDWORK_CONFORMANCE_FEATURES: %v", err)
		}
		c.Features = &f
	}
	start := time.Now()
	rep := c.Run(context.Background(), quiet{t})
	t.Logf("seed %d, %s: %s", seed, time.Since(start).Round(time.Millisecond), rep)
	for _, s := range slices.Sorted(maps.Keys(rep.Broken)) {
		t.Errorf("seed %d: groundwork broke an invariant: %s\nreplay: GROUNDWORK_CONFORMANCE_SEED=%d GROUNDWORK_CONFORMANCE_PROGRAMS=1 go test -run TestCampaign", s, rep.Broken[s], s)
	}
	if len(rep.Findings) == 0 || c.Concurrent {
		return // concurrently registered, the engines see different orders
	}
	dir := os.Getenv("GROUNDWORK_CONFORMANCE_REDUCE")
	reduced := map[string]bool{}
	for _, f := range rep.Findings {
		replay := fmt.Sprintf("GROUNDWORK_CONFORMANCE_SEED=%d GROUNDWORK_CONFORMANCE_PROGRAMS=1", f.Seed)
		if c.Features != nil {
			replay += " GROUNDWORK_CONFORMANCE_FEATURES=" + c.Features.String()
		}
		t.Errorf("seed %d (%s; shown again by %d of %d reruns): %s\nreplay: %s go test -run TestCampaign\n%s",
			f.Seed, f.Features, f.Reproduced, c.Reruns, f.Differences[0], replay, f.Program.Describe())
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

// TestReplay runs the programs GROUNDWORK_CONFORMANCE_REPLAY names (a glob
// of JSON files, such as those GROUNDWORK_CONFORMANCE_REDUCE writes) and
// fails on any difference, printing both engines' traces.
func TestReplay(t *testing.T) {
	pattern := os.Getenv("GROUNDWORK_CONFORMANCE_REPLAY")
	if pattern == "" {
		t.Skip("set GROUNDWORK_CONFORMANCE_REPLAY to a glob of programs to replay (TESTING.md)")
	}
	files, err := filepath.Glob(pattern)
	if err != nil || len(files) == 0 {
		t.Fatalf("GROUNDWORK_CONFORMANCE_REPLAY=%q matches no file (%v)", pattern, err)
	}
	for _, file := range files {
		t.Run(filepath.Base(file), func(t *testing.T) {
			p, err := spec.Load(file)
			if err != nil {
				t.Fatal(err)
			}
			o := Check(context.Background(), quiet{t}, p)
			if len(o.Differences) == 0 {
				t.Logf("no unexplained difference; known: %v", o.KnownNames())
				return
			}
			t.Errorf("%s%s\n%s%s", p.Describe(), differences(o), o.Reference.Describe(), o.Groundwork.Describe())
		})
	}
}
