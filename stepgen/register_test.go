package stepgen_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/groundwork-iac/groundwork/providers"
	"github.com/groundwork-iac/groundwork/resource"
	"github.com/groundwork-iac/groundwork/stepgen"
)

// TestRegisterDecides is the generator's decision table for one
// registration of "a": which provider calls it asks for, in order, and
// which chains of steps it issues.
func TestRegisterDecides(t *testing.T) {
	x1 := map[string]any{"x": 1}
	x2 := map[string]any{"x": 2}
	tests := []struct {
		name string
		old  []*resource.State
		cfg  stepgen.Config
		prov func(t *testing.T) *providers.Func
		goal resource.Goal
		// wantCalls are the calls in the order asked; wantOps the chains.
		wantCalls []string
		wantOps   [][]string
		// wantKeys are the changed keys the first step reports.
		wantKeys []resource.PropertyKey
	}{
		{
			name:      "no old state: create",
			goal:      goal("a", x1),
			wantCalls: []string{"check a"},
			wantOps:   [][]string{{"create a"}},
		},
		{
			name:      "equal inputs: same",
			old:       []*resource.State{recorded("a", x1)},
			goal:      goal("a", x1),
			wantCalls: []string{"check a", "diff a"},
			wantOps:   [][]string{{"same a"}},
		},
		{
			name:      "changed input: update in place",
			old:       []*resource.State{recorded("a", x1)},
			goal:      goal("a", x2),
			wantCalls: []string{"check a", "diff a"},
			wantOps:   [][]string{{"update a"}},
			wantKeys:  []resource.PropertyKey{"x"},
		},
		{
			name: "diff asks for a replacement: re-check, then create before delete",
			old:  []*resource.State{recorded("a", x1)},
			prov: func(*testing.T) *providers.Func {
				return &providers.Func{DiffF: diffBy(map[string]resource.DiffResult{"a": replaceKeys("x")})}
			},
			goal:      goal("a", x2),
			wantCalls: []string{"check a", "diff a", "check a"},
			wantOps:   [][]string{{"create-replacement a", "replace a"}},
			wantKeys:  []resource.PropertyKey{"x"},
		},
		{
			name: "provider asks to delete before replacing",
			old:  []*resource.State{recorded("a", x1)},
			prov: func(*testing.T) *providers.Func {
				d := replaceKeys("x")
				d.DeleteBeforeReplace = true
				return &providers.Func{DiffF: diffBy(map[string]resource.DiffResult{"a": d})}
			},
			goal:      goal("a", x2),
			wantCalls: []string{"check a", "diff a", "check a"},
			wantOps:   [][]string{{"delete-replaced a", "create a"}},
			wantKeys:  []resource.PropertyKey{"x"},
		},
		{
			name: "deleteBeforeReplace option",
			old:  []*resource.State{recorded("a", x1)},
			prov: func(*testing.T) *providers.Func {
				return &providers.Func{DiffF: diffBy(map[string]resource.DiffResult{"a": replaceKeys("x")})}
			},
			goal:      goal("a", x2, func(g *resource.Goal) { g.DeleteBeforeReplace = true }),
			wantCalls: []string{"check a", "diff a", "check a"},
			wantOps:   [][]string{{"delete-replaced a", "create a"}},
			wantKeys:  []resource.PropertyKey{"x"},
		},
		{
			name:      "deleteBeforeReplace option without a replacement: update",
			old:       []*resource.State{recorded("a", x1)},
			goal:      goal("a", x2, func(g *resource.Goal) { g.DeleteBeforeReplace = true }),
			wantCalls: []string{"check a", "diff a"},
			wantOps:   [][]string{{"update a"}},
			wantKeys:  []resource.PropertyKey{"x"},
		},
		{
			name:      "replace target: replaced without a diff",
			old:       []*resource.State{recorded("a", x1)},
			cfg:       stepgen.Config{ReplaceTargets: []resource.URN{urn("a")}},
			prov:      func(t *testing.T) *providers.Func { return &providers.Func{DiffF: failOnDiff(t)} },
			goal:      goal("a", x1),
			wantCalls: []string{"check a", "check a"},
			wantOps:   [][]string{{"create-replacement a", "replace a"}},
		},
		{
			name:      "changed provider reference: replaced without a diff",
			old:       []*resource.State{recorded("a", x1)},
			prov:      func(t *testing.T) *providers.Func { return &providers.Func{DiffF: failOnDiff(t)} },
			goal:      goal("a", x1, func(g *resource.Goal) { g.Provider = otherRef }),
			wantCalls: []string{"check a", "check a"},
			wantOps:   [][]string{{"create-replacement a", "replace a"}},
			wantKeys:  []resource.PropertyKey{"provider"},
		},
		{
			name:      "inputs-only diff: no Diff call",
			old:       []*resource.State{recorded("a", x1)},
			cfg:       stepgen.Config{InputsOnlyDiff: true},
			prov:      func(t *testing.T) *providers.Func { return &providers.Func{DiffF: failOnDiff(t)} },
			goal:      goal("a", x2),
			wantCalls: []string{"check a"},
			wantOps:   [][]string{{"update a"}},
			wantKeys:  []resource.PropertyKey{"x"},
		},
		{
			name:      "inputs-only diff of equal inputs: same",
			old:       []*resource.State{recorded("a", x1)},
			cfg:       stepgen.Config{InputsOnlyDiff: true},
			prov:      func(t *testing.T) *providers.Func { return &providers.Func{DiffF: failOnDiff(t)} },
			goal:      goal("a", x1),
			wantCalls: []string{"check a"},
			wantOps:   [][]string{{"same a"}},
		},
		{
			name: "provider cannot tell: inputs compared",
			old:  []*resource.State{recorded("a", map[string]any{"x": 1, "y": 1})},
			prov: func(*testing.T) *providers.Func {
				return &providers.Func{DiffF: diffBy(map[string]resource.DiffResult{"a": {Changes: resource.DiffUnknown}})}
			},
			goal:      goal("a", map[string]any{"x": 1, "y": 2}),
			wantCalls: []string{"check a", "diff a"},
			wantOps:   [][]string{{"update a"}},
			wantKeys:  []resource.PropertyKey{"y"},
		},
		{
			name: "provider cannot tell, inputs equal: same",
			old:  []*resource.State{recorded("a", x1)},
			prov: func(*testing.T) *providers.Func {
				return &providers.Func{DiffF: diffBy(map[string]resource.DiffResult{"a": {Changes: resource.DiffUnknown}})}
			},
			goal:      goal("a", x1),
			wantCalls: []string{"check a", "diff a"},
			wantOps:   [][]string{{"same a"}},
		},
		{
			name: "diff with changes but no keys: keys from the detailed diff",
			old:  []*resource.State{recorded("a", x1)},
			prov: func(*testing.T) *providers.Func {
				return &providers.Func{DiffF: diffBy(map[string]resource.DiffResult{"a": {
					Changes: resource.DiffSome,
					DetailedDiff: map[string]resource.PropertyDiff{
						"tags.env": {Kind: resource.DiffUpdate}, "size": {Kind: resource.DiffAdd},
					},
				}})}
			},
			goal:      goal("a", x1),
			wantCalls: []string{"check a", "diff a"},
			wantOps:   [][]string{{"update a"}},
			wantKeys:  []resource.PropertyKey{"size", "tags"},
		},
		{
			name:      "replaceOnChanges: a change beneath the path replaces",
			old:       []*resource.State{recorded("a", map[string]any{"spec": map[string]any{"size": 1}})},
			goal:      goal("a", map[string]any{"spec": map[string]any{"size": 2}}, replaceOnChanges("spec.size")),
			wantCalls: []string{"check a", "diff a", "check a"},
			wantOps:   [][]string{{"create-replacement a", "replace a"}},
			wantKeys:  []resource.PropertyKey{"spec"},
		},
		{
			name:      "replaceOnChanges: a change elsewhere updates",
			old:       []*resource.State{recorded("a", map[string]any{"spec": map[string]any{"size": 1}, "name": "n"})},
			goal:      goal("a", map[string]any{"spec": map[string]any{"size": 1}, "name": "m"}, replaceOnChanges("spec.size")),
			wantCalls: []string{"check a", "diff a"},
			wantOps:   [][]string{{"update a"}},
			wantKeys:  []resource.PropertyKey{"name"},
		},
		{
			name: "replaceOnChanges wildcard matches the provider's detailed path",
			old:  []*resource.State{recorded("a", map[string]any{"tags": map[string]any{"env": "dev"}})},
			prov: func(*testing.T) *providers.Func {
				return &providers.Func{DiffF: diffBy(map[string]resource.DiffResult{"a": {
					Changes:      resource.DiffSome,
					ChangedKeys:  []resource.PropertyKey{"tags"},
					DetailedDiff: map[string]resource.PropertyDiff{"tags.env": {Kind: resource.DiffUpdate, InputDiff: true}},
				}})}
			},
			goal:      goal("a", map[string]any{"tags": map[string]any{"env": "prod"}}, replaceOnChanges("tags.*")),
			wantCalls: []string{"check a", "diff a", "check a"},
			wantOps:   [][]string{{"create-replacement a", "replace a"}},
			wantKeys:  []resource.PropertyKey{"tags"},
		},
		{
			name:      "replaceOnChanges wildcard over array elements",
			old:       []*resource.State{recorded("a", map[string]any{"ports": []any{map[string]any{"n": 80}}})},
			goal:      goal("a", map[string]any{"ports": []any{map[string]any{"n": 8080}}}, replaceOnChanges("ports[*].n")),
			wantCalls: []string{"check a", "diff a", "check a"},
			wantOps:   [][]string{{"create-replacement a", "replace a"}},
			wantKeys:  []resource.PropertyKey{"ports"},
		},
		{
			name:      "ignoreChanges: an ignored change is not seen",
			old:       []*resource.State{recorded("a", map[string]any{"x": 1, "y": 1})},
			goal:      goal("a", map[string]any{"x": 2, "y": 1}, ignoreChanges("x")),
			wantCalls: []string{"check a", "diff a"},
			wantOps:   [][]string{{"same a"}},
		},
		{
			name:      "ignoreChanges: only the ignored path is kept",
			old:       []*resource.State{recorded("a", map[string]any{"spec": map[string]any{"size": 1, "kind": "k"}})},
			goal:      goal("a", map[string]any{"spec": map[string]any{"size": 2, "kind": "l"}}, ignoreChanges("spec.size")),
			wantCalls: []string{"check a", "diff a"},
			wantOps:   [][]string{{"update a"}},
			wantKeys:  []resource.PropertyKey{"spec"},
		},
		{
			name:      "ignoreChanges: a value the old lacked is removed",
			old:       []*resource.State{recorded("a", x1)},
			goal:      goal("a", map[string]any{"x": 1, "y": 2}, ignoreChanges("y")),
			wantCalls: []string{"check a", "diff a"},
			wantOps:   [][]string{{"same a"}},
		},
		{
			name:      "ignoreChanges wildcard: changed, added and removed keys",
			old:       []*resource.State{recorded("a", map[string]any{"tags": map[string]any{"a": "1", "b": "2"}})},
			goal:      goal("a", map[string]any{"tags": map[string]any{"a": "9", "c": "3"}}, ignoreChanges("tags.*")),
			wantCalls: []string{"check a", "diff a"},
			wantOps:   [][]string{{"same a"}},
		},
		{
			name:      "ignoreChanges wildcard over array elements",
			old:       []*resource.State{recorded("a", map[string]any{"ports": []any{map[string]any{"n": 80}, map[string]any{"n": 81}}})},
			goal:      goal("a", map[string]any{"ports": []any{map[string]any{"n": 8080}, map[string]any{"n": 8081}}}, ignoreChanges("ports[*].n")),
			wantCalls: []string{"check a", "diff a"},
			wantOps:   [][]string{{"same a"}},
		},
		{
			name: "ignoreChanges wildcard inside a secret",
			old: []*resource.State{recorded("a", map[string]any{
				"creds": resource.NewSecret(resource.NewObject(props(map[string]any{"user": "u", "pass": "p"}))),
			})},
			goal: goal("a", map[string]any{
				"creds": resource.NewSecret(resource.NewObject(props(map[string]any{"user": "v", "pass": "q"}))),
			}, ignoreChanges("creds.*")),
			wantCalls: []string{"check a", "diff a"},
			wantOps:   [][]string{{"same a"}},
		},
		{
			name:      "ignoreChanges of an array element by index",
			old:       []*resource.State{recorded("a", map[string]any{"list": []any{"a", "b"}})},
			goal:      goal("a", map[string]any{"list": []any{"a", "c"}}, ignoreChanges("list[1]")),
			wantCalls: []string{"check a", "diff a"},
			wantOps:   [][]string{{"same a"}},
		},
		{
			name:      "ignoreChanges has no effect on a create",
			goal:      goal("a", x1, ignoreChanges("x")),
			wantCalls: []string{"check a"},
			wantOps:   [][]string{{"create a"}},
		},
		{
			name:      "analyzers run after Check",
			old:       []*resource.State{recorded("a", x1)},
			cfg:       stepgen.Config{Analyze: true},
			goal:      goal("a", x2),
			wantCalls: []string{"check a", "analyze a", "diff a"},
			wantOps:   [][]string{{"update a"}},
			wantKeys:  []resource.PropertyKey{"x"},
		},
		{
			name:      "a leftover of an interrupted delete-before-replace: created afresh",
			old:       []*resource.State{recorded("a", x1, func(s *resource.State) { s.PendingReplacement = true })},
			prov:      func(t *testing.T) *providers.Func { return &providers.Func{DiffF: failOnDiff(t)} },
			goal:      goal("a", x1),
			wantCalls: []string{"check a"},
			wantOps:   [][]string{{"create a"}},
		},
		{
			name:    "component without old state: create, no calls",
			goal:    resource.Goal{Type: group, Name: "a"},
			wantOps: [][]string{{"create a"}},
		},
		{
			name:    "component with equal inputs: same",
			old:     []*resource.State{{Type: group, URN: groupURN("a"), Inputs: props(x1)}},
			goal:    resource.Goal{Type: group, Name: "a", Inputs: props(x1)},
			wantOps: [][]string{{"same a"}},
		},
		{
			name:     "component with changed inputs: update",
			old:      []*resource.State{{Type: group, URN: groupURN("a"), Inputs: props(x1)}},
			goal:     resource.Goal{Type: group, Name: "a", Inputs: props(x2)},
			wantOps:  [][]string{{"update a"}},
			wantKeys: []resource.PropertyKey{"x"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var prov *providers.Func
			if tt.prov != nil {
				prov = tt.prov(t)
			}
			cfg := tt.cfg
			cfg.Old = tt.old
			h := newHost(t, cfg, prov)
			chains := h.mustRegister(tt.goal)
			if diff := cmp.Diff(tt.wantCalls, h.callNames()); diff != "" {
				t.Errorf("calls (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantOps, opNames(chains)); diff != "" {
				t.Fatalf("chains (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantKeys, chains[0][0].Keys, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("changed keys (-want +got):\n%s", diff)
			}
		})
	}
}

func replaceOnChanges(paths ...string) func(*resource.Goal) {
	return func(g *resource.Goal) { g.ReplaceOnChanges = paths }
}

func ignoreChanges(paths ...string) func(*resource.Goal) {
	return func(g *resource.Goal) { g.IgnoreChanges = paths }
}

// TestCheckRequests pins what Check is given: the old inputs on an update
// (so a provider keeps its generated defaults), none on a create or for the
// re-check of a replacement, and a random seed that depends only on the
// stack's seed and the URN.
func TestCheckRequests(t *testing.T) {
	old := recorded("a", map[string]any{"x": 1, "name": "a-1234"})
	prov := &providers.Func{DiffF: diffBy(map[string]resource.DiffResult{"a": replaceKeys("x")})}
	h := newHost(t, stepgen.Config{Old: []*resource.State{old}, StackSeed: []byte("seed")}, prov)
	h.mustRegister(goal("a", map[string]any{"x": 2}, ignoreChanges("name")))
	h.mustRegister(goal("b", map[string]any{"y": 1}))

	if len(h.calls) != 4 {
		t.Fatalf("calls = %v, want check a, diff a, check a, check b", h.callNames())
	}
	first, recheck, create := h.calls[0].Check, h.calls[2].Check, h.calls[3].Check
	want := []providers.CheckRequest{
		// The update's Check sees the old inputs, and ignoreChanges
		// already applied (the old name kept).
		{URN: urn("a"), Olds: old.Inputs, News: props(map[string]any{"x": 2, "name": "a-1234"}), RandomSeed: first.RandomSeed},
		// The replacement's re-check starts from the program's inputs
		// alone: the replacement inherits nothing from the old copy.
		{URN: urn("a"), News: props(map[string]any{"x": 2}), RandomSeed: first.RandomSeed},
		{URN: urn("b"), News: props(map[string]any{"y": 1}), RandomSeed: create.RandomSeed},
	}
	if diff := cmp.Diff(want, []providers.CheckRequest{first, recheck, create}); diff != "" {
		t.Errorf("check requests (-want +got):\n%s", diff)
	}

	seedOf := func(stackSeed string, name string) []byte {
		g := newHost(t, stepgen.Config{StackSeed: []byte(stackSeed)}, nil)
		g.mustRegister(goal(name, nil))
		return g.calls[0].Check.RandomSeed
	}
	if len(first.RandomSeed) == 0 {
		t.Fatal("the random seed is empty")
	}
	if !cmp.Equal(first.RandomSeed, seedOf("seed", "a")) {
		t.Error("the seed of one URN differs between two generators of the same stack")
	}
	if cmp.Equal(first.RandomSeed, create.RandomSeed) {
		t.Error("two URNs got the same seed")
	}
	if cmp.Equal(first.RandomSeed, seedOf("other-stack", "a")) {
		t.Error("two stacks gave one URN the same seed")
	}
	// Long URNs are hashed whole: names that differ only at their end
	// give different seeds, and each its own one every time.
	long := strings.Repeat("n", 600)
	if a, b := seedOf("seed", long+"a"), seedOf("seed", long+"b"); len(a) != len(first.RandomSeed) || cmp.Equal(a, b) || !cmp.Equal(a, seedOf("seed", long+"a")) {
		t.Errorf("seeds of two long URNs that differ at the end: %x and %x", a, b)
	}
}

// TestDiffRequest pins what Diff is given: the recorded ID, inputs and
// outputs, the checked new inputs and the ignoreChanges paths.
func TestDiffRequest(t *testing.T) {
	old := recorded("a", map[string]any{"x": 1}, func(s *resource.State) {
		s.Outputs = props(map[string]any{"x": 1, "arn": "arn:a"})
	})
	prov := &providers.Func{CheckF: func(_ context.Context, req providers.CheckRequest) (providers.CheckResponse, error) {
		in := req.News.Copy()
		in["default"] = resource.NewString("filled")
		return providers.CheckResponse{Inputs: in}, nil
	}}
	h := newHost(t, stepgen.Config{Old: []*resource.State{old}}, prov)
	h.mustRegister(goal("a", map[string]any{"x": 2, "y": 3}, ignoreChanges("y")))
	if len(h.calls) != 2 || h.calls[1].Kind != stepgen.CallDiff {
		t.Fatalf("calls = %v, want check a, diff a", h.callNames())
	}
	want := providers.DiffRequest{
		URN: urn("a"), ID: "id-a", OldInputs: old.Inputs, OldOutputs: old.Outputs,
		NewInputs:     props(map[string]any{"x": 2, "default": "filled"}),
		IgnoreChanges: []string{"y"},
	}
	if diff := cmp.Diff(want, h.calls[1].Diff); diff != "" {
		t.Errorf("diff request (-want +got):\n%s", diff)
	}
	if c := h.calls[1]; c.Provider != provRef || c.Type != thing || c.Reg == nil || c.Reg.URN != urn("a") {
		t.Errorf("diff call routed to provider %q type %q for %v, want %q, %q, a", c.Provider, c.Type, c.Reg, provRef, thing)
	}
}

// TestSameCarriesRecordedState: a same step records the program's state
// (here a new protect option) with the recorded ID, outputs and times: the
// provider is not asked again.
func TestSameCarriesRecordedState(t *testing.T) {
	old := recorded("a", map[string]any{"x": 1}, func(s *resource.State) {
		s.Outputs = props(map[string]any{"x": 1, "arn": "arn:a"})
		s.Created = fixedNow.Add(-1)
	})
	h := newHost(t, stepgen.Config{Old: []*resource.State{old}}, nil)
	reg, chains, err := h.register(goal("a", map[string]any{"x": 1}, func(g *resource.Goal) { g.Protect = true }))
	if err != nil {
		t.Fatal(err)
	}
	s := onlyStep(t, chains)
	if s.Op != stepgen.OpSame || s.Old != old || s.Reg != reg || reg.URN != urn("a") {
		t.Fatalf("step = %s old %p reg %v, want same of the recorded state for the registration", s.Op, s.Old, s.Reg)
	}
	want := old.Clone()
	want.Protect = true
	want.Modified = old.Modified
	if diff := cmp.Diff(want, s.New); diff != "" {
		t.Errorf("same step's New (-want +got):\n%s", diff)
	}
	if s.New == old {
		t.Error("the same step shares the recorded state instead of recording the program's")
	}
	if got := h.gen.State(urn("a")); got != s.New {
		t.Errorf("State(a) = %p, want the step's New %p", got, s.New)
	}
	if s.JournalOp() != "" || s.Applied() {
		t.Errorf("same step journals %q, want nothing", s.JournalOp())
	}
	if got := result(s); got != "old→new" {
		t.Errorf("Result = %s, want old→new", got)
	}
}

// TestUpdateStep: an update keeps the ID, reports its diff and journals an
// update; applying it calls Update with the recorded state.
func TestUpdateStep(t *testing.T) {
	old := recorded("a", map[string]any{"x": 1}, func(s *resource.State) { s.Created = fixedNow.Add(-1) })
	var got providers.UpdateRequest
	prov := &providers.Func{UpdateF: func(_ context.Context, req providers.UpdateRequest) (providers.UpdateResponse, error) {
		got = req
		return providers.UpdateResponse{Outputs: props(map[string]any{"x": 2, "arn": "arn:a"})}, nil
	}}
	h := newHost(t, stepgen.Config{Old: []*resource.State{old}}, prov)
	g := goal("a", map[string]any{"x": 2}, ignoreChanges("z"), func(g *resource.Goal) { g.CustomTimeouts.Update = 7 })
	s := onlyStep(t, h.mustRegister(g))
	if s.Op != stepgen.OpUpdate || s.Old != old || s.New.ID != "id-a" {
		t.Fatalf("step = %s (old %p, new id %q), want update of the recorded state keeping its ID", s.Op, s.Old, s.New.ID)
	}
	if s.Diff.Changes != resource.DiffSome {
		t.Errorf("Diff.Changes = %v, want some", s.Diff.Changes)
	}
	if s.JournalOp() != resource.OperationUpdating || result(s) != "old→new" {
		t.Errorf("JournalOp %q, Result %s; want updating, old→new", s.JournalOp(), result(s))
	}
	out := h.apply([][]*stepgen.Step{{s}})[0]
	want := providers.UpdateRequest{
		URN: urn("a"), ID: "id-a", OldInputs: old.Inputs, OldOutputs: old.Outputs,
		NewInputs: props(map[string]any{"x": 2}), IgnoreChanges: []string{"z"}, Timeout: 7,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("update request (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(props(map[string]any{"x": 2, "arn": "arn:a"}), out.New.Outputs); diff != "" {
		t.Errorf("outputs (-want +got):\n%s", diff)
	}
	if !out.New.Created.Equal(old.Created) || !out.New.Modified.Equal(fixedNow) {
		t.Errorf("created %v modified %v, want the old creation time and now", out.New.Created, out.New.Modified)
	}
	if s.New.Outputs != nil || !s.New.Modified.IsZero() {
		t.Errorf("applying the step changed it: outputs %v, modified %v", s.New.Outputs, s.New.Modified)
	}
	if got := h.gen.State(urn("a")); got != out.New {
		t.Errorf("State(a) = %p, want the outcome's New %p", got, out.New)
	}
}

// TestCreateChain: a create needs the steps of the parent, the
// dependencies and the provider, and journals a create.
func TestCreateChain(t *testing.T) {
	h := newHost(t, stepgen.Config{}, nil)
	h.mustRegister(resource.Goal{Type: providers.ProviderType("test"), Name: "explicit", Custom: true})
	h.mustRegister(resource.Goal{Type: group, Name: "g"})
	h.mustRegister(goal("dep", nil))
	chains := h.mustRegister(goal("a", map[string]any{"x": 1}, func(g *resource.Goal) {
		g.Parent = groupURN("g")
		g.Dependencies = []resource.URN{urn("dep")}
	}))
	if len(chains) != 1 {
		t.Fatalf("chains = %v", opNames(chains))
	}
	child := resource.NewURN(testStack, testProject, group, thing, "a")
	s := chains[0][0]
	if s.URN() != child {
		t.Errorf("URN = %s, want %s (the parent's type is part of it)", s.URN(), child)
	}
	if diff := cmp.Diff([]resource.URN{groupURN("g"), urn("dep"), provURN}, h.urnsOf(s.Needs)); diff != "" {
		t.Errorf("Needs (-want +got):\n%s", diff)
	}
	if s.After != nil {
		t.Errorf("After = %v, want none: nothing was issued on a before", s.After)
	}
	if s.Old != nil || s.New.ID != "" || s.JournalOp() != resource.OperationCreating || result(s) != "nil→new" {
		t.Errorf("create step: old %v, id %q, journal %q, result %s", s.Old, s.New.ID, s.JournalOp(), result(s))
	}
	if got := h.gen.URNFor(resource.Goal{Type: thing, Name: "a", Parent: groupURN("g")}); got != child {
		t.Errorf("URNFor = %s, want %s", got, child)
	}
}

// TestRegisterErrors: what the generator refuses, and the typed errors
// that say why. A refusal fails that registration only.
func TestRegisterErrors(t *testing.T) {
	unknown := map[string]any{"x": resource.NewUnknown()}
	tests := []struct {
		name string
		old  []*resource.State
		cfg  stepgen.Config
		prov *providers.Func
		// before are registered first, successfully.
		before []resource.Goal
		goal   resource.Goal
		// check inspects the error.
		check func(t *testing.T, err error)
	}{
		{
			name: "bad type",
			goal: resource.Goal{Type: "Thing", Name: "a", Custom: true},
			check: func(t *testing.T, err error) {
				var re *stepgen.RegistrationError
				if !errors.As(err, &re) || re.Type != "Thing" || re.Name != "a" {
					t.Errorf("err = %v, want a RegistrationError naming the type and name", err)
				}
			},
		},
		{
			name: "empty name",
			goal: resource.Goal{Type: thing, Custom: true},
			check: func(t *testing.T, err error) {
				var re *stepgen.RegistrationError
				if !errors.As(err, &re) || re.Type != thing {
					t.Errorf("err = %v, want a RegistrationError", err)
				}
			},
		},
		{
			name: "name not UTF-8",
			goal: resource.Goal{Type: thing, Name: "a\xff", Custom: true},
			check: func(t *testing.T, err error) {
				var re *stepgen.RegistrationError
				if !errors.As(err, &re) || re.Name != "a\uFFFD" || !strings.Contains(re.Reason, "UTF-8") {
					t.Errorf("err = %v, want a RegistrationError saying the name is not UTF-8", err)
				}
			},
		},
		{
			name: "component type not UTF-8",
			goal: resource.Goal{Type: "my:C\xffomponent", Name: "a"},
			check: func(t *testing.T, err error) {
				var re *stepgen.RegistrationError
				if !errors.As(err, &re) || !strings.Contains(re.Reason, "UTF-8") {
					t.Errorf("err = %v, want a RegistrationError saying the type is not UTF-8", err)
				}
			},
		},
		{
			name: "parent not registered",
			goal: goal("a", nil, func(g *resource.Goal) { g.Parent = groupURN("g") }),
			check: func(t *testing.T, err error) {
				var re *stepgen.RegistrationError
				if !errors.As(err, &re) || re.Name != "a" {
					t.Errorf("err = %v, want a RegistrationError", err)
				}
			},
		},
		{
			name:   "duplicate URN",
			before: []resource.Goal{goal("a", nil)},
			goal:   goal("a", nil),
			check: func(t *testing.T, err error) {
				var de *stepgen.DuplicateURNError
				if !errors.As(err, &de) || de.URN != urn("a") {
					t.Errorf("err = %v, want DuplicateURNError for a", err)
				}
			},
		},
		{
			name: "check failures",
			prov: &providers.Func{CheckF: func(_ context.Context, req providers.CheckRequest) (providers.CheckResponse, error) {
				if req.URN != urn("a") {
					return providers.CheckResponse{Inputs: req.News}, nil
				}
				return providers.CheckResponse{Failures: []providers.CheckFailure{{Property: "x", Reason: "too big"}}}, nil
			}},
			goal: goal("a", map[string]any{"x": 99}),
			check: func(t *testing.T, err error) {
				var ce *stepgen.CheckFailedError
				if !errors.As(err, &ce) {
					t.Fatalf("err = %v, want CheckFailedError", err)
				}
				want := &stepgen.CheckFailedError{URN: urn("a"), Failures: []providers.CheckFailure{{Property: "x", Reason: "too big"}}}
				if diff := cmp.Diff(want, ce); diff != "" {
					t.Errorf("error (-want +got):\n%s", diff)
				}
			},
		},
		{
			name: "check fails",
			prov: &providers.Func{CheckF: func(_ context.Context, req providers.CheckRequest) (providers.CheckResponse, error) {
				if req.URN != urn("a") {
					return providers.CheckResponse{Inputs: req.News}, nil
				}
				return providers.CheckResponse{}, errBoom
			}},
			goal:  goal("a", nil),
			check: isBoom,
		},
		{
			name: "diff fails",
			old:  []*resource.State{recorded("a", nil)},
			prov: &providers.Func{DiffF: func(context.Context, providers.DiffRequest) (providers.DiffResponse, error) {
				return providers.DiffResponse{}, errBoom
			}},
			goal:  goal("a", nil),
			check: isBoom,
		},
		{
			name: "unknown input outside a preview",
			goal: goal("a", unknown),
			check: func(t *testing.T, err error) {
				var re *stepgen.RegistrationError
				if !errors.As(err, &re) || re.URN != urn("a") {
					t.Errorf("err = %v, want a RegistrationError for a", err)
				}
			},
		},
		{
			name: "importing an id other than the one managed",
			old:  []*resource.State{recorded("a", nil)},
			goal: goal("a", nil, func(g *resource.Goal) { g.ImportID = "other" }),
			check: func(t *testing.T, err error) {
				var re *stepgen.RegistrationError
				if !errors.As(err, &re) || re.URN != urn("a") {
					t.Errorf("err = %v, want a RegistrationError for a", err)
				}
			},
		},
		{
			name: "bad ignoreChanges path",
			old:  []*resource.State{recorded("a", nil)},
			goal: goal("a", nil, ignoreChanges("x..y")),
			check: func(t *testing.T, err error) {
				var re *stepgen.RegistrationError
				if !errors.As(err, &re) {
					t.Errorf("err = %v, want a RegistrationError", err)
				}
			},
		},
		{
			name: "bad replaceOnChanges path",
			old:  []*resource.State{recorded("a", map[string]any{"x": 1})},
			goal: goal("a", map[string]any{"x": 2}, replaceOnChanges("[")),
			check: func(t *testing.T, err error) {
				var re *stepgen.RegistrationError
				if !errors.As(err, &re) {
					t.Errorf("err = %v, want a RegistrationError", err)
				}
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := tt.cfg
			cfg.Old = tt.old
			h := newHost(t, cfg, tt.prov)
			for _, g := range tt.before {
				h.mustRegister(g)
			}
			_, chains, err := h.register(tt.goal)
			if err == nil {
				t.Fatalf("registered with chains %v, want an error", opNames(chains))
			}
			tt.check(t, err)
			// The generator stays usable.
			if _, _, err := h.register(goal("after", nil)); err != nil {
				t.Errorf("a later registration failed: %v", err)
			}
		})
	}
}

// TestRefusedSteps: a resource the analyzers refuse (a mandatory policy
// violated) comes to the step it would have taken — create, same, update
// or replace — and that step is refused, as is the replacement of a
// protected resource, directly or as a dependent a delete-before-replace
// would delete: the step calls no provider, records nothing and fails with
// the refusal, so that the host reports it as the resource's failed step.
// A replacement is refused before its re-check, and, when the analyzers
// refuse it, a delete-before-replace before it looks at any dependent.
func TestRefusedSteps(t *testing.T) {
	dbr := func(g *resource.Goal) { g.DeleteBeforeReplace = true }
	protectGoal := func(g *resource.Goal) { g.Protect = true }
	protect := func(s *resource.State) { s.Protect = true }
	isProtected := func(urn, replacing resource.URN) func(error) bool {
		return func(err error) bool {
			var pe *stepgen.ProtectedError
			return errors.As(err, &pe) && pe.URN == urn && pe.Action == "replace" && pe.For == replacing
		}
	}
	tests := []struct {
		name      string
		old       []*resource.State
		goal      resource.Goal
		analyze   bool // the analyzers refuse
		want      stepgen.Op
		refusal   func(error) bool
		wantCalls []string
	}{
		{name: "the analyzers refuse a new resource", goal: goal("a", map[string]any{"x": 1}), analyze: true,
			want: stepgen.OpCreate, wantCalls: []string{"check a", "analyze a"}},
		{name: "the analyzers refuse an unchanged resource", analyze: true,
			old: []*resource.State{recorded("a", map[string]any{"x": 1})}, goal: goal("a", map[string]any{"x": 1}),
			want: stepgen.OpSame, wantCalls: []string{"check a", "analyze a", "diff a"}},
		{name: "the analyzers refuse an update", analyze: true,
			old: []*resource.State{recorded("a", map[string]any{"x": 1})}, goal: goal("a", map[string]any{"x": 2}),
			want: stepgen.OpUpdate, wantCalls: []string{"check a", "analyze a", "diff a"}},
		{name: "the analyzers refuse a replacement", analyze: true,
			old: []*resource.State{recorded("a", map[string]any{"zone": "x"})}, goal: goal("a", map[string]any{"zone": "y"}),
			want: stepgen.OpReplace, wantCalls: []string{"check a", "analyze a", "diff a"}},
		{name: "the analyzers refuse a delete-before-replace", analyze: true, goal: goal("a", map[string]any{"zone": "y"}, dbr),
			old: []*resource.State{
				recorded("a", map[string]any{"zone": "x"}),
				recorded("b", map[string]any{"zone": "x"}, inputFrom("zone", urn("a"))),
			},
			want: stepgen.OpReplace, wantCalls: []string{"check a", "analyze a", "diff a"}},
		{name: "a protected resource is not replaced",
			old:  []*resource.State{recorded("a", map[string]any{"zone": "x"}, protect)},
			goal: goal("a", map[string]any{"zone": "y"}, protectGoal),
			want: stepgen.OpReplace, refusal: isProtected(urn("a"), ""), wantCalls: []string{"check a", "diff a"}},
		{name: "a protected dependent is not replaced by a delete-before-replace",
			old: []*resource.State{
				recorded("a", map[string]any{"zone": "x"}),
				recorded("b", map[string]any{"zone": "x"}, inputFrom("zone", urn("a")), protect),
			},
			goal: goal("a", map[string]any{"zone": "y"}, dbr),
			want: stepgen.OpReplace, refusal: isProtected(urn("b"), urn("a")),
			wantCalls: []string{"check a", "diff a", "check a", "diff b"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			prov := &providers.Func{
				DiffF: diffBy(map[string]resource.DiffResult{
					"a": replaceKeys("zone"), "b": replaceKeys("zone"),
				}),
				CreateF: failOnCreate(t),
				UpdateF: failOnUpdate(t),
				DeleteF: failOnDelete(t),
			}
			if tt.want != stepgen.OpReplace {
				prov.DiffF = nil
			}
			refusal := tt.refusal
			if refusal == nil {
				refusal = func(err error) bool { return errors.Is(err, errBoom) }
			}
			h := newHost(t, stepgen.Config{Old: tt.old, Analyze: tt.analyze}, prov)
			h.analyze = func(*resource.State) error { return errBoom }
			s := onlyStep(t, h.mustRegister(tt.goal))
			if s.Op != tt.want || !refusal(s.Refused()) {
				t.Errorf("step %s refused with %v, want %s with the expected refusal", s.Op, s.Refused(), tt.want)
			}
			if s.JournalOp() != "" || !s.Local() {
				t.Errorf("journal op %q, local %t: a refused step journals nothing and calls no provider", s.JournalOp(), s.Local())
			}
			o := h.applyOne(s)
			if !refusal(o.Err) {
				t.Errorf("Apply = %v, want the refusal", o.Err)
			}
			if old, new := o.Record(); old != nil || new != nil {
				t.Errorf("the refused step records %v → %v", old, new)
			}
			if diff := cmp.Diff(tt.wantCalls, h.callNames()); diff != "" {
				t.Errorf("calls (-want +got):\n%s", diff)
			}
		})
	}
}

var errBoom = errors.New("boom")

func isBoom(t *testing.T, err error) {
	t.Helper()
	if !errors.Is(err, errBoom) {
		t.Errorf("err = %v, want it to wrap the provider's error", err)
	}
}

// TestPreviewAllowsUnknownInputs: in a preview an input may be unknown (it
// comes from a resource not created yet).
func TestPreviewAllowsUnknownInputs(t *testing.T) {
	h := newHost(t, stepgen.Config{Preview: true}, nil)
	s := onlyStep(t, h.mustRegister(goal("a", map[string]any{"x": resource.NewUnknown()})))
	if s.Op != stepgen.OpCreate || !s.Preview || !s.New.Inputs["x"].IsUnknown() {
		t.Errorf("step %s preview=%v inputs %v, want a preview create with the unknown input", s.Op, s.Preview, s.New.Inputs)
	}
}

// TestNewRefusesCorruptSnapshots: a nil resource or a URN recorded twice
// (neither marked for deletion) is refused up front.
func TestNewRefusesCorruptSnapshots(t *testing.T) {
	for name, old := range map[string][]*resource.State{
		"nil":       {nil},
		"duplicate": {recorded("a", nil), recorded("a", nil)},
	} {
		if _, err := stepgen.New(stepgen.Config{Stack: testStack, Project: testProject, Old: old}); err == nil {
			t.Errorf("%s: New accepted the snapshot", name)
		}
	}
	ok := []*resource.State{recorded("a", nil), recorded("a", nil, func(s *resource.State) { s.Delete = true })}
	if _, err := stepgen.New(stepgen.Config{Stack: testStack, Project: testProject, Old: ok}); err != nil {
		t.Errorf("New refused a live copy beside one marked for deletion: %v", err)
	}
}

// TestAnswerWithoutCall: an answer must carry the call it answers.
func TestAnswerWithoutCall(t *testing.T) {
	h := newHost(t, stepgen.Config{}, nil)
	if _, err := h.gen.Answer(stepgen.Answer{}); err == nil {
		t.Error("Answer accepted an answer without a call")
	}
	if _, err := h.gen.Answer(stepgen.Answer{Call: &stepgen.Call{}}); err == nil {
		t.Error("Answer accepted a call the generator did not make")
	}
}

// TestRegisterOutputs: a component's outputs become a step that records
// them, after the component's own step, and the outputs stay with the
// component; the step's outcome answers the registration of the outputs.
func TestRegisterOutputs(t *testing.T) {
	h := newHost(t, stepgen.Config{}, nil)
	first := onlyStep(t, h.mustRegister(resource.Goal{Type: group, Name: "g"}))
	outs := props(map[string]any{"url": "https://example.com"})
	reg := &stepgen.Registration{URN: groupURN("g")}
	acts, err := h.gen.RegisterOutputs(reg, outs)
	if err != nil {
		t.Fatal(err)
	}
	s := onlyStep(t, [][]*stepgen.Step{acts.Steps})
	if s.Op != stepgen.OpOutputs || s.Old != first.New || s.JournalOp() != "" || result(s) != "old→new" || s.Reg != reg {
		t.Errorf("outputs step %s old %p journal %q result %s reg %v", s.Op, s.Old, s.JournalOp(), result(s), s.Reg)
	}
	if len(s.Needs) != 0 || !slices.Equal(s.After, []uint64{first.ID}) {
		t.Errorf("outputs step needs %v after %v, want to come after the component's step %d", s.Needs, s.After, first.ID)
	}
	if diff := cmp.Diff(outs, h.gen.State(groupURN("g")).Outputs); diff != "" {
		t.Errorf("State outputs (-want +got):\n%s", diff)
	}
	o := h.applyOne(s)
	if o.Err != nil {
		t.Fatal(o.Err)
	}
	done := h.gen.Done(o)
	if len(done.Replies) != 1 || done.Replies[0].Reg != reg || done.Replies[0].Err != nil {
		t.Errorf("replies = %+v, want the outputs' registration answered", done.Replies)
	}
	if _, err := h.gen.RegisterOutputs(&stepgen.Registration{URN: groupURN("missing")}, outs); err == nil {
		t.Error("RegisterOutputs accepted a resource not registered")
	}
}

// TestIgnoreChangesBeneathSecrets: an ignored path inside a secret gets
// its old value back exactly (not wrapped in a second secret), and a value
// that was secret never comes back in the clear.
func TestIgnoreChangesBeneathSecrets(t *testing.T) {
	secretObj := func(m map[string]any) resource.PropertyValue { return resource.NewSecret(resource.NewObject(props(m))) }
	tests := []struct {
		name     string
		old, new map[string]any
		ignore   string
		want     map[string]any
	}{
		{
			name:   "both secret",
			old:    map[string]any{"creds": secretObj(map[string]any{"user": "u", "pass": "p"})},
			new:    map[string]any{"creds": secretObj(map[string]any{"user": "v", "pass": "q"})},
			ignore: "creds.user",
			want:   map[string]any{"creds": secretObj(map[string]any{"user": "u", "pass": "q"})},
		},
		{
			name:   "no longer secret",
			old:    map[string]any{"creds": secretObj(map[string]any{"user": "u"})},
			new:    map[string]any{"creds": map[string]any{"user": "v"}},
			ignore: "creds.user",
			want:   map[string]any{"creds": map[string]any{"user": resource.NewSecret(resource.NewString("u"))}},
		},
		{
			name:   "newly secret",
			old:    map[string]any{"creds": map[string]any{"user": "u"}},
			new:    map[string]any{"creds": secretObj(map[string]any{"user": "v"})},
			ignore: "creds.user",
			want:   map[string]any{"creds": secretObj(map[string]any{"user": "u"})},
		},
		{
			name:   "a secret leaf",
			old:    map[string]any{"creds": map[string]any{"user": resource.NewSecret(resource.NewString("u"))}},
			new:    map[string]any{"creds": map[string]any{"user": "v"}},
			ignore: "creds.*",
			want:   map[string]any{"creds": map[string]any{"user": resource.NewSecret(resource.NewString("u"))}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHost(t, stepgen.Config{Old: []*resource.State{recorded("a", tt.old)}}, nil)
			h.mustRegister(goal("a", tt.new, ignoreChanges(tt.ignore)))
			if diff := cmp.Diff(props(tt.want), h.calls[0].Check.News); diff != "" {
				t.Errorf("checked inputs (-want +got):\n%s", diff)
			}
		})
	}
}

// TestComponentTypes: a component may have any type the SDKs accept
// ("component", "my component"), and its children's URNs carry it; a
// custom resource or a remote component needs a type token, and no type
// may make the URN ambiguous.
func TestComponentTypes(t *testing.T) {
	h := newHost(t, stepgen.Config{}, nil)
	for _, typ := range []string{"component", "my component", "my:component"} {
		reg, chains, err := h.register(resource.Goal{Type: typ, Name: "c-" + typ})
		if err != nil {
			t.Fatalf("registering a component of type %q: %v", typ, err)
		}
		if s := onlyStep(t, chains); s.Op != stepgen.OpCreate {
			t.Errorf("component %q: %s, want create", typ, s.Op)
		}
		child, _, err := h.register(goal("child-"+typ, nil, func(g *resource.Goal) { g.Parent = reg.URN }))
		if err != nil {
			t.Fatalf("registering a child of the %q component: %v", typ, err)
		}
		if want := resource.NewURN(testStack, testProject, typ, thing, "child-"+typ); child.URN != want {
			t.Errorf("child URN %s, want %s", child.URN, want)
		}
		if _, err := resource.ParseURN(string(child.URN)); err != nil {
			t.Errorf("the child's URN does not parse: %v", err)
		}
	}
	for _, g := range []resource.Goal{
		{Type: "component", Name: "custom", Custom: true},
		{Type: "component", Name: "remote", Remote: true},
		{Type: "", Name: "empty"},
		{Type: "a::b", Name: "separator"},
		{Type: "a$b", Name: "parent separator"},
		{Type: "a:", Name: "trailing colon"},
	} {
		_, _, err := h.register(g)
		var re *stepgen.RegistrationError
		if !errors.As(err, &re) || re.Name != g.Name {
			t.Errorf("registering %q (custom %v, remote %v) = %v, want a RegistrationError", g.Type, g.Custom, g.Remote, err)
		}
	}
}

// TestFailedRegistrationIsAnsweredByAnAction: an input that fails a
// registration returns, with its error, actions that hold nothing but the
// registration's reply carrying that error, so a host carries out actions
// and never answers a registration itself.
func TestFailedRegistrationIsAnsweredByAnAction(t *testing.T) {
	checkFails := errors.New("check failed")
	tests := []struct {
		name string
		fail func(h *host, reg *stepgen.Registration) (stepgen.Actions, error)
	}{
		{"Register", func(h *host, reg *stepgen.Registration) (stepgen.Actions, error) {
			reg.Goal = &resource.Goal{Type: "test:index:Thing", Custom: true} // no name
			return h.gen.Register(reg)
		}},
		{"Read", func(h *host, reg *stepgen.Registration) (stepgen.Actions, error) {
			reg.Goal = &resource.Goal{Type: "test:index:Thing", Name: "r", Custom: true}
			return h.gen.Read(reg, "") // no ID
		}},
		{"RegisterOutputs", func(h *host, reg *stepgen.Registration) (stepgen.Actions, error) {
			reg.URN = urn("never-registered")
			return h.gen.RegisterOutputs(reg, resource.PropertyMap{})
		}},
		{"Answer", func(h *host, reg *stepgen.Registration) (stepgen.Actions, error) {
			reg.Goal = &resource.Goal{Type: "test:index:Thing", Name: "a", Custom: true}
			acts, err := h.gen.Register(reg)
			if err != nil || len(acts.Calls) != 1 {
				t.Fatalf("Register = %d calls, %v; want the Check", len(acts.Calls), err)
			}
			return h.gen.Answer(stepgen.Answer{Call: acts.Calls[0], Err: checkFails})
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHost(t, stepgen.Config{}, nil)
			reg := &stepgen.Registration{}
			acts, err := tt.fail(h, reg)
			if err == nil {
				t.Fatal("no error")
			}
			if len(acts.Calls) != 0 || len(acts.Steps) != 0 || len(acts.Replies) != 1 {
				t.Fatalf("actions: %d calls, %d steps, %d replies; want only the reply", len(acts.Calls), len(acts.Steps), len(acts.Replies))
			}
			if r := acts.Replies[0]; r.Reg != reg || r.Err != err || r.Step != nil {
				t.Errorf("reply to %p with %v (step %v); want to %p with %v", r.Reg, r.Err, r.Step, reg, err)
			}
		})
	}
}
