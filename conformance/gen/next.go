package gen

import (
	"slices"

	"github.com/groundwork-iac/groundwork/conformance/spec"
)

// next derives a version from prev: each resource may be removed, updated,
// replaced, renamed, retyped or re-parented (with an alias), get new
// options or dependencies; new resources may be added.
func (g *generator) next(prev *spec.Version) spec.Version {
	v := spec.Version{Resources: cloneResources(prev.Resources)}
	g.renamed = map[string]string{}
	for i := range v.Resources {
		v.Resources[i].Aliases = nil
	}
	for i := 0; i < len(v.Resources); i++ {
		if g.f.Removals && g.chance(1, 6) {
			g.remove(&v, i)
			i--
			continue
		}
		g.mutate(&v, i)
	}
	if len(v.Resources) < g.max && g.chance(1, 2) {
		n := 1 + g.r.IntN(2)
		for j := 0; j < n && len(v.Resources) < g.max; j++ {
			v.Resources = append(v.Resources, g.newResource(&v))
		}
	}
	return v
}

func cloneResources(rs []spec.Resource) []spec.Resource {
	out := make([]spec.Resource, len(rs))
	for i, r := range rs {
		r.Props = slices.Clone(r.Props)
		r.DependsOn = slices.Clone(r.DependsOn)
		r.ReplaceOnChanges = slices.Clone(r.ReplaceOnChanges)
		r.Aliases = slices.Clone(r.Aliases)
		out[i] = r
	}
	return out
}

// mutate changes resource i of v.
func (g *generator) mutate(v *spec.Version, i int) {
	r := &v.Resources[i]
	if !r.IsComponent() {
		if g.chance(1, 3) {
			setProp(r, "v", g.freshValue())
		}
		if g.chance(1, 5) {
			setProp(r, "rv", g.freshValue())
		}
		if g.chance(1, 6) {
			g.redrawProps(v, i)
		}
	}
	if g.chance(1, 4) {
		g.options(r)
	}
	if g.f.DependsOn && g.chance(1, 6) {
		r.DependsOn = nil
		if d := g.pickAny(&spec.Version{Resources: v.Resources[:i]}); d != "" {
			r.DependsOn = []string{d}
		}
	}
	if g.f.Renames && len(r.Aliases) == 0 {
		g.changeIdentity(v, i)
	}
}

// changeIdentity may rename, retype or re-parent resource i of v, with the
// alias that keeps its identity.
func (g *generator) changeIdentity(v *spec.Version, i int) {
	r := &v.Resources[i]
	var alias spec.Alias
	if g.chance(1, 8) {
		alias.Name = r.Name
		g.rename(v, i, g.freshName())
	}
	if r.IsComponent() && g.chance(1, 8) {
		alias.Type = r.Type
		r.Type = map[string]string{spec.GroupType: spec.BoxType, spec.BoxType: spec.GroupType}[r.Type]
	}
	if g.f.Components && g.chance(1, 8) {
		parent := g.pickComponent(&spec.Version{Resources: v.Resources[:i]})
		if parent != r.Parent {
			old := g.prevName(r.Parent)
			alias.Parent = &old
			r.Parent = parent
		}
	}
	if alias != (spec.Alias{}) {
		r.Aliases = []spec.Alias{alias}
	}
}

// prevName is the name a resource of the version being derived had in the
// version before ("" stays "").
func (g *generator) prevName(name string) string {
	if old, ok := g.renamed[name]; ok {
		return old
	}
	return name
}

// redrawProps draws the property dependency of resource i again.
func (g *generator) redrawProps(v *spec.Version, i int) {
	r := &v.Resources[i]
	r.Props = slices.DeleteFunc(r.Props, func(p spec.Prop) bool { return p.Key == "p" || p.Key == "rp" })
	if !g.f.PropertyDeps {
		return
	}
	if src := g.pickCustom(&spec.Version{Resources: v.Resources[:i]}); src != "" {
		key := "p"
		if g.chance(1, 2) {
			key = "rp"
		}
		r.Props = append(r.Props, spec.Prop{Key: key, From: src})
	}
}

func setProp(r *spec.Resource, key, value string) {
	for i := range r.Props {
		if r.Props[i].Key == key {
			r.Props[i] = spec.Prop{Key: key, Value: value}
			return
		}
	}
	r.Props = append(r.Props, spec.Prop{Key: key, Value: value})
}

// rename renames resource i of v and every reference to it.
func (g *generator) rename(v *spec.Version, i int, name string) {
	old := v.Resources[i].Name
	v.Resources[i].Name = name
	g.renamed[name] = g.prevName(old)
	for j := range v.Resources {
		r := &v.Resources[j]
		if r.Parent == old {
			r.Parent = name
		}
		for k := range r.DependsOn {
			if r.DependsOn[k] == old {
				r.DependsOn[k] = name
			}
		}
		for k := range r.Props {
			if r.Props[k].From == old {
				r.Props[k].From = name
			}
		}
	}
}

// remove drops resource i of v: its children are removed too or move to
// its parent, and references to it become literals or go.
func (g *generator) remove(v *spec.Version, i int) {
	gone := v.Resources[i]
	v.Resources = slices.Delete(v.Resources, i, i+1)
	for j := 0; j < len(v.Resources); j++ {
		r := &v.Resources[j]
		if r.Parent == gone.Name {
			if g.chance(1, 2) {
				g.remove(v, j)
				j = -1 // the list changed under us: start over
				continue
			}
			r.Parent = gone.Parent
			if g.f.Renames && len(r.Aliases) == 0 {
				old := gone.Name
				r.Aliases = []spec.Alias{{Parent: &old}}
			}
		}
		r.DependsOn = slices.DeleteFunc(r.DependsOn, func(d string) bool { return d == gone.Name })
		for k := range r.Props {
			if r.Props[k].From == gone.Name {
				r.Props[k] = spec.Prop{Key: r.Props[k].Key, Value: g.freshValue()}
			}
		}
	}
}
