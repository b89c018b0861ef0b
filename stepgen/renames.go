package stepgen

import (
	"slices"

	"github.com/groundwork-iac/groundwork/resource"
)

// A record names what it refers to by the URNs those resources had when the
// record was written. A resource renamed since (through an alias) carries
// the URNs it was known by in its Aliases, and a reference to a URN that no
// record holds resolves to the record listing it there, as the state
// package orders and checks snapshots. Such references outlive a run: a
// referrer whose step fails, that is not registered again, or that a
// delete-before-replace leaves pending keeps naming the old URN. The
// helpers here extend the generator's dependency bookkeeping to them.

// resolveAliases lets byURN, which maps the URNs of states to their
// indexes, resolve references to old URNs too: each alias of a state that
// no state holds as its URN maps to the states that list it. It allocates
// nothing when no state has aliases.
func resolveAliases(byURN map[resource.URN][]int, states []*resource.State) {
	var renamed map[resource.URN][]int
	for i, s := range states {
		for _, a := range s.Aliases {
			if _, held := byURN[a]; held {
				continue
			}
			if renamed == nil {
				renamed = make(map[resource.URN][]int)
			}
			renamed[a] = append(renamed[a], i)
		}
	}
	for a, is := range renamed {
		byURN[a] = is
	}
}

// holds reports whether a record that this run keeps, or writes, holds
// urn as its own URN: one registered under it, or an old one nobody took
// over (not renamed away).
func (g *Generator) holds(urn resource.URN) bool {
	e := g.at(urn)
	return e != nil && (e.registered || e.new != nil || (e.old != nil && !e.taken))
}

// markReplaced records that s is being replaced, under its URN and the
// URNs it was known by, so that a dependent whose record names an old URN
// is found affected too.
func markReplaced(replaced map[resource.URN]bool, s *resource.State) {
	replaced[s.URN] = true
	for _, a := range s.Aliases {
		replaced[a] = true
	}
}

// addAliases maps the URNs s was known by to its URN in m, allocating m on
// first need.
func addAliases(m map[resource.URN]resource.URN, s *resource.State) map[resource.URN]resource.URN {
	for _, a := range s.Aliases {
		if m == nil {
			m = make(map[resource.URN]resource.URN)
		}
		m[a] = s.URN
	}
	return m
}

// renamedProvider reports whether two provider references ("<URN>::<ID>")
// name the same provider resource, renamed in between: the registration of
// the new reference's URN took over the provider record that the old
// reference names (by its URN, or by one of its aliases), and both have
// its ID. Such a change of reference is no change of provider.
func (g *Generator) renamedProvider(oldRef, newRef string) bool {
	oldURN, newURN := providerURN(oldRef), providerURN(newRef)
	if oldURN == "" || newURN == "" {
		return false
	}
	id := newRef[len(newURN):] // "::<ID>"
	rec, _ := g.tookUnder(newURN)
	return rec != nil && oldRef[len(oldURN):] == id && resource.IsProviderType(rec.Type) &&
		"::"+string(rec.ID) == id && (rec.URN == oldURN || slices.Contains(rec.Aliases, oldURN))
}
