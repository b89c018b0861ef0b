// Package reduce shrinks a program that shows a difference to a minimal one
// that still shows it: delta debugging over the program's parts, one cut
// at a time — the destroy, whole versions, resources (in every version,
// then in one), failures, exports, options, dependencies, properties,
// aliases and parents — keeping each cut that leaves a valid program on
// which the predicate still holds, until no cut does.
package reduce

import (
	"slices"

	"github.com/groundwork-iac/groundwork/conformance/spec"
)

// Reduce returns the smallest program it finds from p for which keep holds;
// keep(p) must hold. It calls keep once per candidate, at most budget times
// in all (0 means no bound).
func Reduce(p *spec.Program, keep func(*spec.Program) bool, budget int) *spec.Program {
	cur := p.Clone()
	tries := 0
	for {
		progress := false
		for _, c := range candidates(cur) {
			if budget > 0 && tries >= budget {
				return cur
			}
			if c.Validate() != nil {
				continue
			}
			tries++
			if keep(c) {
				cur, progress = c, true
				break
			}
		}
		if !progress {
			return cur
		}
	}
}

// candidates lists every one-cut reduction of p, the biggest cuts first.
func candidates(p *spec.Program) []*spec.Program {
	var out []*spec.Program
	edit := func(f func(c *spec.Program) bool) {
		c := p.Clone()
		if f(c) {
			out = append(out, c)
		}
	}
	if p.Destroy {
		edit(func(c *spec.Program) bool { c.Destroy, c.DestroyFailures = false, nil; return true })
	}
	for i := range p.Versions {
		if len(p.Versions) > 1 {
			edit(func(c *spec.Program) bool { c.Versions = slices.Delete(c.Versions, i, i+1); return true })
		}
	}
	for _, name := range p.Names() {
		edit(func(c *spec.Program) bool {
			for i := range c.Versions {
				removeResource(&c.Versions[i], name)
			}
			return true
		})
	}
	for i, v := range p.Versions {
		for _, r := range v.Resources {
			edit(func(c *spec.Program) bool { return removeResource(&c.Versions[i], r.Name) })
		}
	}
	for i := range p.DestroyFailures {
		edit(func(c *spec.Program) bool { c.DestroyFailures = slices.Delete(c.DestroyFailures, i, i+1); return true })
	}
	for i, v := range p.Versions {
		for j := range v.Failures {
			edit(func(c *spec.Program) bool {
				c.Versions[i].Failures = slices.Delete(c.Versions[i].Failures, j, j+1)
				return true
			})
		}
		if len(v.Exports) > 0 {
			edit(func(c *spec.Program) bool { c.Versions[i].Exports = nil; return true })
		}
		for j := range v.Resources {
			out = append(out, simplifications(p, i, j)...)
		}
	}
	return out
}

// simplifications lists the cuts of the options, dependencies, properties,
// aliases and parent of resource j of version i.
func simplifications(p *spec.Program, i, j int) []*spec.Program {
	var out []*spec.Program
	edit := func(f func(r *spec.Resource)) {
		c := p.Clone()
		f(&c.Versions[i].Resources[j])
		out = append(out, c)
	}
	r := p.Versions[i].Resources[j]
	if r.Protect {
		edit(func(r *spec.Resource) { r.Protect = false })
	}
	if r.RetainOnDelete {
		edit(func(r *spec.Resource) { r.RetainOnDelete = false })
	}
	if r.DeleteBeforeReplace {
		edit(func(r *spec.Resource) { r.DeleteBeforeReplace = false })
	}
	if len(r.ReplaceOnChanges) > 0 {
		edit(func(r *spec.Resource) { r.ReplaceOnChanges = nil })
	}
	for k := range r.Aliases {
		edit(func(r *spec.Resource) { r.Aliases = slices.Delete(r.Aliases, k, k+1) })
	}
	for k := range r.DependsOn {
		edit(func(r *spec.Resource) { r.DependsOn = slices.Delete(r.DependsOn, k, k+1) })
	}
	for k, pr := range r.Props {
		edit(func(r *spec.Resource) { r.Props = slices.Delete(r.Props, k, k+1) })
		if pr.From != "" {
			edit(func(r *spec.Resource) { r.Props[k] = spec.Prop{Key: pr.Key, Value: "x"} })
		}
	}
	if r.Parent != "" {
		edit(func(r *spec.Resource) { r.Parent = "" })
	}
	return out
}

// removeResource removes the resource named name from v, with every
// reference to it: its children move to its parent, properties taking its
// output become literals, dependencies on it, exports of it and failures of
// it go. It reports whether v held it.
func removeResource(v *spec.Version, name string) bool {
	i := slices.IndexFunc(v.Resources, func(r spec.Resource) bool { return r.Name == name })
	if i < 0 {
		return false
	}
	gone := v.Resources[i]
	v.Resources = slices.Delete(v.Resources, i, i+1)
	for j := range v.Resources {
		r := &v.Resources[j]
		if r.Parent == name {
			r.Parent = gone.Parent
		}
		r.DependsOn = slices.DeleteFunc(r.DependsOn, func(d string) bool { return d == name })
		for k := range r.Props {
			if r.Props[k].From == name {
				r.Props[k] = spec.Prop{Key: r.Props[k].Key, Value: "x"}
			}
		}
	}
	v.Exports = slices.DeleteFunc(v.Exports, func(e string) bool { return e == name })
	v.Failures = slices.DeleteFunc(v.Failures, func(f spec.Failure) bool { return f.Name == name })
	return true
}
