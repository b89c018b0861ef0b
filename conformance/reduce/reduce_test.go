package reduce

import (
	"testing"

	"github.com/groundwork-iac/groundwork/conformance/gen"
	"github.com/groundwork-iac/groundwork/conformance/spec"
)

// TestReduce shrinks generated programs under a predicate that holds when
// some version replaces a protected resource's replace key: the result
// must still satisfy it and be minimal — two versions of one resource with
// one property and protect, nothing else.
func TestReduce(t *testing.T) {
	holds := func(p *spec.Program) bool {
		for i := 1; i < len(p.Versions); i++ {
			for _, r := range p.Versions[i].Resources {
				old := p.Versions[i-1].Find(r.Name)
				if old == nil || !old.Protect || !r.Protect {
					continue
				}
				if prop(old, "rv") != prop(&r, "rv") {
					return true
				}
			}
		}
		return false
	}
	found := 0
	for seed := int64(1); seed <= 200 && found < 5; seed++ {
		p := gen.Generate(seed, gen.Config{Features: gen.All()})
		if !holds(p) {
			continue
		}
		found++
		small := Reduce(p, holds, 0)
		if !holds(small) {
			t.Fatalf("seed %d: the reduced program lost the property:\n%s", seed, small.Describe())
		}
		if len(small.Versions) != 2 || small.Destroy || len(small.Versions[0].Resources) != 1 ||
			len(small.Versions[1].Resources) != 1 || len(small.Versions[1].Resources[0].Props) != 1 {
			t.Errorf("seed %d: not minimal:\n%s", seed, small.Describe())
		}
	}
	if found == 0 {
		t.Fatal("no generated program has the property")
	}
}

func prop(r *spec.Resource, key string) string {
	for _, p := range r.Props {
		if p.Key == key {
			return p.Value + "<-" + p.From
		}
	}
	return ""
}
