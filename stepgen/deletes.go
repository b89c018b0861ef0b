package stepgen

import (
	"strings"

	"github.com/groundwork-iac/groundwork/resource"
)

// Deletes returns the steps that delete what the program no longer
// declares: every old resource no registration took over, and every old
// copy marked for deletion by a replacement. They come as antichains in the
// order they must run: no member of an antichain depends on another, and a
// resource is deleted only after everything that depends on it. The chains
// of one antichain may run in parallel; each antichain must finish before
// the next starts.
//
// Deleting a protected resource is an error; nothing is deleted then.
func (g *Generator) Deletes() ([][]Chain, error) {
	var doomed []*resource.State
	for _, s := range g.condemned {
		doomed = append(doomed, s)
	}
	for _, s := range g.cfg.Old {
		if s.Delete {
			continue
		}
		cur := g.olds[s.URN]
		if cur == nil || g.takenOver[cur] || g.cfg.KeepUnregistered || !g.named(s.URN) {
			continue
		}
		if cur.Protect {
			return nil, &ProtectedError{URN: cur.URN, Action: "delete"}
		}
		doomed = append(doomed, cur)
	}
	if err := g.checkDanglingDependents(doomed); err != nil {
		return nil, err
	}
	return g.deleteAntichains(doomed), nil
}

// targeted reports whether urn is within the operation's targets. The root
// stack resource and provider resources are always targeted: the resources
// that are need them.
func (g *Generator) targeted(urn resource.URN) bool {
	if typ := urn.Type(); typ == resource.RootStackType || resource.IsProviderType(typ) {
		return true
	}
	return !g.cfg.Excludes[urn] && (g.cfg.Targets == nil || g.cfg.Targets[urn])
}

// named reports whether urn is within the operation's targets as given: a
// targeted delete removes only what the targets name, never the stack's
// root or a provider other resources may still use.
func (g *Generator) named(urn resource.URN) bool {
	return !g.cfg.Excludes[urn] && (g.cfg.Targets == nil || g.cfg.Targets[urn])
}

// checkDanglingDependents refuses to delete a resource that a resource
// which stays still depends on (possible when targets leave a dependent
// out, or excludes keep one).
func (g *Generator) checkDanglingDependents(doomed []*resource.State) error {
	if (g.cfg.Targets == nil && len(g.cfg.Excludes) == 0) || len(doomed) == 0 {
		return nil
	}
	going := make(map[resource.URN]bool, len(doomed))
	// renamed maps the URNs going resources were once known by to theirs.
	var renamed map[resource.URN]resource.URN
	for _, s := range doomed {
		// The old copy of a replaced resource shares its URN with the
		// live record, which is what dependents depend on.
		if s.Delete && (g.news[s.URN] != nil || g.olds[s.URN] != nil) {
			continue
		}
		going[s.URN] = true
		renamed = addAliases(renamed, s)
	}
	// goingAs returns the URN of the going resource a reference to dep
	// names, or "".
	goingAs := func(dep resource.URN) resource.URN {
		if going[dep] {
			return dep
		}
		if u, ok := renamed[dep]; ok && !g.holds(dep) {
			return u
		}
		return ""
	}
	check := func(s *resource.State) error {
		var err error
		forEachDependency(s, func(dep resource.URN) {
			if err != nil || going[s.URN] {
				return
			}
			if u := goingAs(dep); u != "" {
				err = &DanglingDependentError{URN: u, Dependent: s.URN}
			}
		})
		return err
	}
	for _, s := range g.news {
		if err := check(s); err != nil {
			return err
		}
	}
	for _, s := range g.olds {
		if !g.takenOver[s] && !going[s.URN] {
			if err := check(s); err != nil {
				return err
			}
		}
	}
	return nil
}

// deleteAntichains orders deletes by the reverse dependency graph among the
// doomed resources and cuts the order into antichains, in O(V+E).
func (g *Generator) deleteAntichains(doomed []*resource.State) [][]Chain {
	if len(doomed) == 0 {
		return nil
	}
	byURN := make(map[resource.URN][]int, len(doomed))
	for i, s := range doomed {
		byURN[s.URN] = append(byURN[s.URN], i)
	}
	resolveAliases(byURN, doomed) // a record may name a renamed one by an old URN
	// dependents[i] lists the doomed resources that depend on doomed[i];
	// blockers[i] counts them: i can be deleted once they are gone.
	dependents := make([][]int, len(doomed))
	blockers := make([]int, len(doomed))
	for i, s := range doomed {
		forEachDependency(s, func(dep resource.URN) {
			for _, j := range byURN[dep] {
				if j != i {
					dependents[j] = append(dependents[j], i)
					blockers[j]++
				}
			}
		})
	}
	var chains [][]Chain
	ready := make([]int, 0, len(doomed))
	for i := range doomed {
		if blockers[i] == 0 {
			ready = append(ready, i)
		}
	}
	for len(ready) > 0 {
		layer := make([]Chain, 0, len(ready))
		var next []int
		for _, i := range ready {
			layer = append(layer, g.deleteChain(doomed[i], doomed, dependents[i], byURN))
			forEachDependency(doomed[i], func(dep resource.URN) {
				for _, j := range byURN[dep] {
					if j != i {
						blockers[j]--
						if blockers[j] == 0 {
							next = append(next, j)
						}
					}
				}
			})
		}
		chains = append(chains, layer)
		ready = next
	}
	return chains
}

func (g *Generator) deleteChain(s *resource.State, doomed []*resource.State, dependents []int, byURN map[resource.URN][]int) Chain {
	op := OpDelete
	if s.Delete {
		op = OpDeleteReplaced
	}
	st := g.step(op, s.URN, s, nil, nil)
	if s.PendingReplacement || (s.DeletedWith != "" && len(byURN[s.DeletedWith]) > 0) {
		// Its physical resource is already gone (a delete-before-replace
		// deleted it) or goes away with the one it was deleted with; only
		// the record is removed.
		st.skipProvider = true
	}
	var needs []resource.URN
	for _, d := range dependents {
		needs = append(needs, doomed[d].URN)
	}
	return Chain{Steps: []*Step{st}, Needs: needs}
}

// forEachDependency calls fn for every resource s depends on: its parent,
// dependencies, property dependencies, deleted-with target and provider.
func forEachDependency(s *resource.State, fn func(resource.URN)) {
	if s.Parent != "" {
		fn(s.Parent)
	}
	for _, d := range s.Dependencies {
		fn(d)
	}
	for _, deps := range s.PropertyDependencies {
		for _, d := range deps {
			fn(d)
		}
	}
	if s.DeletedWith != "" {
		fn(s.DeletedWith)
	}
	if u := providerURN(s.Provider); u != "" {
		fn(u)
	}
}

// providerURN returns the URN part of a provider reference, "<URN>::<ID>",
// without validating it: the dependency graph only looks it up among the
// resources it knows, so a malformed reference simply matches none.
// Parsing it in full took a quarter of BenchmarkDeletes10k.
func providerURN(ref string) resource.URN {
	i := strings.LastIndex(ref, "::")
	if i < 0 {
		return ""
	}
	return resource.URN(ref[:i])
}
