package stepgen_test

import (
	"strconv"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/groundwork-iac/groundwork/providers"
	"github.com/groundwork-iac/groundwork/resource"
	"github.com/groundwork-iac/groundwork/stepgen"
)

// flatRerun is a rerun of W1's program (BENCHMARKS.md) against the stack
// its last run left: the root stack, one default provider and n
// independent custom resources with four string inputs each.
type flatRerun struct {
	old []*resource.State
	// goals are the registrations in program order; the provider's
	// Check returns each goal's inputs as they are.
	goals []*resource.Goal
}

func newFlatRerun(n int, changed bool) *flatRerun {
	const stack, project, thing = "dev", "bench", "bench:index:Thing"
	root := resource.NewURN(stack, project, "", resource.RootStackType, project+"-"+stack)
	provURN := resource.NewURN(stack, project, "", "pulumi:providers:bench", "default_1_0_0")
	ref := providers.NewReference(provURN, "p1").String()
	provIn := resource.PropertyMap{"version": resource.NewString("1.0.0")}
	r := &flatRerun{
		old: []*resource.State{
			{Type: resource.RootStackType, URN: root, Inputs: resource.PropertyMap{}, Outputs: resource.PropertyMap{}},
			{Type: "pulumi:providers:bench", URN: provURN, Custom: true, ID: "p1", Parent: root, Inputs: provIn, Outputs: provIn},
		},
		goals: []*resource.Goal{
			{Type: resource.RootStackType, Name: project + "-" + stack, Inputs: resource.PropertyMap{}},
			{Type: "pulumi:providers:bench", Name: "default_1_0_0", Custom: true, Parent: root, Inputs: provIn},
		},
	}
	inputs := func(name, suffix string) resource.PropertyMap {
		return resource.PropertyMap{
			"alpha": resource.NewString("a-" + name + suffix), "beta": resource.NewString("b-" + name + suffix),
			"gamma": resource.NewString("c" + suffix), "delta": resource.NewString("d" + suffix),
		}
	}
	newSuffix := "-0"
	if changed {
		newSuffix = "-1"
	}
	for i := range n {
		name := "r" + strconv.Itoa(i)
		in := inputs(name, "-0")
		r.old = append(r.old, &resource.State{
			Type: thing, URN: resource.NewURN(stack, project, root.QualifiedType(), thing, name), Custom: true,
			ID: resource.ID("id-" + name), Parent: root, Provider: ref, Inputs: in, Outputs: in,
		})
		r.goals = append(r.goals, &resource.Goal{
			Type: thing, Name: name, Custom: true, Parent: root, Provider: ref, Inputs: inputs(name, newSuffix),
		})
	}
	return r
}

// run drives one operation through a generator as the engine's loop does,
// in three waves: every registration, then the answer to every provider
// call (Check and Diff answered at once, as deploy.Ask does), then the
// outcome of every step (each step producing the state it asks for). The
// root stack and the provider go through first, since the rest need them.
// It counts the steps issued by operation.
func (r *flatRerun) run(tb testing.TB, preview bool, diff resource.DiffResult) map[stepgen.Op]int {
	g, err := stepgen.New(stepgen.Config{Stack: "dev", Project: "bench", Old: r.old, Preview: preview})
	if err != nil {
		tb.Fatal(err)
	}
	var calls []*stepgen.Call
	var steps []*stepgen.Step
	issued := map[stepgen.Op]int{}
	take := func(acts stepgen.Actions, err error) {
		if err != nil {
			tb.Fatal(err)
		}
		calls = append(calls, acts.Calls...)
		steps = append(steps, acts.Steps...)
		for _, s := range acts.Steps {
			issued[s.Op]++
		}
	}
	answer := func(c *stepgen.Call, d resource.DiffResult) {
		take(g.Answer(stepgen.Answer{Call: c, Check: providers.CheckResponse{Inputs: c.Check.News}, Diffed: c.DiffAfterCheck, Diff: d}))
	}
	finish := func() {
		for i := 0; i < len(steps); i++ {
			s := steps[i]
			take(g.Done(stepgen.Outcome{Step: s, New: s.New}), nil)
		}
		steps = steps[:0]
	}
	for _, goal := range r.goals[:2] {
		take(g.Register(&stepgen.Registration{Goal: goal}))
		for _, c := range calls {
			answer(c, resource.DiffResult{Changes: resource.DiffNone})
		}
		calls = calls[:0]
		finish()
	}
	for _, goal := range r.goals[2:] {
		take(g.Register(&stepgen.Registration{Goal: goal}))
	}
	for _, c := range calls {
		answer(c, diff)
	}
	finish()
	if _, err := g.Deletes(); err != nil {
		tb.Fatal(err)
	}
	take(g.StartDeletes(), nil)
	if len(steps) > 0 || !g.Settled() {
		tb.Fatalf("%d steps issued after the program; settled: %t", len(steps), g.Settled())
	}
	return issued
}

// BenchmarkRerun10k runs 10,000 registrations through a generator: an
// unchanged rerun (every step a same) and the preview of an update of
// every input.
func BenchmarkRerun10k(b *testing.B) {
	const n = 10_000
	for _, tc := range rerunCases {
		b.Run(tc.name, func(b *testing.B) {
			r := newFlatRerun(n, tc.changed)
			b.ReportAllocs()
			for b.Loop() {
				r.run(b, tc.preview, tc.diff)
			}
		})
	}
}

var rerunCases = []struct {
	name    string
	changed bool
	preview bool
	diff    resource.DiffResult
	want    map[stepgen.Op]int
}{
	{name: "same", diff: resource.DiffResult{Changes: resource.DiffNone}, want: map[stepgen.Op]int{stepgen.OpSame: 5 + 2}},
	{name: "preview-update", changed: true, preview: true,
		diff: resource.DiffResult{Changes: resource.DiffSome, ChangedKeys: []resource.PropertyKey{"alpha", "beta", "delta", "gamma"}},
		want: map[stepgen.Op]int{stepgen.OpSame: 2, stepgen.OpUpdate: 5}},
}

// TestFlatRerun checks that BenchmarkRerun10k measures what it says: five
// resources, each a same, or each an update.
func TestFlatRerun(t *testing.T) {
	for _, tc := range rerunCases {
		t.Run(tc.name, func(t *testing.T) {
			got := newFlatRerun(5, tc.changed).run(t, tc.preview, tc.diff)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("steps by operation (-want +got):\n%s", diff)
			}
		})
	}
}

// BenchmarkDestroy10k runs the destroy of W1's stack through a generator:
// the deletes decided, issued antichain by antichain and each reported
// done.
func BenchmarkDestroy10k(b *testing.B) {
	r := newFlatRerun(10_000, false)
	b.ReportAllocs()
	for b.Loop() {
		g, err := stepgen.New(stepgen.Config{Stack: "dev", Project: "bench", Old: r.old})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := g.Deletes(); err != nil {
			b.Fatal(err)
		}
		deleted := 0
		for acts := g.StartDeletes(); len(acts.Steps) > 0; {
			layer := acts.Steps
			acts = stepgen.Actions{}
			for _, s := range layer {
				deleted++
				acts.Steps = append(acts.Steps, g.Done(stepgen.Outcome{Step: s}).Steps...)
			}
		}
		if deleted != len(r.old) || !g.Settled() {
			b.Fatalf("%d deletes, want %d; settled: %t", deleted, len(r.old), g.Settled())
		}
	}
}
