package gen

import (
	"reflect"
	"testing"

	"github.com/groundwork-iac/groundwork/conformance/spec"
)

func TestGenerateIsDeterministic(t *testing.T) {
	for seed := int64(1); seed <= 50; seed++ {
		cfg := Config{Features: Random(seed)}
		a, b := Generate(seed, cfg), Generate(seed, cfg)
		if !reflect.DeepEqual(a, b) {
			t.Fatalf("seed %d generated two programs:\n%s\n%s", seed, a.Describe(), b.Describe())
		}
	}
}

// TestGenerateCoversFeatures checks that the generator makes valid programs
// (Generate panics otherwise) and uses each feature it is given.
func TestGenerateCoversFeatures(t *testing.T) {
	seen := map[string]int{}
	for seed := int64(1); seed <= 500; seed++ {
		p := Generate(seed, Config{Features: All()})
		if len(p.Versions) < 2 {
			t.Fatalf("seed %d: %d versions", seed, len(p.Versions))
		}
		if p.Destroy {
			seen["destroy"]++
		}
		for _, v := range p.Versions {
			if len(v.Failures) > 0 {
				seen["failures"]++
			}
			if len(v.Exports) > 0 {
				seen["exports"]++
			}
			for _, r := range v.Resources {
				count(seen, r)
			}
		}
	}
	for _, f := range []string{"destroy", "failures", "exports", "component", "parent", "dependsOn", "from", "protect",
		"retain", "dbr", "roc", "rename", "retype", "reparent"} {
		if seen[f] == 0 {
			t.Errorf("no program used %s", f)
		}
	}
}

func count(seen map[string]int, r spec.Resource) {
	for _, x := range []struct {
		on   bool
		name string
	}{
		{r.IsComponent(), "component"}, {r.Parent != "", "parent"}, {len(r.DependsOn) > 0, "dependsOn"},
		{r.Protect, "protect"}, {r.RetainOnDelete, "retain"}, {r.DeleteBeforeReplace, "dbr"},
		{len(r.ReplaceOnChanges) > 0, "roc"},
	} {
		if x.on {
			seen[x.name]++
		}
	}
	for _, p := range r.Props {
		if p.From != "" {
			seen["from"]++
		}
	}
	for _, a := range r.Aliases {
		if a.Name != "" {
			seen["rename"]++
		}
		if a.Type != "" {
			seen["retype"]++
		}
		if a.Parent != nil {
			seen["reparent"]++
		}
	}
}

func TestNoFeatures(t *testing.T) {
	for seed := int64(1); seed <= 100; seed++ {
		p := Generate(seed, Config{})
		if p.Destroy {
			t.Fatalf("seed %d: a destroy without the feature", seed)
		}
		for _, v := range p.Versions {
			if len(v.Failures) > 0 || len(v.Exports) > 0 {
				t.Fatalf("seed %d: failures or exports without the feature", seed)
			}
			for _, r := range v.Resources {
				if r.IsComponent() || r.Parent != "" || len(r.DependsOn) > 0 || r.Protect || r.RetainOnDelete ||
					r.DeleteBeforeReplace || len(r.ReplaceOnChanges) > 0 || len(r.Aliases) > 0 {
					t.Fatalf("seed %d: %s uses a feature it was not given", seed, r.Name)
				}
			}
		}
	}
}

func TestParseFeatures(t *testing.T) {
	for _, f := range []Features{{}, All(), Random(7), {Protect: true, Renames: true}} {
		s := f.String()
		got, err := ParseFeatures(s)
		if err != nil || got != f {
			t.Errorf("ParseFeatures(%q) = %v, %v; want %v", s, got, err, f)
		}
	}
	if _, err := ParseFeatures("protect+teleport"); err == nil {
		t.Error("an unknown feature was accepted")
	}
}
