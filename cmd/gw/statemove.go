package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/groundwork-iac/groundwork/resource"
	"github.com/groundwork-iac/groundwork/state"
)

// This file is "gw state move": resources leave one stack's state for
// another's, as the Pulumi CLI's "pulumi state move" moves them. Both
// stacks are locked; the destination is written first, then the source,
// each as one journaled operation, so that a crash between the two leaves
// the resources recorded twice, never nowhere.

// moveOptions are the flags of gw state move.
type moveOptions struct {
	source, dest   string
	includeParents bool
}

func stateMoveCommand(inv *invocation) *cobra.Command {
	return inv.leaf(&cobra.Command{Use: "move [flags] URN...", Short: "move resources from one stack's state to another's",
		Long: `Move takes resources out of the state of the --source stack and records them
in the --dest stack (either defaults to the current stack), with their URNs
rewritten to the destination's stack and project ("PROJECT/STACK" names a
stack of another project in the same state). The resources themselves are
not touched. A resource's children move with it; with --include-parents its
parents do too. Providers are copied, not moved; the stack's root resource
never moves.

Dependencies between what moves and what stays are dropped, and listed:
give the destination's program the inputs it then needs from the source's
outputs (or the other way round). Both stacks are locked for the move. The
destination is written first and the source after it, so that if gw is
stopped between the two the resources are recorded in both stacks, never in
neither: delete them from the source with gw state delete.`,
	}, stateMoveFlags, runStateMove, noProgram)
}

func stateMoveFlags(fs *pflag.FlagSet, o *options) {
	stateFlags(fs, o)
	fs.StringVar(&o.move.source, "source", "", "the `stack` to move the resources from (default: the current stack)")
	fs.StringVar(&o.move.dest, "dest", "", "the `stack` to move the resources to (default: the current stack)")
	fs.BoolVar(&o.move.includeParents, "include-parents", false, "move the resources' parents too")
	fs.BoolVarP(&o.yes, "yes", "y", false, "move without asking")
}

// moveStack reads a --source or --dest value: "STACK" (of the project gw
// works on) or "PROJECT/STACK".
func moveStack(o *options, flag, value string) (state.StackID, error) {
	if value == "" {
		value = o.stack
	}
	id := projectStack(o, value)
	if p, s, ok := strings.Cut(value, "/"); ok {
		id = state.StackID{Project: p, Stack: s}
	}
	if err := state.CheckStackName(id.Stack); err != nil || id.Project == "" {
		return id, usagef("--%s %q names no stack: give a stack's name, or PROJECT/STACK", flag, value)
	}
	return id, nil
}

// stackName is how gw names a stack to its user: by name, with its
// project when it is not the project gw works on.
func stackName(o *options, id state.StackID) string {
	if id.Project == o.project {
		return id.Stack
	}
	return id.Project + "/" + id.Stack
}

// brokenDependency is a dependency that a move drops because it would
// cross from one stack to the other.
type brokenDependency struct {
	from, on resource.URN
	kind     string // "dependency", "property dependency" or "deleted with"
	key      resource.PropertyKey
}

func (b brokenDependency) String() string {
	switch b.kind {
	case "property dependency":
		return fmt.Sprintf("%s (%s) has a property dependency on %s", b.from, b.key, b.on)
	case "deleted with":
		return fmt.Sprintf("%s is marked as deleted with %s", b.from, b.on)
	}
	return fmt.Sprintf("%s has a dependency on %s", b.from, b.on)
}

// dropDependencies returns r without its dependencies on the resources
// gone reports, and the dependencies it dropped. r itself is not changed.
func dropDependencies(r *resource.State, gone func(resource.URN) bool) (*resource.State, []brokenDependency) {
	var broken []brokenDependency
	c := r.Clone()
	c.Dependencies = slices.DeleteFunc(c.Dependencies, func(u resource.URN) bool {
		if gone(u) {
			broken = append(broken, brokenDependency{from: r.URN, on: u, kind: "dependency"})
			return true
		}
		return false
	})
	keys := make([]resource.PropertyKey, 0, len(c.PropertyDependencies))
	for k := range c.PropertyDependencies {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		kept := slices.DeleteFunc(c.PropertyDependencies[k], func(u resource.URN) bool {
			if gone(u) {
				broken = append(broken, brokenDependency{from: r.URN, on: u, kind: "property dependency", key: k})
				return true
			}
			return false
		})
		if len(kept) == 0 {
			delete(c.PropertyDependencies, k)
		} else {
			c.PropertyDependencies[k] = kept
		}
	}
	if c.DeletedWith != "" && gone(c.DeletedWith) {
		broken = append(broken, brokenDependency{from: r.URN, on: c.DeletedWith, kind: "deleted with"})
		c.DeletedWith = ""
	}
	return c, broken
}

// movePlan is what a move records: the entries of each stack, and what it
// tells its user.
type movePlan struct {
	moved         []resource.URN // as the source knows them
	destEntries   []state.Entry
	sourceEntries []state.Entry
	brokenSource  []brokenDependency // remaining in the source, on moved ones
	brokenDest    []brokenDependency // moved, on ones remaining in the source
	warnings      []string
}

// planMove works out the move of the resources urns name from src (of
// stack from) to dst (of stack to).
func planMove(src, dst *state.Snapshot, from, to state.StackID, urns []string, includeParents bool) (*movePlan, error) {
	p := &movePlan{}
	byURN := map[resource.URN]*resource.State{}
	children := map[resource.URN][]*resource.State{}
	for _, r := range src.Resources {
		if r.Delete {
			continue
		}
		byURN[r.URN] = r
		if r.Parent != "" {
			children[r.Parent] = append(children[r.Parent], r)
		}
	}
	isRoot := func(r *resource.State) bool { return r.Type == resource.RootStackType && r.Parent == "" }
	moving := map[resource.URN]bool{}
	for _, arg := range urns {
		r, ok := byURN[resource.URN(arg)]
		switch {
		case !ok:
			p.warnings = append(p.warnings, fmt.Sprintf("warning: Resource %s not found in source stack", arg))
		case strings.HasPrefix(r.Type, "pulumi:providers:"):
			return nil, fmt.Errorf("%s is a provider: providers are not moved, they are copied with the resources that use them", arg)
		case isRoot(r):
			// The root resource stays: the destination has its own.
		default:
			moving[r.URN] = true
		}
	}
	if len(moving) == 0 {
		return p, errors.New("no resources found to move: gw stack --show-urns lists the source stack's URNs")
	}
	if includeParents {
		for u := range maps.Clone(moving) {
			for r := byURN[byURN[u].Parent]; r != nil && !isRoot(r); r = byURN[r.Parent] {
				moving[r.URN] = true
			}
		}
	}
	// Children move with their parents, all the way down.
	queue := slices.Collect(maps.Keys(moving))
	for len(queue) > 0 {
		u := queue[0]
		queue = queue[1:]
		for _, c := range children[u] {
			if !moving[c.URN] {
				moving[c.URN] = true
				queue = append(queue, c.URN)
			}
		}
	}
	for _, op := range src.PendingOperations {
		if op.Resource != nil && moving[op.Resource.URN] {
			return nil, fmt.Errorf("%s has an operation that was interrupted: run gw refresh on the source stack first", op.Resource.URN)
		}
	}

	// The destination's root resource, made if it has none and a moved
	// resource needs a parent there.
	var destRoot *resource.State
	destByURN := map[resource.URN]*resource.State{}
	for _, r := range dst.Resources {
		if r.Delete {
			continue
		}
		destByURN[r.URN] = r
		if isRoot(r) {
			destRoot = r
		}
	}
	root := func() resource.URN {
		if destRoot == nil {
			destRoot = &resource.State{Type: resource.RootStackType, URN: resource.NewURN(to.Stack, to.Project, "", resource.RootStackType, to.Project+"-"+to.Stack)}
			p.destEntries = append(p.destEntries, state.Entry{Kind: state.EntryWrite, New: destRoot})
		}
		return destRoot.URN
	}
	rename := func(u resource.URN) resource.URN {
		if u == "" {
			return ""
		}
		return u.RenameStack(to.Stack).RenameProject(to.Project)
	}
	// reparent moves a record's parent to the destination's root when its
	// parent stays behind.
	reparent := func(r *resource.State) {
		if r.Parent != "" && !moving[r.Parent] {
			r.Parent = root()
		}
	}

	// Providers of moved resources are copied, unless the destination
	// has them already (the same one, or one with the same inputs).
	providerRef := map[string]string{}
	for _, r := range src.Resources {
		if !moving[r.URN] || r.Provider == "" || providerRef[r.Provider] != "" {
			continue
		}
		i := strings.LastIndex(r.Provider, "::")
		prov := byURN[resource.URN(r.Provider[:i])]
		if prov == nil || string(prov.ID) != r.Provider[i+2:] {
			return nil, fmt.Errorf("%s refers to provider %s, which the source stack does not record", r.URN, r.Provider)
		}
		c := prov.Clone()
		reparent(c)
		c = rewriteURNs(c, rename)
		ref := string(c.URN) + "::" + string(c.ID)
		if have := destByURN[c.URN]; have != nil {
			if have.ID != c.ID && !have.Inputs.DeepEquals(c.Inputs) {
				return nil, fmt.Errorf("provider %s already exists in the destination stack, with other settings", c.URN)
			}
			ref = string(have.URN) + "::" + string(have.ID)
		} else {
			p.destEntries = append(p.destEntries, state.Entry{Kind: state.EntryWrite, New: c})
			destByURN[c.URN] = c
		}
		providerRef[r.Provider] = ref
	}

	// The moved resources, in the source's order, so that each comes
	// after what it needs.
	var gone []*resource.State
	for _, r := range src.Resources {
		if r.Delete || !moving[r.URN] {
			continue
		}
		c, broken := dropDependencies(r, func(u resource.URN) bool { _, ok := byURN[u]; return ok && !moving[u] })
		p.brokenDest = append(p.brokenDest, broken...)
		reparent(c)
		c = rewriteURNs(c, rename)
		if ref, ok := providerRef[r.Provider]; ok {
			c.Provider = ref
		}
		if destByURN[c.URN] != nil {
			return nil, fmt.Errorf("resource %s already exists in the destination stack", c.URN)
		}
		destByURN[c.URN] = c
		p.destEntries = append(p.destEntries, state.Entry{Kind: state.EntryWrite, New: c})
		p.moved = append(p.moved, r.URN)
		gone = append(gone, r)
	}

	// What stays loses its dependencies on what moves; then what moves
	// leaves, in one entry.
	for _, r := range src.Resources {
		if moving[r.URN] && !r.Delete {
			continue
		}
		c, broken := dropDependencies(r, func(u resource.URN) bool { return moving[u] })
		if len(broken) > 0 {
			p.brokenSource = append(p.brokenSource, broken...)
			p.sourceEntries = append(p.sourceEntries, state.Entry{Kind: state.EntryWrite, Old: r, New: c})
		}
	}
	slices.Reverse(gone)
	e := state.Entry{Kind: state.EntryWrite, Old: gone[0]}
	if with := gone[1:]; len(with) > 0 {
		e.With = with
	}
	p.sourceEntries = append(p.sourceEntries, e)
	return p, nil
}

func runStateMove(ctx context.Context, inv *invocation, args []string) error {
	o := &inv.opts
	if len(args) == 0 {
		return usagef("gw state move takes the URNs of the resources to move")
	}
	if o.move.source == "" && o.move.dest == "" {
		return usagef("gw state move needs --source or --dest (the other is the current stack)")
	}
	_, store, err := openStacks(ctx, o)
	if err != nil {
		return err
	}
	defer store.Close()
	from, err := moveStack(o, "source", o.move.source)
	if err != nil {
		return err
	}
	to, err := moveStack(o, "dest", o.move.dest)
	if err != nil {
		return err
	}
	if from == to {
		return usagef("the source and destination are both stack %s: name two stacks", stackName(o, from))
	}
	stacks, err := store.List(ctx)
	if err != nil {
		return err
	}
	for _, id := range []state.StackID{from, to} {
		if !slices.Contains(stacks, id) {
			return noStack(stackName(o, id))
		}
	}
	srcLock, err := store.Lock(ctx, from, "state move")
	if err != nil {
		return err
	}
	defer srcLock.Unlock(ctx)
	dstLock, err := store.Lock(ctx, to, "state move")
	if err != nil {
		return err
	}
	defer dstLock.Unlock(ctx)
	src, err := store.Load(ctx, from)
	if err != nil {
		return err
	}
	dst, err := store.Load(ctx, to)
	if err != nil {
		return err
	}
	p, err := planMove(src, dst, from, to, args, o.move.includeParents)
	if p != nil {
		for _, s := range p.warnings {
			fmt.Fprintln(inv.stdout, s)
		}
	}
	if err != nil {
		return err
	}
	printMovePlan(inv.stdout, p, stackName(o, from), stackName(o, to))
	if !o.yes {
		if err := confirmMove(ctx, inv); err != nil {
			return err
		}
	}
	if err := writeEntries(ctx, store, to, dst, p.destEntries); err != nil {
		return fmt.Errorf("recording the resources in stack %s: %w; nothing was moved, it is safe to try again", stackName(o, to), err)
	}
	if err := writeEntries(ctx, store, from, src, p.sourceEntries); err != nil {
		var cmds []string
		for _, u := range slices.Backward(p.moved) {
			cmds = append(cmds, fmt.Sprintf("gw state delete --stack %s --force --target-dependents '%s'", from.Stack, u))
		}
		return fmt.Errorf("removing the resources from stack %s: %w; they are recorded in both stacks: delete them from %s with\n  %s",
			stackName(o, from), err, stackName(o, from), strings.Join(cmds, "\n  "))
	}
	if err := dstLock.Unlock(ctx); err != nil {
		return err
	}
	if err := srcLock.Unlock(ctx); err != nil {
		return err
	}
	fmt.Fprintf(inv.stdout, "Moved %d resources from %s to %s.\n", len(p.moved), stackName(o, from), stackName(o, to))
	return nil
}

// printMovePlan shows what a move does.
func printMovePlan(w io.Writer, p *movePlan, from, to string) {
	fmt.Fprintf(w, "Planning to move the following resources from %s to %s:\n\n", from, to)
	for _, u := range p.moved {
		fmt.Fprintf(w, "  - %s\n", u)
	}
	fmt.Fprintln(w)
	if len(p.brokenSource) > 0 {
		fmt.Fprintf(w, "The following resources remaining in %s have dependencies on resources moved to %s:\n\n", from, to)
		for _, b := range p.brokenSource {
			fmt.Fprintf(w, "  - %s\n", b)
		}
		fmt.Fprintln(w)
	}
	if len(p.brokenDest) > 0 {
		fmt.Fprintf(w, "The following resources being moved to %s have dependencies on resources in %s:\n\n", to, from)
		for _, b := range p.brokenDest {
			fmt.Fprintf(w, "  - %s\n", b)
		}
		fmt.Fprintln(w)
	}
	if len(p.brokenSource)+len(p.brokenDest) > 0 {
		fmt.Fprintf(w, "These dependencies are dropped: give the program of the stack each resource ends up in the inputs it needs (stack outputs of the other).\n\n")
	}
}

// confirmMove asks whether to go ahead; without a terminal to ask on,
// --yes is required.
func confirmMove(ctx context.Context, inv *invocation) error {
	if !isTerminal(inv.stdin) {
		return usagef("gw state move changes two stacks' state, and there is no terminal to confirm on: pass --yes to go ahead")
	}
	fmt.Fprint(inv.stdout, "Do you want to perform this move? (yes/no) ")
	answer, err := askLine(ctx, inv.stdin)
	if err != nil || answer != "yes" {
		return errors.New("cancelled: nothing was moved")
	}
	return nil
}

// writeEntries records entries on the stack as one journaled operation
// on base, which the caller loaded under the stack's lock.
func writeEntries(ctx context.Context, store state.Store, id state.StackID, base *state.Snapshot, entries []state.Entry) error {
	j, err := store.OpenJournal(ctx, id, base)
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
	return j.Close(ctx)
}
