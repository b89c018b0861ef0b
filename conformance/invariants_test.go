package conformance

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/groundwork-iac/groundwork/conformance/drive"
	"github.com/groundwork-iac/groundwork/conformance/spec"
)

// TestInvariantsConcurrently runs each program of testdata/invariants —
// programs whose resources register concurrently, as an SDK program's do,
// with provider calls of random latency — through groundwork again and
// again: every run must keep every invariant (compare.Invariants) and
// leave a state that loads. The engines see different orders there, so
// they are not compared with each other. dbr-dependent-registered-first is
// issue 27's program: a dependent of a delete-before-replace that may
// register, and be replaced, before the cascade is decided.
// GROUNDWORK_CONFORMANCE_INVARIANT_RUNS sets the runs per program
// (default 20).
func TestInvariantsConcurrently(t *testing.T) {
	runs := int(envInt(t, "GROUNDWORK_CONFORMANCE_INVARIANT_RUNS", 20))
	files, err := filepath.Glob("testdata/invariants/*.json")
	if err != nil || len(files) == 0 {
		t.Fatalf("no programs under testdata/invariants (%v)", err)
	}
	for _, file := range files {
		t.Run(strings.TrimSuffix(filepath.Base(file), ".json"), func(t *testing.T) {
			p, err := spec.Load(file)
			if err != nil {
				t.Fatal(err)
			}
			for i := 0; i < runs; i++ {
				p.Schedule.Parallelism = 1 + i%16
				tr := drive.Groundwork(context.Background(), p)
				if v := firstBroken(tr, -1); v != "" {
					t.Fatalf("run %d (parallelism %d): %s\n%s", i, p.Schedule.Parallelism, v, tr.Describe())
				}
			}
		})
	}
}
