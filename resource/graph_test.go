package resource_test

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/groundwork-iac/groundwork/resource"
)

func urn(name string) resource.URN {
	return resource.NewURN("dev", "proj", "", "test:index:Res", name)
}

func providerURN(name string) resource.URN {
	return resource.NewURN("dev", "proj", "", "pulumi:providers:test", name)
}

// st builds a state named name that depends on deps.
func st(name string, deps ...string) *resource.State {
	s := &resource.State{Type: "test:index:Res", URN: urn(name), Custom: true}
	for _, d := range deps {
		s.Dependencies = append(s.Dependencies, urn(d))
	}
	return s
}

func names(urns []resource.URN) []string {
	if len(urns) == 0 {
		return nil
	}
	out := make([]string, len(urns))
	for i, u := range urns {
		out[i] = u.Name()
	}
	return out
}

func stateNames(states []*resource.State) []string {
	if len(states) == 0 {
		return nil
	}
	out := make([]string, len(states))
	for i, s := range states {
		out[i] = s.URN.Name()
		if s.Delete {
			out[i] += "(old)"
		}
	}
	return out
}

func mustGraph(t testing.TB, states ...*resource.State) *resource.Graph {
	t.Helper()
	g, err := resource.NewGraph(states)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

func TestGraphEdges(t *testing.T) {
	prov := &resource.State{Type: "pulumi:providers:test", URN: providerURN("p"), Custom: true, ID: "prov-id"}
	comp := &resource.State{Type: "test:index:Comp", URN: urn("comp")}
	a := st("a")
	b := st("b")
	c := st("c")
	c.Parent = comp.URN
	c.Provider = string(prov.URN) + "::" + string(prov.ID)
	c.Dependencies = []resource.URN{a.URN, a.URN, urn("not-in-graph")}
	c.PropertyDependencies = map[resource.PropertyKey][]resource.URN{"x": {b.URN}, "y": {a.URN}}
	d := st("d")
	d.DeletedWith = c.URN
	g := mustGraph(t, prov, comp, a, b, c, d)

	tests := []struct {
		urn                      resource.URN
		dependencies, dependents []string
	}{
		{c.URN, []string{"p", "comp", "a", "b"}, []string{"d"}},
		{a.URN, nil, []string{"c"}},
		{prov.URN, nil, []string{"c"}},
		{d.URN, []string{"c"}, nil},
		{urn("not-in-graph"), nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.urn.Name(), func(t *testing.T) {
			if diff := cmp.Diff(tt.dependencies, names(g.DependenciesOf(tt.urn))); diff != "" {
				t.Errorf("DependenciesOf (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.dependents, names(g.DependentsOf(tt.urn))); diff != "" {
				t.Errorf("DependentsOf (-want +got):\n%s", diff)
			}
		})
	}
	if g.Len() != 6 || len(g.States()) != 6 {
		t.Errorf("Len = %d", g.Len())
	}
	if s, ok := g.Lookup(c.URN); !ok || s != c {
		t.Errorf("Lookup(c) = %v, %v", s, ok)
	}
}

func TestProviderReferenceWithColonsInID(t *testing.T) {
	prov := &resource.State{Type: "pulumi:providers:test", URN: providerURN("p"), ID: "weird::id"}
	r := st("r")
	r.Provider = string(prov.URN) + "::" + "weird::id"
	// The URN is everything before the last "::", so an ID containing
	// "::" does not resolve; an ordinary ID does.
	g := mustGraph(t, prov, r)
	if got := g.DependenciesOf(r.URN); len(got) != 0 {
		t.Errorf("resolved %v from an ID containing '::'", got)
	}
	r.Provider = string(prov.URN) + "::plain-id"
	g = mustGraph(t, prov, r)
	if diff := cmp.Diff([]string{"p"}, names(g.DependenciesOf(r.URN))); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestNewGraphErrors(t *testing.T) {
	if _, err := resource.NewGraph([]*resource.State{st("a"), nil}); err == nil || !strings.Contains(err.Error(), "position 1 is nil") {
		t.Errorf("nil state: %v", err)
	}
	_, err := resource.NewGraph([]*resource.State{st("a"), st("b"), st("a")})
	if err == nil || !strings.Contains(err.Error(), string(urn("a"))) || !strings.Contains(err.Error(), "positions 0 and 2") {
		t.Errorf("duplicate: %v", err)
	}
}

func TestGraphWithDeleteCopies(t *testing.T) {
	old := st("x", "a")
	old.Delete = true
	live := st("x", "b")
	user := st("u", "x")
	g := mustGraph(t, st("a"), st("b"), old, live, user)
	if diff := cmp.Diff([]string{"b"}, names(g.DependenciesOf(urn("x")))); diff != "" {
		t.Errorf("DependenciesOf(x) resolves to the wrong copy (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"x"}, names(g.DependentsOf(urn("a")))); diff != "" {
		t.Errorf("DependentsOf(a) (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"x"}, names(g.DependentsOf(urn("b")))); diff != "" {
		t.Errorf("DependentsOf(b) (-want +got):\n%s", diff)
	}
	if s, _ := g.Lookup(urn("x")); s != live {
		t.Errorf("Lookup(x) is not the live copy")
	}
	order, err := g.TopologicalOrder()
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"a", "b", "x(old)", "x", "u"}, stateNames(order)); diff != "" {
		t.Errorf("TopologicalOrder (-want +got):\n%s", diff)
	}
	chains, err := g.AntichainsOf([]*resource.State{old, live, user})
	if err != nil {
		t.Fatal(err)
	}
	var got [][]string
	for _, c := range chains {
		got = append(got, stateNames(c))
	}
	if diff := cmp.Diff([][]string{{"x(old)", "u"}, {"x"}}, got); diff != "" {
		t.Errorf("AntichainsOf (-want +got):\n%s", diff)
	}

	onlyOld := st("y")
	onlyOld.Delete = true
	g = mustGraph(t, onlyOld, st("z", "y"))
	if diff := cmp.Diff([]string{"z"}, names(g.DependentsOf(urn("y")))); diff != "" {
		t.Errorf("a Delete copy with no live state is not resolved (-want +got):\n%s", diff)
	}
}

func TestTopologicalOrder(t *testing.T) {
	tests := []struct {
		name   string
		states []*resource.State
		want   []string
	}{
		{"already ordered", []*resource.State{st("a"), st("b", "a"), st("c", "b")}, []string{"a", "b", "c"}},
		{"reversed", []*resource.State{st("c", "b"), st("b", "a"), st("a")}, []string{"a", "b", "c"}},
		{"independent keep order", []*resource.State{st("z"), st("y"), st("x")}, []string{"z", "y", "x"}},
		{"diamond", []*resource.State{st("d", "b", "c"), st("c", "a"), st("b", "a"), st("a")}, []string{"a", "c", "b", "d"}},
		{"depth first", []*resource.State{st("x", "z"), st("y"), st("z")}, []string{"z", "x", "y"}},
		{"empty", nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			order, err := mustGraph(t, tt.states...).TopologicalOrder()
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, stateNames(order)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestCycles(t *testing.T) {
	tests := []struct {
		name   string
		states []*resource.State
		cycle  []string
	}{
		{"self", []*resource.State{st("a", "a")}, []string{"a"}},
		{"two", []*resource.State{st("a", "b"), st("b", "a")}, []string{"a", "b"}},
		{"three behind a root", []*resource.State{st("root", "a"), st("a", "b"), st("b", "c"), st("c", "a")}, []string{"a", "b", "c"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := mustGraph(t, tt.states...)
			_, err := g.TopologicalOrder()
			var ce *resource.CycleError
			if !errors.As(err, &ce) {
				t.Fatalf("TopologicalOrder error = %v, want a *CycleError", err)
			}
			if diff := cmp.Diff(tt.cycle, names(ce.URNs)); diff != "" {
				t.Errorf("TopologicalOrder cycle (-want +got):\n%s", diff)
			}
			var all []resource.URN
			for _, s := range tt.states {
				all = append(all, s.URN)
			}
			_, err = g.Antichains(all)
			if !errors.As(err, &ce) {
				t.Fatalf("Antichains error = %v, want a *CycleError", err)
			}
			checkCycle(t, g, ce.URNs)
		})
	}
}

// checkCycle verifies that each URN depends directly on the next, and the
// last on the first.
func checkCycle(t *testing.T, g *resource.Graph, cycle []resource.URN) {
	t.Helper()
	if len(cycle) == 0 {
		t.Fatal("empty cycle")
	}
	for i, u := range cycle {
		next := cycle[(i+1)%len(cycle)]
		found := false
		for _, d := range g.DependenciesOf(u) {
			found = found || d == next
		}
		if !found {
			t.Errorf("cycle %v: %s does not depend on %s", names(cycle), u.Name(), next.Name())
		}
	}
}

func TestTransitiveDependents(t *testing.T) {
	g := mustGraph(t, st("a"), st("b", "a"), st("c", "b"), st("d"), st("e", "d", "c"), st("f"))
	tests := []struct {
		from []string
		want []string
	}{
		{[]string{"a"}, []string{"b", "c", "e"}},
		{[]string{"d"}, []string{"e"}},
		{[]string{"f"}, nil},
		{[]string{"a", "c"}, []string{"b", "e"}},
		{[]string{"nope"}, nil},
	}
	for _, tt := range tests {
		var us []resource.URN
		for _, n := range tt.from {
			us = append(us, urn(n))
		}
		got := g.TransitiveDependents(us...)
		if diff := cmp.Diff(tt.want, names(got)); diff != "" {
			t.Errorf("TransitiveDependents(%v) (-want +got):\n%s", tt.from, diff)
		}
	}
}

func TestAntichains(t *testing.T) {
	states := []*resource.State{
		st("net"), st("subnet", "net"), st("vm", "subnet"), st("disk"), st("attach", "vm", "disk"),
		st("dns", "vm"), st("lonely"),
	}
	g := mustGraph(t, states...)
	tests := []struct {
		name string
		set  []string
		want [][]string
	}{
		{"everything", []string{"net", "subnet", "vm", "disk", "attach", "dns", "lonely"},
			[][]string{{"attach", "dns", "lonely"}, {"vm", "disk"}, {"subnet"}, {"net"}}},
		{"through a non-member", []string{"attach", "subnet"}, [][]string{{"attach"}, {"subnet"}}},
		{"unrelated", []string{"net", "disk", "lonely"}, [][]string{{"net", "disk", "lonely"}}},
		{"duplicates", []string{"vm", "vm", "net"}, [][]string{{"vm"}, {"net"}}},
		{"empty", nil, [][]string{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var set []resource.URN
			for _, n := range tt.set {
				set = append(set, urn(n))
			}
			chains, err := g.Antichains(set)
			if err != nil {
				t.Fatal(err)
			}
			got := [][]string{}
			for _, c := range chains {
				got = append(got, names(c))
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
	if _, err := g.Antichains([]resource.URN{urn("ghost")}); err == nil || !strings.Contains(err.Error(), "ghost") {
		t.Errorf("unknown URN: %v", err)
	}
	if _, err := g.AntichainsOf([]*resource.State{st("net")}); err == nil || !strings.Contains(err.Error(), "not in the graph") {
		t.Errorf("foreign state: %v", err)
	}
}

// TestAntichainsRandom checks the layering against brute-force
// reachability on random graphs: members of one antichain never reach each
// other, a member comes after every member that reaches it, and every
// member past the first antichain is reached from the one before it.
func TestAntichainsRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for round := 0; round < 200; round++ {
		n := 2 + rng.IntN(25)
		states := randomDAG(rng, n, 3)
		rng.Shuffle(len(states), func(i, j int) { states[i], states[j] = states[j], states[i] })
		g := mustGraph(t, states...)
		reach := reachability(g, states)
		var set []resource.URN
		for _, s := range states {
			if rng.IntN(2) == 0 {
				set = append(set, s.URN)
			}
		}
		chains, err := g.Antichains(set)
		if err != nil {
			t.Fatal(err)
		}
		layer := map[resource.URN]int{}
		total := 0
		for l, c := range chains {
			if len(c) == 0 {
				t.Fatalf("round %d: antichain %d is empty", round, l)
			}
			for _, u := range c {
				layer[u] = l
				total++
			}
		}
		if total != len(set) {
			t.Fatalf("round %d: %d members placed, want %d", round, total, len(set))
		}
		for _, a := range set {
			reachedFromPrevious := layer[a] == 0
			for _, b := range set {
				if a != b && reach[b][a] { // b depends on a, so b goes first
					if layer[b] >= layer[a] {
						t.Fatalf("round %d: %s (layer %d) depends on %s (layer %d)", round, b, layer[b], a, layer[a])
					}
					reachedFromPrevious = reachedFromPrevious || layer[b] == layer[a]-1
				}
			}
			if !reachedFromPrevious {
				t.Fatalf("round %d: %s is in layer %d but nothing in layer %d depends on it", round, a, layer[a], layer[a]-1)
			}
		}
		order, err := g.TopologicalOrder()
		if err != nil {
			t.Fatal(err)
		}
		pos := map[resource.URN]int{}
		for i, s := range order {
			pos[s.URN] = i
		}
		for _, s := range states {
			for _, d := range g.DependenciesOf(s.URN) {
				if pos[d] >= pos[s.URN] {
					t.Fatalf("round %d: %s comes before its dependency %s", round, s.URN, d)
				}
			}
		}
	}
}

// reachability returns, for each URN, the set of URNs it depends on
// directly or transitively.
func reachability(g *resource.Graph, states []*resource.State) map[resource.URN]map[resource.URN]bool {
	out := map[resource.URN]map[resource.URN]bool{}
	for _, s := range states {
		seen := map[resource.URN]bool{}
		stack := []resource.URN{s.URN}
		for len(stack) > 0 {
			u := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			for _, d := range g.DependenciesOf(u) {
				if !seen[d] {
					seen[d] = true
					stack = append(stack, d)
				}
			}
		}
		out[s.URN] = seen
	}
	return out
}

// randomDAG returns n states in dependency order, each depending on up to
// maxDeps earlier ones (some through Parent or Provider fields).
func randomDAG(rng *rand.Rand, n, maxDeps int) []*resource.State {
	states := make([]*resource.State, n)
	for i := range states {
		s := &resource.State{Type: "test:index:Res", URN: urn(fmt.Sprintf("r%d", i)), Custom: true}
		if i > 0 {
			for k := rng.IntN(maxDeps + 1); k > 0; k-- {
				s.Dependencies = append(s.Dependencies, states[rng.IntN(i)].URN)
			}
			if rng.IntN(4) == 0 {
				s.Parent = states[rng.IntN(i)].URN
			}
		}
		states[i] = s
	}
	return states
}

func benchGraph(b *testing.B, n int) (*resource.Graph, []resource.URN) {
	b.Helper()
	rng := rand.New(rand.NewPCG(42, 42))
	states := randomDAG(rng, n, 3)
	g, err := resource.NewGraph(states)
	if err != nil {
		b.Fatal(err)
	}
	urns := make([]resource.URN, n)
	for i, s := range states {
		urns[i] = s.URN
	}
	return g, urns
}

func BenchmarkNewGraph100k(b *testing.B) {
	rng := rand.New(rand.NewPCG(42, 42))
	states := randomDAG(rng, 100_000, 3)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := resource.NewGraph(states); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkTopologicalOrder100k(b *testing.B) {
	g, _ := benchGraph(b, 100_000)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := g.TopologicalOrder(); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkAntichains100k(b *testing.B) {
	g, urns := benchGraph(b, 100_000)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := g.Antichains(urns); err != nil {
			b.Fatal(err)
		}
	}
}

// TestGraphResolvesAliases: a reference to a URN no state holds resolves
// to the state that lists it among its aliases (a renamed resource),
// preferring a live state; a state that holds the URN wins.
func TestGraphResolvesAliases(t *testing.T) {
	renamed := func(name string, was ...string) *resource.State {
		s := st(name)
		for _, w := range was {
			s.Aliases = append(s.Aliases, urn(w))
		}
		return s
	}
	old := renamed("ax", "a")
	old.Delete = true
	g := mustGraph(t, old, renamed("ax", "a"), st("b", "a"), st("c", "b"))
	if diff := cmp.Diff([]string{"b"}, names(g.DependentsOf(urn("ax")))); diff != "" {
		t.Errorf("DependentsOf(ax) (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"b", "c"}, names(g.TransitiveDependents(urn("ax")))); diff != "" {
		t.Errorf("TransitiveDependents(ax) (-want +got):\n%s", diff)
	}
	if _, ok := g.Lookup(urn("a")); ok {
		t.Error("Lookup resolves an alias; it knows states by their own URNs")
	}

	g = mustGraph(t, st("a"), renamed("ax", "a"), st("b", "a"))
	if diff := cmp.Diff([]string{"b"}, names(g.DependentsOf(urn("a")))); diff != "" {
		t.Errorf("DependentsOf(a), which holds the URN (-want +got):\n%s", diff)
	}
	if got := g.DependentsOf(urn("ax")); len(got) != 0 {
		t.Errorf("DependentsOf(ax) = %v; want none", names(got))
	}
}
