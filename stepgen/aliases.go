package stepgen

import (
	"slices"
	"strings"

	"github.com/groundwork-iac/groundwork/resource"
)

// findOld finds the old state a registration takes over: the one recorded
// under its URN, or else under one of its aliases, or else under one of the
// aliases it inherits from a renamed parent (see inheritedAliases). Two of
// its own aliases matching two different old resources is an error, as is
// taking over a resource another registration of this run already took.
// e is what the generator knows of urn.
func (g *Generator) findOld(e *urnState, urn resource.URN, goal *resource.Goal) (*resource.State, error) {
	if e.old != nil && !e.taken {
		return e.old, nil
	}
	var found *resource.State
	var matches []resource.URN
	for _, a := range goal.Aliases {
		old := g.available(g.aliasURN(goal, a))
		if old == nil {
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
	if found != nil {
		return found, nil
	}
	// As in the reference engine, the first inherited alias that names an
	// available record wins (the aliases inherited from the URN the
	// parent's record was found under in this run come first).
	for _, au := range g.inheritedAliases(goal) {
		if old := g.available(au); old != nil {
			return old, nil
		}
	}
	return nil, nil
}

// available returns the live old state recorded under urn if no
// registration of this run took it over or holds urn itself, or nil.
func (g *Generator) available(urn resource.URN) *resource.State {
	e := g.at(urn)
	if e == nil || e.old == nil || e.taken || e.registered {
		return nil
	}
	return e.old
}

// parentAlias returns the URN the old record of the registered resource
// parent was found under, when that is not parent itself (the parent was
// renamed, retyped or re-parented through an alias), or "".
func (g *Generator) parentAlias(parent resource.URN) resource.URN {
	if parent == "" {
		return ""
	}
	if old, _ := g.tookUnder(parent); old != nil && old.URN != parent {
		return old.URN
	}
	return ""
}

// aliasURN computes the URN an alias names: a full URN as given, or the
// registration's URN with the alias's parts substituted. An alias's parent
// that was itself found under an alias stands for the URN it was found
// under, as the reference engine reads it; the root stack as a parent is
// no parent.
func (g *Generator) aliasURN(goal *resource.Goal, a resource.Alias) resource.URN {
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
		if old := g.parentAlias(parent); old != "" {
			parent = old
		}
	}
	parentType := ""
	if parent != "" {
		parentType = parent.QualifiedType()
	}
	return resource.NewURN(stack, project, parentType, typ, name)
}

// inheritedAliases are the aliases a registration inherits from its parent
// when the parent was known by other URNs, as the Pulumi SDKs and engine
// derive them: the registration's own type and name, and those of each of
// its aliases, under each of the parent's old qualified types; a name that
// starts with the parent's name starts with the parent's old name instead
// (the "<parent>-<suffix>" naming convention).
//
// The parent's old URNs are the one its old record was found under in this
// run, when that is not its URN (it is renamed, retyped or re-parented now
// through an alias), those its record lists as once known by (an operation
// that renamed it ended before it committed), and those its aliases name
// (see parentOldURNs).
func (g *Generator) inheritedAliases(goal *resource.Goal) []resource.URN {
	olds := g.parentOldURNs(goal.Parent)
	if len(olds) == 0 {
		return nil
	}
	var out []resource.URN
	parentName := goal.Parent.Name()
	for _, parentOld := range olds {
		oldName, oldType := parentOld.Name(), parentOld.QualifiedType()
		inherit := func(typ, name string) resource.URN {
			if rest, ok := strings.CutPrefix(name, parentName); ok {
				name = oldName + rest
			}
			return resource.NewURN(g.cfg.Stack, g.cfg.Project, oldType, typ, name)
		}
		out = append(out, inherit(goal.Type, goal.Name))
		for _, a := range goal.Aliases {
			au := g.aliasURN(goal, a)
			out = append(out, inherit(au.Type(), au.Name()))
		}
	}
	return out
}

// parentOldURNs returns the URNs other than its own that the registered
// resource parent was known by: the one its old record was found under in
// this run, those that record lists among its aliases, and those the
// parent's own aliases name. The last matter when the parent's record was
// found under its own URN: an earlier update renamed it but did not
// register its children (it failed first). The reference engine derives
// inherited aliases from the matched alias only, so it creates such a
// child anew and deletes its record (COMPATIBILITY.md, "A child inherits
// every alias of its parent").
func (g *Generator) parentOldURNs(parent resource.URN) []resource.URN {
	if parent == "" {
		return nil
	}
	old, _ := g.tookUnder(parent)
	var out []resource.URN
	add := func(u resource.URN) {
		if u != parent && !slices.Contains(out, u) {
			out = append(out, u)
		}
	}
	if old != nil {
		add(old.URN)
		for _, a := range old.Aliases {
			add(a)
		}
	}
	for _, a := range g.declared[parent] {
		if !g.registered(a) {
			// An alias naming a resource of this run is that resource's
			// URN, not the parent's: its children are not these.
			add(a)
		}
	}
	return out
}

// declareAliases remembers the URNs the aliases of the registration urn
// name, for its children to inherit.
func (g *Generator) declareAliases(urn resource.URN, goal *resource.Goal) {
	if len(goal.Aliases) == 0 {
		return
	}
	if g.declared == nil {
		g.declared = make(map[resource.URN][]resource.URN)
	}
	us := make([]resource.URN, 0, len(goal.Aliases))
	for _, a := range goal.Aliases {
		us = append(us, g.aliasURN(goal, a))
	}
	g.declared[urn] = us
}
