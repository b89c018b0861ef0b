package state

import (
	"maps"
	"slices"

	"github.com/groundwork-iac/groundwork/resource"
)

// During an operation, a resource that a registration finds through an
// alias is recorded under its new URN with the URNs it was known by in its
// Aliases, while what was written earlier keeps naming the old URN: a
// dependent or child not registered again, and the old copy of a renamed
// resource that was replaced and not yet deleted. Such references resolve
// through the aliases until the operation ends. Then the renames settle,
// as Pulumi's engine settles them whenever it writes a snapshot:
//
//   - every reference to a URN a record was known by (parent, dependency,
//     property dependency, deleted-with target, provider reference) names
//     that record's URN, and a record still held under such a URN (the old
//     copy of a renamed resource) takes the new URN too;
//   - a record whose parent's URN changed takes its parent's new qualified
//     type, and so in turn do its own children;
//   - Aliases are emptied: nothing refers to the old URNs any more.
//
// A later operation then finds each record under one URN, the one the
// resource was last registered under, and a provider's Delete of an old
// copy receives that URN.

// settleRenames returns states with the renames settled, in snapshot
// order, or ok false when nothing needs settling or the renames cannot be
// settled without two live records sharing a URN (then the aliases stay,
// and references keep resolving through them). states must be in snapshot
// order: parents before their children.
func settleRenames(states []*resource.State) (settled []*resource.State, ok bool) {
	renamed, ok := renamedURNs(states)
	if !ok {
		return nil, false
	}
	settled = make([]*resource.State, len(states))
	live := make(map[resource.URN]bool, len(states))
	for i, s := range states {
		settled[i] = settleState(s, renamed)
		if !settled[i].Delete {
			if live[settled[i].URN] {
				return nil, false
			}
			live[settled[i].URN] = true
		}
	}
	return sortResources(settled), true
}

// renamedURNs maps each URN that records were known by to the URN they are
// known by now. ok is false when no record has aliases, or when two live
// records claim one old URN.
func renamedURNs(states []*resource.State) (renamed map[resource.URN]resource.URN, ok bool) {
	heldLive := make(map[resource.URN]bool, len(states))
	hasAliases := false
	for _, s := range states {
		if !s.Delete {
			heldLive[s.URN] = true
		}
		hasAliases = hasAliases || len(s.Aliases) > 0
	}
	if !hasAliases {
		return nil, false
	}
	renamed = make(map[resource.URN]resource.URN)
	// claimedLive says the mapping of an old URN came from a live record,
	// which a copy marked for deletion cannot override.
	claimedLive := make(map[resource.URN]bool)
	for _, s := range states {
		for _, a := range s.Aliases {
			if a == s.URN || heldLive[a] {
				// A live record holds the old URN as its own (a new
				// resource took the name): references to it mean that one.
				continue
			}
			prev, seen := renamed[a]
			switch {
			case !seen || prev == s.URN:
			case claimedLive[a] && !s.Delete:
				return nil, false // two live records claim one old URN
			case claimedLive[a]:
				continue
			}
			renamed[a] = s.URN
			claimedLive[a] = claimedLive[a] || !s.Delete
		}
	}
	// A record whose parent was renamed moves under the parent's new URN:
	// its qualified type follows the parent's, and in turn its children's
	// follow its own (parents come first). This holds for a copy marked
	// for deletion too, even when the live resource took its URN as an
	// alias: the copy keeps its own name under the new type, as in the
	// reference engine, and a reference to the old URN names the copy.
	for _, s := range states {
		if s.Parent == "" {
			continue
		}
		if parent, moved := renamed[s.Parent]; moved && parent.QualifiedType() != resource.RootStackType {
			if u := s.URN.Reparent(parent.QualifiedType()); u != s.URN {
				renamed[s.URN] = u
			}
		}
	}
	// A URN renamed to one that is renamed in turn (an alias of a record
	// whose own URN follows its parent's) ends at the last one.
	for from, to := range renamed {
		for hops := 0; hops < len(renamed); hops++ {
			next, ok := renamed[to]
			if !ok || next == to {
				break
			}
			to = next
		}
		renamed[from] = to
	}
	return renamed, true
}

// settleState returns s with every URN it holds or refers to settled
// through renamed and its Aliases emptied: s itself when nothing changes,
// else a copy.
func settleState(s *resource.State, renamed map[resource.URN]resource.URN) *resource.State {
	fix := func(u resource.URN) (resource.URN, bool) {
		if n, ok := renamed[u]; ok && u != "" {
			return n, true
		}
		return u, false
	}
	urn, urnChanged := fix(s.URN)
	parent, parentChanged := fix(s.Parent)
	deletedWith, withChanged := fix(s.DeletedWith)
	provider, providerChanged := s.Provider, false
	if pu, id, ok := ParseProviderReference(s.Provider); ok {
		if n, changed := fix(pu); changed {
			provider, providerChanged = string(n)+"::"+string(id), true
		}
	}
	depsChanged := slices.ContainsFunc(s.Dependencies, func(u resource.URN) bool { _, ok := renamed[u]; return ok })
	propsChanged := false
	for _, deps := range s.PropertyDependencies {
		if slices.ContainsFunc(deps, func(u resource.URN) bool { _, ok := renamed[u]; return ok }) {
			propsChanged = true
			break
		}
	}
	if !urnChanged && !parentChanged && !withChanged && !providerChanged && !depsChanged && !propsChanged && len(s.Aliases) == 0 {
		return s
	}
	c := *s
	c.URN, c.Parent, c.DeletedWith, c.Provider = urn, parent, deletedWith, provider
	c.Aliases = nil
	if depsChanged {
		c.Dependencies = fixURNs(s.Dependencies, fix)
	}
	if propsChanged {
		c.PropertyDependencies = maps.Clone(s.PropertyDependencies)
		for k, deps := range c.PropertyDependencies {
			c.PropertyDependencies[k] = fixURNs(deps, fix)
		}
	}
	return &c
}

// fixURNs returns a copy of us with each URN passed through fix.
func fixURNs(us []resource.URN, fix func(resource.URN) (resource.URN, bool)) []resource.URN {
	out := make([]resource.URN, len(us))
	for i, u := range us {
		out[i], _ = fix(u)
	}
	return out
}
