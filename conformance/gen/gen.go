// Package gen generates the conformance suite's programs from a seed:
// several versions of a program over a handful of resources, each version
// derived from the one before by updates, replacements, removals,
// additions, renames and re-parentings with aliases, changes of options and
// dependencies, with provider failures injected into some operations. The
// same seed and Features always give the same program.
package gen

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/groundwork-iac/groundwork/conformance/spec"
)

// Features selects what a program may use. The zero value allows only
// custom resources with literal properties, updated and replaced.
type Features struct {
	DependsOn           bool // explicit dependencies
	PropertyDeps        bool // properties taking another resource's output
	DeleteBeforeReplace bool
	ReplaceOnChanges    bool
	Removals            bool // resources dropped from a version
	Protect             bool
	RetainOnDelete      bool
	Renames             bool // renames, retypes and re-parentings with aliases
	Components          bool // components, and parents
	Failures            bool // injected Create/Update/Delete failures
	Destroy             bool // a destroy at the end (sometimes)
	Exports             bool // stack outputs
}

// All enables every feature.
func All() Features {
	return Features{true, true, true, true, true, true, true, true, true, true, true, true}
}

// Names lists the features f enables, for reports.
func (f Features) Names() []string {
	var out []string
	for _, x := range []struct {
		on   bool
		name string
	}{
		{f.DependsOn, "dependsOn"}, {f.PropertyDeps, "propertyDeps"}, {f.DeleteBeforeReplace, "deleteBeforeReplace"},
		{f.ReplaceOnChanges, "replaceOnChanges"}, {f.Removals, "removals"}, {f.Protect, "protect"},
		{f.RetainOnDelete, "retainOnDelete"}, {f.Renames, "renames"}, {f.Components, "components"},
		{f.Failures, "failures"}, {f.Destroy, "destroy"}, {f.Exports, "exports"},
	} {
		if x.on {
			out = append(out, x.name)
		}
	}
	return out
}

// ParseFeatures parses a feature set: "all", "basic" (none), or names as
// Names gives them joined by "+" or ",".
func ParseFeatures(s string) (Features, error) {
	switch s {
	case "all":
		return All(), nil
	case "basic":
		return Features{}, nil
	}
	var f Features
	fields := map[string]*bool{
		"dependsOn": &f.DependsOn, "propertyDeps": &f.PropertyDeps, "deleteBeforeReplace": &f.DeleteBeforeReplace,
		"replaceOnChanges": &f.ReplaceOnChanges, "removals": &f.Removals, "protect": &f.Protect,
		"retainOnDelete": &f.RetainOnDelete, "renames": &f.Renames, "components": &f.Components,
		"failures": &f.Failures, "destroy": &f.Destroy, "exports": &f.Exports,
	}
	for _, name := range strings.FieldsFunc(s, func(r rune) bool { return r == '+' || r == ',' }) {
		p := fields[name]
		if p == nil {
			return Features{}, fmt.Errorf("unknown feature %q (want all, or some of %s)", name, All())
		}
		*p = true
	}
	return f, nil
}

// String is the enabled features, joined by "+".
func (f Features) String() string {
	if n := f.Names(); len(n) > 0 {
		return strings.Join(n, "+")
	}
	return "basic"
}

// Random draws a feature set from seed: each feature on with probability
// 3/5, so that a campaign covers their combinations.
func Random(seed int64) Features {
	r := rand.New(rand.NewPCG(uint64(seed), 0x5eed))
	on := func() bool { return r.IntN(5) < 3 }
	return Features{on(), on(), on(), on(), on(), on(), on(), on(), on(), on(), on(), on()}
}

// Config bounds a program's size.
type Config struct {
	Features Features
	// MaxResources bounds the resources of a version (default 7).
	MaxResources int
	// MaxVersions bounds the versions (at least 2; default 4).
	MaxVersions int
}

// Generate returns the program of seed.
func Generate(seed int64, cfg Config) *spec.Program {
	if cfg.MaxResources <= 0 {
		cfg.MaxResources = 7
	}
	if cfg.MaxVersions < 2 {
		cfg.MaxVersions = 4
	}
	g := &generator{r: rand.New(rand.NewPCG(uint64(seed), 0xc0f0)), f: cfg.Features, max: cfg.MaxResources}
	p := &spec.Program{Seed: seed}
	versions := 2 + g.r.IntN(cfg.MaxVersions-1)
	var v spec.Version
	for i := 0; i < versions; i++ {
		if i == 0 {
			v = g.first()
		} else {
			v = g.next(&p.Versions[i-1])
		}
		g.exports(&v)
		g.failures(&v, p.Versions)
		p.Versions = append(p.Versions, v)
	}
	if g.f.Destroy && g.chance(1, 2) {
		p.Destroy = true
		if g.f.Failures && g.chance(1, 3) {
			last := &p.Versions[len(p.Versions)-1]
			if name := g.customName(last); name != "" {
				p.DestroyFailures = []spec.Failure{{Op: spec.OpDelete, Name: name}}
			}
		}
	}
	if err := p.Validate(); err != nil {
		panic(fmt.Sprintf("gen: seed %d generated an invalid program: %v\n%s", seed, err, p))
	}
	return p
}

type generator struct {
	r     *rand.Rand
	f     Features
	max   int
	names int
	vals  int
	// renamed maps the new names of the version being derived to the
	// names they had in the version before.
	renamed map[string]string
}

func (g *generator) chance(n, d int) bool { return g.r.IntN(d) < n }

func (g *generator) freshName() string {
	g.names++
	return fmt.Sprintf("r%d", g.names)
}

func (g *generator) freshValue() string {
	g.vals++
	return fmt.Sprintf("v%d", g.vals)
}

// first builds the first version: one to max resources.
func (g *generator) first() spec.Version {
	var v spec.Version
	n := 1 + g.r.IntN(g.max)
	for len(v.Resources) < n {
		v.Resources = append(v.Resources, g.newResource(&v))
	}
	return v
}

// newResource draws a resource that may refer to those already in v.
func (g *generator) newResource(v *spec.Version) spec.Resource {
	r := spec.Resource{Name: g.freshName()}
	if g.f.Components && g.chance(1, 4) {
		r.Type = spec.GroupType
		if g.chance(1, 3) {
			r.Type = spec.BoxType
		}
	}
	if g.f.Components && g.chance(1, 2) {
		r.Parent = g.pickComponent(v)
	}
	if !r.IsComponent() {
		r.Props = append(r.Props, spec.Prop{Key: "v", Value: g.freshValue()})
		if g.chance(1, 2) {
			r.Props = append(r.Props, spec.Prop{Key: "rv", Value: g.freshValue()})
		}
		if g.f.PropertyDeps && g.chance(1, 2) {
			if src := g.pickCustom(v); src != "" {
				key := "p"
				if g.chance(1, 2) {
					key = "rp"
				}
				r.Props = append(r.Props, spec.Prop{Key: key, From: src})
			}
		}
	}
	if g.f.DependsOn && g.chance(1, 3) {
		if d := g.pickAny(v); d != "" {
			r.DependsOn = []string{d}
		}
	}
	g.options(&r)
	return r
}

// options draws the resource options of r afresh.
func (g *generator) options(r *spec.Resource) {
	r.Protect = g.f.Protect && g.chance(1, 6)
	r.RetainOnDelete = g.f.RetainOnDelete && g.chance(1, 6)
	if r.IsComponent() {
		r.DeleteBeforeReplace, r.ReplaceOnChanges = false, nil
		return
	}
	r.DeleteBeforeReplace = g.f.DeleteBeforeReplace && g.chance(1, 3)
	r.ReplaceOnChanges = nil
	if g.f.ReplaceOnChanges && g.chance(1, 4) {
		r.ReplaceOnChanges = []string{"v"}
	}
}

func (g *generator) pick(v *spec.Version, ok func(*spec.Resource) bool) string {
	var names []string
	for i := range v.Resources {
		if ok(&v.Resources[i]) {
			names = append(names, v.Resources[i].Name)
		}
	}
	if len(names) == 0 {
		return ""
	}
	return names[g.r.IntN(len(names))]
}

func (g *generator) pickAny(v *spec.Version) string {
	return g.pick(v, func(*spec.Resource) bool { return true })
}

func (g *generator) pickCustom(v *spec.Version) string {
	return g.pick(v, func(r *spec.Resource) bool { return !r.IsComponent() })
}

func (g *generator) pickComponent(v *spec.Version) string {
	return g.pick(v, func(r *spec.Resource) bool { return r.IsComponent() })
}

func (g *generator) customName(v *spec.Version) string {
	return g.pickCustom(v)
}

// exports draws the stack outputs of v.
func (g *generator) exports(v *spec.Version) {
	v.Exports = nil
	if !g.f.Exports {
		return
	}
	for _, r := range v.Resources {
		if !r.IsComponent() && g.chance(1, 3) {
			v.Exports = append(v.Exports, r.Name)
		}
	}
}

// failures draws the failures injected into v's update: an operation the
// change from the version before is likely to make.
func (g *generator) failures(v *spec.Version, before []spec.Version) {
	if !g.f.Failures || !g.chance(2, 5) {
		return
	}
	n := 1
	if g.chance(1, 4) {
		n = 2
	}
	for i := 0; i < n; i++ {
		if f, ok := g.failure(v, before); ok && !slices.Contains(v.Failures, f) {
			v.Failures = append(v.Failures, f)
		}
	}
}

func (g *generator) failure(v *spec.Version, before []spec.Version) (spec.Failure, bool) {
	var prev *spec.Version
	if len(before) > 0 {
		prev = &before[len(before)-1]
	}
	var candidates []spec.Failure
	for _, r := range v.Resources {
		if r.IsComponent() {
			continue
		}
		var old *spec.Resource
		if prev != nil {
			old = prev.Find(r.Name)
			for _, a := range r.Aliases {
				if a.Name != "" && old == nil {
					old = prev.Find(a.Name)
				}
			}
		}
		if old == nil {
			candidates = append(candidates, spec.Failure{Op: spec.OpCreate, Name: r.Name})
			continue
		}
		candidates = append(candidates,
			spec.Failure{Op: spec.OpUpdate, Name: r.Name},
			spec.Failure{Op: spec.OpCreate, Name: r.Name},
			spec.Failure{Op: spec.OpDelete, Name: r.Name})
		if old.Name != r.Name {
			candidates = append(candidates, spec.Failure{Op: spec.OpDelete, Name: old.Name})
		}
	}
	if prev != nil {
		for _, r := range prev.Resources {
			if !r.IsComponent() && v.Find(r.Name) == nil {
				candidates = append(candidates, spec.Failure{Op: spec.OpDelete, Name: r.Name})
			}
		}
	}
	if len(candidates) == 0 {
		return spec.Failure{}, false
	}
	return candidates[g.r.IntN(len(candidates))], true
}
