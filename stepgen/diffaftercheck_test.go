package stepgen_test

import (
	"context"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/groundwork-iac/groundwork/providers"
	"github.com/groundwork-iac/groundwork/resource"
	"github.com/groundwork-iac/groundwork/stepgen"
)

// TestDiffAfterCheck: a Check call says when its Diff will follow (a
// custom resource with recorded state and the same provider), with the
// Diff request ready but for the checked inputs. A host that makes that
// Diff at once gets the same chains as one that waits to be asked, and is
// not asked again.
func TestDiffAfterCheck(t *testing.T) {
	errDiff := errors.New("diff exploded")
	tests := []struct {
		name string
		cfg  stepgen.Config
		old  []*resource.State
		goal resource.Goal
		diff func(context.Context, providers.DiffRequest) (providers.DiffResponse, error)
		// wantAfter is whether the Check call asked for an early Diff.
		wantAfter bool
		wantOps   [][]string
		wantErr   error
	}{
		{
			name:      "unchanged",
			old:       []*resource.State{recorded("a", map[string]any{"x": 1})},
			goal:      goal("a", map[string]any{"x": 1}),
			wantAfter: true,
			wantOps:   [][]string{{"same a"}},
		},
		{
			name:      "updated",
			old:       []*resource.State{recorded("a", map[string]any{"x": 1})},
			goal:      goal("a", map[string]any{"x": 2}),
			wantAfter: true,
			wantOps:   [][]string{{"update a"}},
		},
		{
			name:      "replaced",
			old:       []*resource.State{recorded("a", map[string]any{"x": 1})},
			goal:      goal("a", map[string]any{"x": 2}),
			diff:      diffBy(map[string]resource.DiffResult{"a": replaceKeys("x")}),
			wantAfter: true,
			wantOps:   [][]string{{"create-replacement a", "replace a"}},
		},
		{
			name: "diff fails",
			old:  []*resource.State{recorded("a", map[string]any{"x": 1})},
			goal: goal("a", map[string]any{"x": 2}),
			diff: func(context.Context, providers.DiffRequest) (providers.DiffResponse, error) {
				return providers.DiffResponse{}, errDiff
			},
			wantAfter: true,
			wantErr:   errDiff,
		},
		{
			name:    "created",
			goal:    goal("a", map[string]any{"x": 1}),
			wantOps: [][]string{{"create a"}},
		},
		{
			name: "provider changed",
			old:  []*resource.State{recorded("a", map[string]any{"x": 1}, func(s *resource.State) { s.Provider = otherRef })},
			goal: goal("a", map[string]any{"x": 1}),
			// Two explicit providers: the change replaces the resource
			// without a Diff.
			wantOps: [][]string{{"create-replacement a", "replace a"}},
		},
		{
			name:    "inputs-only diff",
			cfg:     stepgen.Config{InputsOnlyDiff: true},
			old:     []*resource.State{recorded("a", map[string]any{"x": 1})},
			goal:    goal("a", map[string]any{"x": 2}),
			wantOps: [][]string{{"update a"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			run := func(eager bool) (*host, [][]string, error) {
				cfg := tt.cfg
				cfg.Old = tt.old
				h := newHost(t, cfg, &providers.Func{DiffF: tt.diff})
				h.eager = eager
				_, chains, err := h.register(tt.goal)
				return h, opNames(chains), err
			}
			lazy, lazyOps, lazyErr := run(false)
			eager, eagerOps, eagerErr := run(true)

			if got := lazy.calls[0].DiffAfterCheck; got != tt.wantAfter {
				t.Errorf("Check call DiffAfterCheck = %v, want %v", got, tt.wantAfter)
			}
			for _, r := range []struct {
				host string
				ops  [][]string
				err  error
			}{{"lazy", lazyOps, lazyErr}, {"eager", eagerOps, eagerErr}} {
				if !errors.Is(r.err, tt.wantErr) || (tt.wantErr == nil) != (r.err == nil) {
					t.Errorf("%s host: error %v, want %v", r.host, r.err, tt.wantErr)
				}
				if diff := cmp.Diff(tt.wantOps, r.ops); diff != "" {
					t.Errorf("%s host: chains (-want +got):\n%s", r.host, diff)
				}
			}
			if !tt.wantAfter {
				return
			}
			// The lazy host was asked for the Diff; the eager one made it
			// itself with the same request and was not asked again.
			lazyNames, eagerNames := lazy.callNames(), eager.callNames()
			if len(lazyNames) < 2 || lazyNames[1] != "diff a" {
				t.Fatalf("lazy host calls = %v, want check a, diff a, ...", lazyNames)
			}
			if want := append(lazyNames[:1:1], lazyNames[2:]...); !cmp.Equal(want, eagerNames) {
				t.Errorf("eager host calls = %v, want %v", eagerNames, want)
			}
			if diff := cmp.Diff([]providers.DiffRequest{lazy.calls[1].Diff}, eager.diffed); diff != "" {
				t.Errorf("early Diff request (-asked +made early):\n%s", diff)
			}
		})
	}
}
