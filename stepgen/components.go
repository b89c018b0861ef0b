package stepgen

import (
	"math"

	"github.com/groundwork-iac/groundwork/resource"
)

// A resource that depends on a component depends on what the component
// holds, as the reference engine reads a dependency when it schedules
// deletes: a dependency on a component stands for the component's children,
// and theirs, recorded before the dependent (a remote component's
// dependents name only the component; those recorded after it could not
// have been waited for). So a component's children are deleted after what
// depends on the component. Only the order of deletes reads dependencies
// so: what a protected resource keeps (spareDependencies) does not.

// componentIndex indexes the old snapshot's components that some record
// names as a dependency (other than as its parent), with their recorded
// descendants. A nil *componentIndex has none.
type componentIndex struct {
	old []*resource.State
	// at is each record's index in old; byURN is a URN's, its live
	// record's when it has copies (a copy marked for deletion in this run
	// is a clone of its live record).
	at    map[*resource.State]int
	byURN map[resource.URN]int
	// descendants lists, for each indexed component (by its URN and the
	// URNs it was known by), the indices in old of its children and
	// theirs.
	descendants map[resource.URN][]int
}

// newComponentIndex indexes the components of old that other records
// depend on; it returns nil when there are none.
func newComponentIndex(old []*resource.State) *componentIndex {
	components := map[resource.URN]*resource.State{}
	for _, s := range old {
		if !s.Custom && !s.Delete && s.Type != resource.RootStackType {
			components[s.URN] = s
			for _, a := range s.Aliases {
				if _, taken := components[a]; !taken {
					components[a] = s
				}
			}
		}
	}
	if len(components) == 0 {
		return nil
	}
	named := map[*resource.State]bool{}
	for _, s := range old {
		forEachNonParentDependency(s, func(dep resource.URN) {
			if c := components[dep]; c != nil {
				named[c] = true
			}
		})
	}
	if len(named) == 0 {
		return nil
	}
	idx := &componentIndex{
		old:         old,
		at:          make(map[*resource.State]int, len(old)),
		byURN:       make(map[resource.URN]int, len(old)),
		descendants: map[resource.URN][]int{},
	}
	children := map[resource.URN][]int{} // by the parent's current URN
	for i, s := range old {
		idx.at[s] = i
		if _, ok := idx.byURN[s.URN]; !ok || !s.Delete {
			idx.byURN[s.URN] = i
		}
		// A copy marked for deletion by an earlier run is not among the
		// children: the reference engine's snapshot holds it after every
		// resource that run registered.
		if s.Parent != "" && !s.Delete {
			p := s.Parent
			if c := components[p]; c != nil {
				p = c.URN // a child may name its parent by an old URN
			}
			children[p] = append(children[p], i)
		}
	}
	for c := range named {
		var all []int
		queue := []resource.URN{c.URN}
		seen := map[resource.URN]bool{c.URN: true}
		for len(queue) > 0 {
			u := queue[0]
			queue = queue[1:]
			for _, i := range children[u] {
				all = append(all, i)
				if ch := old[i].URN; !seen[ch] {
					seen[ch] = true
					queue = append(queue, ch)
				}
			}
		}
		idx.descendants[c.URN] = all
		for _, a := range c.Aliases {
			if components[a] == c {
				idx.descendants[a] = all
			}
		}
	}
	return idx
}

// deleteDependencies calls fn for every resource s depends on (see
// forEachDependency) and, for each component among them other than its
// parent, for each of the component's descendants recorded before s.
func (c *componentIndex) deleteDependencies(s *resource.State, fn func(resource.URN)) {
	forEachDependency(s, fn)
	if c == nil {
		return
	}
	at, ok := c.at[s]
	if !ok {
		if at, ok = c.byURN[s.URN]; !ok {
			at = math.MaxInt // a record the snapshot did not hold comes last
		}
	}
	forEachNonParentDependency(s, func(dep resource.URN) {
		for _, i := range c.descendants[dep] {
			if d := c.old[i].URN; i < at && d != s.URN {
				fn(d)
			}
		}
	})
}

// forEachNonParentDependency calls fn for every resource s depends on but
// its parent and provider: dependencies, property dependencies and the
// deleted-with target.
func forEachNonParentDependency(s *resource.State, fn func(resource.URN)) {
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
}
