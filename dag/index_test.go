package dag_test

import (
	"context"
	"errors"
	"sync"
	"testing"

	"github.com/groundwork-iac/groundwork/dag"
)

// TestVertexIDsOfAnyShape: vertices are found by ID however their IDs are
// chosen — numbered in order, with gaps, far beyond the others, or added
// below IDs seen before — for their needs, for refusing an ID added twice,
// and for skipping what needs a failed vertex.
func TestVertexIDsOfAnyShape(t *testing.T) {
	ctx := testContext(t)
	errBoom := errors.New("boom")
	var mu sync.Mutex
	ended := map[uint64]error{}
	w := dag.New(dag.Options[uint64]{
		Visit: func(_ context.Context, id *uint64) error {
			if *id == 70 {
				return errBoom
			}
			return nil
		},
		Ended: func(id *uint64, err error) {
			mu.Lock()
			ended[*id] = err
			mu.Unlock()
		},
		ContinueOnError: true,
	})
	add := func(id uint64, needs ...uint64) error {
		return w.Add(ctx, dag.Vertex[uint64]{ID: id, Needs: needs, Value: id})
	}
	// In order, then far beyond (1<<40, 1000, 70), then back in order
	// past 70 and 1000, so that the later IDs cover the earlier ones.
	for _, v := range []struct {
		id    uint64
		needs []uint64
	}{
		{1, nil}, {2, []uint64{1}}, {1 << 40, []uint64{2}}, {1000, []uint64{1 << 40}},
		{3, []uint64{1000}}, {70, nil}, {10, []uint64{3}},
	} {
		if err := add(v.id, v.needs...); err != nil {
			t.Fatalf("adding %d: %v", v.id, err)
		}
	}
	for id := uint64(11); id <= 1100; id++ {
		if id == 70 || id == 1000 {
			continue
		}
		if err := add(id, id-1); err != nil {
			t.Fatalf("adding %d: %v", id, err)
		}
	}
	if err := add(2000, 1000, 1<<40); err != nil {
		t.Fatal(err)
	}
	if err := add(2001, 70); err != nil {
		t.Fatal(err)
	}
	for _, id := range []uint64{1, 70, 1000, 1 << 40, 1100} {
		if err := add(id); err == nil {
			t.Errorf("vertex %d was accepted twice", id)
		}
	}
	if err := add(3000, 1<<41); err == nil {
		t.Error("a vertex needing one never added was accepted")
	}
	if err := w.Wait(); err == nil {
		t.Error("Wait reported no failure; vertex 70 failed")
	}
	for id, want := range map[uint64]string{
		1: "ok", 1 << 40: "ok", 1000: "ok", 1100: "ok", 2000: "ok", 70: "failed", 2001: "skipped", 71: "skipped", 999: "skipped",
	} {
		got := "ok"
		var skip *dag.SkippedError
		switch err := ended[id]; {
		case errors.As(err, &skip):
			got = "skipped"
		case err != nil:
			got = "failed"
		}
		if _, ok := ended[id]; !ok {
			got = "never ended"
		}
		if got != want {
			t.Errorf("vertex %d: %s, want %s", id, got, want)
		}
	}
}
