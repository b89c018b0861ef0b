package deploy

import (
	"context"
	"fmt"

	"github.com/groundwork-iac/groundwork/resource"
	"github.com/groundwork-iac/groundwork/state"
)

// DropGone removes from the state the resources the refresh found gone,
// once every refresh step has ended, together with every reference other
// records hold to them, so that the state keeps its integrity: a
// dependency, property dependency or deleted-with target that no longer
// exists is dropped, and a resource whose parent is gone takes the
// nearest ancestor that remains as its parent. A copy marked Delete that
// is gone takes no reference away while its URN has another copy. A
// reference to a URN a renamed resource was known by (one of its Aliases)
// stands or goes with that resource.
//
// The refresh's body calls it once Settle has returned; each resource
// removed is told to the Observer (Inform).
func (h *Host) DropGone(ctx context.Context) error {
	gone := h.Gone()
	if len(gone) == 0 || h.journal == nil {
		return nil
	}
	snap, err := h.journal.Snapshot()
	if err != nil {
		return err
	}
	type key struct {
		urn    resource.URN
		id     resource.ID
		delete bool
	}
	isGone := map[key]bool{}
	parentOf := map[resource.URN]resource.URN{}
	for _, g := range gone {
		isGone[key{g.URN, g.ID, g.Delete}] = true
		parentOf[g.URN] = g.Parent
	}
	present := map[resource.URN]bool{}
	for _, r := range snap.Resources {
		if !isGone[key{r.URN, r.ID, r.Delete}] {
			present[r.URN] = true
			markAliases(present, r)
		}
	}
	inheritParents(parentOf, gone)
	for _, r := range snap.Resources {
		if isGone[key{r.URN, r.ID, r.Delete}] {
			continue
		}
		if next := unreference(r, present, parentOf); next != nil {
			if _, err := h.journal.Append(ctx, state.Entry{Kind: state.EntryWrite, Old: r, New: next}); err != nil {
				return fmt.Errorf("dropping the references of %s to resources that no longer exist: %w", r.URN, err)
			}
		}
	}
	for _, g := range gone {
		h.cfg.Observer.Inform(g.URN, "the resource no longer exists; it was removed from the state, with every reference to it")
		if _, err := h.journal.Append(ctx, state.Entry{Kind: state.EntryWrite, Old: g}); err != nil {
			return fmt.Errorf("removing %s, which no longer exists: %w", g.URN, err)
		}
	}
	return nil
}

// unreference returns a copy of r without its references to URNs that are
// not present, or nil if it has none.
func unreference(r *resource.State, present map[resource.URN]bool, parentOf map[resource.URN]resource.URN) *resource.State {
	missing := func(u resource.URN) bool { return u != "" && !present[u] }
	stale := missing(r.Parent) || missing(r.DeletedWith)
	for _, u := range r.Dependencies {
		stale = stale || missing(u)
	}
	for _, us := range r.PropertyDependencies {
		for _, u := range us {
			stale = stale || missing(u)
		}
	}
	if !stale {
		return nil
	}
	n := r.Clone()
	// Bounded: a parent chain that loops through gone resources (which no
	// snapshot that passed its integrity check holds) ends at no parent.
	for i := 0; missing(n.Parent); i++ {
		if n.Parent = parentOf[n.Parent]; i > len(parentOf) {
			n.Parent = ""
		}
	}
	if missing(n.DeletedWith) {
		n.DeletedWith = ""
	}
	keep := func(us []resource.URN) []resource.URN {
		out := us[:0]
		for _, u := range us {
			if !missing(u) {
				out = append(out, u)
			}
		}
		return out
	}
	n.Dependencies = keep(n.Dependencies)
	for k, us := range n.PropertyDependencies {
		if n.PropertyDependencies[k] = keep(us); len(n.PropertyDependencies[k]) == 0 {
			delete(n.PropertyDependencies, k)
		}
	}
	return n
}

// markAliases adds the URNs r was known by to present: references to them
// resolve to r.
func markAliases(present map[resource.URN]bool, r *resource.State) {
	for _, a := range r.Aliases {
		present[a] = true
	}
}

// inheritParents lets a reference to a URN a gone resource was known by
// climb to that resource's parent, as a reference to its URN does.
func inheritParents(parentOf map[resource.URN]resource.URN, gone []*resource.State) {
	for _, g := range gone {
		for _, a := range g.Aliases {
			if _, ok := parentOf[a]; !ok {
				parentOf[a] = g.Parent
			}
		}
	}
}
