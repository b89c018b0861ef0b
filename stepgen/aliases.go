package stepgen

import (
	"github.com/groundwork-iac/groundwork/resource"
)

// findOld finds the old state a registration takes over: the one recorded
// under its URN, or else under one of its aliases. Matching two different
// old resources is an error, as is taking over a resource another
// registration of this run already took.
func (g *Generator) findOld(urn resource.URN, goal *resource.Goal) (*resource.State, error) {
	if old, ok := g.olds[urn]; ok && !g.takenOver[old] {
		return old, nil
	}
	var found *resource.State
	var matches []resource.URN
	for _, a := range goal.Aliases {
		au := g.aliasURN(urn, goal, a)
		old, ok := g.olds[au]
		if !ok || g.takenOver[old] {
			continue
		}
		if _, registered := g.seen[au]; registered {
			continue
		}
		if found != nil && found != old {
			matches = append(matches, old.URN)
			continue
		}
		if found == nil {
			found = old
			matches = append(matches, old.URN)
		}
	}
	if len(matches) > 1 {
		return nil, &AliasError{URN: urn, Matches: matches}
	}
	return found, nil
}

// aliasURN computes the URN an alias names: a full URN as given, or the
// registration's URN with the alias's parts substituted.
func (g *Generator) aliasURN(urn resource.URN, goal *resource.Goal, a resource.Alias) resource.URN {
	if a.URN != "" {
		return a.URN
	}
	stack, project, typ, name := g.cfg.Stack, g.cfg.Project, goal.Type, goal.Name
	if a.Stack != "" {
		stack = a.Stack
	}
	if a.Project != "" {
		project = a.Project
	}
	if a.Type != "" {
		typ = a.Type
	}
	if a.Name != "" {
		name = a.Name
	}
	parent := goal.Parent
	switch {
	case a.NoParent:
		parent = ""
	case a.Parent != "":
		parent = a.Parent
	}
	parentType := ""
	if parent != "" {
		parentType = parent.QualifiedType()
	}
	return resource.NewURN(stack, project, parentType, typ, name)
}
