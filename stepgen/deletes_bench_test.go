package stepgen_test

import (
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/groundwork-iac/groundwork/resource"
	"github.com/groundwork-iac/groundwork/stepgen"
)

// randomStack returns n custom resources in dependency order, each
// depending on up to three earlier ones (the shape of W5 in BENCHMARKS.md),
// all children of one root and served by one provider.
func randomStack(n int) []*resource.State {
	r := rand.New(rand.NewPCG(1, 2))
	root := &resource.State{Type: resource.RootStackType, URN: resource.NewURN("dev", "bench", "", resource.RootStackType, "bench-dev")}
	provURN := resource.NewURN("dev", "bench", "", "pulumi:providers:bench", "default")
	prov := &resource.State{Type: "pulumi:providers:bench", URN: provURN, Custom: true, ID: "p1", Parent: root.URN}
	out := []*resource.State{root, prov}
	urns := make([]resource.URN, n)
	for i := range n {
		urns[i] = resource.NewURN("dev", "bench", "", "bench:index:Thing", "n"+strconv.Itoa(i))
		s := &resource.State{Type: "bench:index:Thing", URN: urns[i], Custom: true, ID: resource.ID("id-" + strconv.Itoa(i)),
			Parent: root.URN, Provider: string(provURN) + "::p1"}
		if i > 0 {
			for range r.IntN(min(i, 3) + 1) {
				s.Dependencies = append(s.Dependencies, urns[r.IntN(i)])
			}
		}
		out = append(out, s)
	}
	return out
}

// BenchmarkDeletes10k computes the delete antichains of a 10,000-resource
// stack that a program no longer declares at all (a destroy).
func BenchmarkDeletes10k(b *testing.B) {
	old := randomStack(10_000)
	b.ReportAllocs()
	for b.Loop() {
		g, err := stepgen.New(stepgen.Config{Stack: "dev", Project: "bench", Old: old})
		if err != nil {
			b.Fatal(err)
		}
		antichains, err := g.Deletes()
		if err != nil {
			b.Fatal(err)
		}
		if len(antichains) < 2 {
			b.Fatalf("%d antichains", len(antichains))
		}
	}
}
