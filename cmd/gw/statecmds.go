package main

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/groundwork-iac/groundwork/resource"
	"github.com/groundwork-iac/groundwork/state"
)

// This file is "gw state": changes to a stack's recorded state that touch
// no resource, each made as one journaled operation through the store's
// public API (lock, load, journal the entries, commit), as the engine
// records its own steps.

// stateCommand is "gw state" and its subcommands.
func stateCommand(inv *invocation) *cobra.Command {
	return inv.group(&cobra.Command{Use: "state <command>", Short: "edit the stack's recorded state: delete, protect, unprotect, rename, move",
		Long: `State edits what the stack records about its resources, without touching the
resources themselves. Resources are named by URN: "gw stack --show-urns"
lists them. Each edit is recorded like an operation's steps, under the
stack's lock.`,
	}, nil, nil,
		inv.leaf(&cobra.Command{Use: "delete [flags] URN", Short: "forget a resource: remove it from the state (it is not deleted)",
			Long: `Delete removes the resource from the stack's state; the resource itself is
left as it is, unmanaged. A resource that others depend on is refused unless
--target-dependents, which removes them too; a protected one unless --force.`,
		}, stateDeleteFlags, runStateDelete, noProgram),
		inv.leaf(&cobra.Command{Use: "protect [flags] URN", Short: "protect a resource: destroy and delete refuse it"},
			stateFlags, runStateProtect(true), noProgram),
		inv.leaf(&cobra.Command{Use: "unprotect [flags] [URN]", Short: "unprotect a resource (or, with --all, every resource)"},
			stateUnprotectFlags, runStateProtect(false), noProgram),
		inv.leaf(&cobra.Command{Use: "rename [flags] URN NEW-NAME", Short: "give a resource a new name (a new URN) in the state",
			Long: `Rename gives the resource a new name, and so a new URN, in the stack's state,
and updates the resources that refer to it. Rename it in the program too, or
the next update replaces it.`,
		}, stateFlags, runStateRename, noProgram),
		stateMoveCommand(inv),
	)
}

func stateDeleteFlags(fs *pflag.FlagSet, o *options) {
	stateFlags(fs, o)
	fs.BoolVar(&o.force, "force", false, "delete a protected resource from the state too")
	fs.BoolVar(&o.targetDependents, "target-dependents", false, "delete the resources that depend on it from the state too")
}

func stateUnprotectFlags(fs *pflag.FlagSet, o *options) {
	stateFlags(fs, o)
	fs.BoolVar(&o.all, "all", false, "unprotect every resource of the stack")
}

// editState changes the stack's state as one journaled operation: it
// locks the stack, loads it, asks plan for the entries to record against
// what it loaded, appends them and commits. Nothing is written if plan
// fails.
func editState(ctx context.Context, inv *invocation, plan func(snap *state.Snapshot) ([]state.Entry, error)) error {
	o := &inv.opts
	_, store, err := openStacks(ctx, o)
	if err != nil {
		return err
	}
	defer store.Close()
	exists, err := stackExists(ctx, store, projectStack(o, o.stack))
	if err != nil {
		return err
	}
	if !exists {
		return noStack(o.stack)
	}
	lock, err := store.Lock(ctx, projectStack(o, o.stack), "state edit")
	if err != nil {
		return err
	}
	defer lock.Unlock(ctx)
	snap, err := store.Load(ctx, projectStack(o, o.stack))
	if err != nil {
		return err
	}
	entries, err := plan(snap)
	if err != nil {
		return err
	}
	j, err := store.OpenJournal(ctx, projectStack(o, o.stack), snap)
	if err != nil {
		return err
	}
	for _, e := range entries {
		if _, err := j.Append(ctx, e); err != nil {
			j.Close(ctx)
			return err
		}
	}
	if _, err := j.Commit(ctx); err != nil {
		j.Close(ctx)
		return err
	}
	if err := j.Close(ctx); err != nil {
		return err
	}
	return lock.Unlock(ctx)
}

// liveResource returns the stack's live record of urn.
func liveResource(snap *state.Snapshot, stack string, urn resource.URN) (*resource.State, error) {
	for _, r := range snap.Resources {
		if r.URN == urn && !r.Delete {
			return r, nil
		}
	}
	return nil, fmt.Errorf("stack %s has no resource %s: gw stack --show-urns lists its URNs", stack, urn)
}

func runStateDelete(ctx context.Context, inv *invocation, args []string) error {
	if len(args) != 1 {
		return usagef("gw state delete takes the resource's URN")
	}
	o := &inv.opts
	urn := resource.URN(args[0])
	var gone []resource.URN
	err := editState(ctx, inv, func(snap *state.Snapshot) ([]state.Entry, error) {
		target, err := liveResource(snap, o.stack, urn)
		if err != nil {
			return nil, err
		}
		g, err := resource.NewGraph(snap.Resources)
		if err != nil {
			return nil, err
		}
		dependents := g.TransitiveDependents(urn)
		if len(dependents) > 0 && !o.targetDependents {
			return nil, fmt.Errorf("%s is needed by %s: delete them from the state too with --target-dependents, or delete them first",
				urn, urnList(dependents))
		}
		doomed := map[resource.URN]bool{urn: true}
		for _, d := range dependents {
			doomed[d] = true
		}
		var entries []state.Entry
		// Dependents first: the snapshot lists a resource after what it
		// needs, so the entries go in reverse.
		for _, r := range slices.Backward(snap.Resources) {
			if !doomed[r.URN] || r.Delete && r != target {
				continue
			}
			if r.Protect && !o.force {
				return nil, fmt.Errorf("%s is protected: unprotect it with gw state unprotect %q, or pass --force", r.URN, string(r.URN))
			}
			entries = append(entries, state.Entry{Kind: state.EntryWrite, Old: r})
			gone = append(gone, r.URN)
		}
		return entries, nil
	})
	if err != nil {
		return err
	}
	for _, u := range gone {
		fmt.Fprintf(inv.stdout, "Deleted %s from the state (the resource itself is left as it is).\n", u)
	}
	return nil
}

// urnList names the URNs, at most a few.
func urnList(urns []resource.URN) string {
	const most = 5
	names := make([]string, 0, most)
	for i, u := range urns {
		if i == most {
			names = append(names, fmt.Sprintf("%d more", len(urns)-most))
			break
		}
		names = append(names, string(u))
	}
	return strings.Join(names, ", ")
}

// runStateProtect is state protect (protect set) or unprotect.
func runStateProtect(protect bool) runFunc {
	return func(ctx context.Context, inv *invocation, args []string) error {
		o := &inv.opts
		verb := map[bool]string{true: "protect", false: "unprotect"}[protect]
		switch {
		case o.all && len(args) > 0:
			return usagef("gw state unprotect takes a URN or --all, not both")
		case !o.all && len(args) != 1:
			return usagef("gw state %s takes the resource's URN", verb)
		}
		var changed []resource.URN
		err := editState(ctx, inv, func(snap *state.Snapshot) ([]state.Entry, error) {
			targets := snap.Resources
			if !o.all {
				r, err := liveResource(snap, o.stack, resource.URN(args[0]))
				if err != nil {
					return nil, err
				}
				targets = []*resource.State{r}
			}
			var entries []state.Entry
			for _, r := range targets {
				if r.Delete || r.Protect == protect {
					continue
				}
				c := r.Clone()
				c.Protect = protect
				entries = append(entries, state.Entry{Kind: state.EntryWrite, Old: r, New: c})
				changed = append(changed, r.URN)
			}
			return entries, nil
		})
		if err != nil {
			return err
		}
		if len(changed) == 0 {
			fmt.Fprintf(inv.stdout, "Nothing to %s.\n", verb)
		}
		for _, u := range changed {
			fmt.Fprintf(inv.stdout, "%s: %s\n", map[bool]string{true: "Protected", false: "Unprotected"}[protect], u)
		}
		return nil
	}
}

func runStateRename(ctx context.Context, inv *invocation, args []string) error {
	if len(args) != 2 {
		return usagef("gw state rename takes the resource's URN and its NEW-NAME")
	}
	o := &inv.opts
	from := resource.URN(args[0])
	name := args[1]
	if name == "" || strings.Contains(name, "::") {
		return usagef("%q cannot be a resource's name", name)
	}
	var to resource.URN
	err := editState(ctx, inv, func(snap *state.Snapshot) ([]state.Entry, error) {
		target, err := liveResource(snap, o.stack, from)
		if err != nil {
			return nil, err
		}
		to = resource.URN(string(from)[:strings.LastIndex(string(from), "::")+2] + name)
		for _, r := range snap.Resources {
			if r.URN == to {
				return nil, fmt.Errorf("stack %s already has a resource %s", o.stack, to)
			}
		}
		rename := func(u resource.URN) resource.URN {
			if u == from {
				return to
			}
			return u
		}
		entries := []state.Entry{{Kind: state.EntryWrite, Old: target, New: rewriteURNs(target, rename)}}
		for _, r := range snap.Resources {
			if r == target {
				continue
			}
			if c := rewriteURNs(r, rename); refersTo(r, from) {
				entries = append(entries, state.Entry{Kind: state.EntryWrite, Old: r, New: c})
			}
		}
		return entries, nil
	})
	if err != nil {
		return err
	}
	fmt.Fprintf(inv.stdout, "Renamed %s to %s in the state: rename it in the program too.\n", from, to)
	return nil
}

// refersTo reports whether r refers to urn: as its parent, a dependency,
// a property dependency, the resource it is deleted with, or its provider.
func refersTo(r *resource.State, urn resource.URN) bool {
	if r.Parent == urn || r.DeletedWith == urn || slices.Contains(r.Dependencies, urn) {
		return true
	}
	for _, deps := range r.PropertyDependencies {
		if slices.Contains(deps, urn) {
			return true
		}
	}
	i := strings.LastIndex(r.Provider, "::")
	return i >= 0 && resource.URN(r.Provider[:i]) == urn
}
