package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/pflag"

	"github.com/groundwork-iac/groundwork/resource"
	"github.com/groundwork-iac/groundwork/state"
	"github.com/groundwork-iac/groundwork/state/storeurl"
)

// This file is a stack's life: gw stack (show), ls, init, select, rm and
// rename.

func stackShowFlags(fs *pflag.FlagSet, o *options) {
	stateFlags(fs, o)
	fs.BoolVar(&o.showURNs, "show-urns", false, "show the resources' URNs")
	fs.BoolVar(&o.showSecrets, "show-secrets", false, "show secret outputs in plaintext")
}

func stackListFlags(fs *pflag.FlagSet, o *options) {
	stateFlags(fs, o)
}

func stackSelectFlags(fs *pflag.FlagSet, o *options) {
	stateFlags(fs, o)
	fs.BoolVar(&o.create, "create", false, "create the stack if it does not exist")
}

func stackRmFlags(fs *pflag.FlagSet, o *options) {
	stateFlags(fs, o)
	fs.BoolVarP(&o.force, "force", "f", false, "remove the stack even if it still has resources (they are forgotten, not deleted)")
	fs.BoolVarP(&o.yes, "yes", "y", false, "remove without asking")
	fs.BoolVar(&o.preserveConfig, "preserve-config", false, "keep the stack's Pulumi.<stack>.yaml")
}

// openStacks reads the project (if there is one) and opens the store.
func openStacks(ctx context.Context, o *options) (project, storeurl.Store, error) {
	wd, err := os.Getwd()
	if err != nil {
		return project{}, nil, err
	}
	proj, err := findProject(wd)
	if err != nil {
		return project{}, nil, err
	}
	if o.project == "" {
		o.project = proj.Name
	}
	store, err := openStore(ctx, o)
	return proj, store, err
}

// stackExists reports whether the store has the stack.
func stackExists(ctx context.Context, store state.Store, id state.StackID) (bool, error) {
	stacks, err := store.List(ctx)
	return slices.Contains(stacks, id), err
}

// projectStack is the stack of the project gw works on named name.
func projectStack(o *options, name string) state.StackID {
	return state.StackID{Project: o.project, Stack: name}
}

// loadExisting loads the stack, or fails with noStack if the store does
// not have it.
func loadExisting(ctx context.Context, store state.Store, id state.StackID) (*state.Snapshot, error) {
	exists, err := stackExists(ctx, store, id)
	if err != nil {
		return nil, err
	}
	if !exists {
		return nil, noStack(id.Stack)
	}
	return store.Load(ctx, id)
}

// noStack is the error of a stack the store does not have.
func noStack(name string) error {
	return fmt.Errorf("no stack named %s: gw stack ls lists the stacks, gw stack init %s creates it", name, name)
}

func runStackList(ctx context.Context, inv *invocation, args []string) error {
	if len(args) > 0 {
		return usagef("gw stack ls takes no arguments")
	}
	o := &inv.opts
	proj, store, err := openStacks(ctx, o)
	if err != nil {
		return err
	}
	defer store.Close()
	stacks, err := store.List(ctx)
	if err != nil {
		return err
	}
	current, err := selectedStack(proj.Dir)
	if err != nil {
		return err
	}
	if current == "" {
		current = o.stack
	}
	tw := tabwriter.NewWriter(inv.stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tPROJECT\tLAST UPDATE\tRESOURCE COUNT")
	now := time.Now()
	for _, id := range stacks {
		if id.Project != o.project {
			continue // the stacks of other projects that share the store
		}
		shown := id.Stack
		if id.Stack == current {
			shown += "*"
		}
		project, updated, count := id.Project, "n/a", "n/a"
		if snap, err := store.Load(ctx, id); err != nil {
			updated = "unreadable: " + forCLI(err.Error())
		} else {
			if !snap.Manifest.Time.IsZero() {
				updated = ago(now, snap.Manifest.Time)
			}
			count = fmt.Sprint(len(snap.Resources))
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", shown, project, updated, count)
	}
	return tw.Flush()
}

// snapshotProject is the project the snapshot's resources belong to, ""
// if it has none.
func snapshotProject(snap *state.Snapshot) string {
	for _, r := range snap.Resources {
		if p := r.URN.Project(); p != "" {
			return p
		}
	}
	return ""
}

// ago says how long before now t was, as the Pulumi CLI does.
func ago(now, t time.Time) string {
	d := now.Sub(t)
	unit := func(n int, name string) string {
		if n == 1 {
			return "1 " + name + " ago"
		}
		return fmt.Sprintf("%d %ss ago", n, name)
	}
	switch {
	case d < 5*time.Second:
		return "just now"
	case d < time.Minute:
		return unit(int(d/time.Second), "second")
	case d < time.Hour:
		return unit(int(d/time.Minute), "minute")
	case d < 24*time.Hour:
		return unit(int(d/time.Hour), "hour")
	}
	return unit(int(d/(24*time.Hour)), "day")
}

func runStackInit(ctx context.Context, inv *invocation, args []string) error {
	if len(args) != 1 {
		return usagef("gw stack init takes the stack's NAME")
	}
	o := &inv.opts
	o.stack = args[0]
	if err := state.CheckStackName(o.stack); err != nil {
		return &usageError{msg: err.Error()}
	}
	proj, store, err := openStacks(ctx, o)
	if err != nil {
		return err
	}
	defer store.Close()
	if err := initStack(ctx, store, projectStack(o, o.stack)); err != nil {
		return err
	}
	if err := selectStack(proj.Dir, o.stack); err != nil {
		return err
	}
	fmt.Fprintf(inv.stdout, "Created stack %s and selected it.\n", o.stack)
	return nil
}

// initStack records an empty state for a new stack.
func initStack(ctx context.Context, store state.Store, id state.StackID) error {
	exists, err := stackExists(ctx, store, id)
	if err != nil {
		return err
	}
	if exists {
		return fmt.Errorf("stack %s already exists: select it with gw stack select %s", id.Stack, id.Stack)
	}
	return store.Save(ctx, id, &state.Snapshot{})
}

func runStackSelect(ctx context.Context, inv *invocation, args []string) error {
	if len(args) != 1 {
		return usagef("gw stack select takes the stack's NAME")
	}
	o := &inv.opts
	o.stack = args[0]
	proj, store, err := openStacks(ctx, o)
	if err != nil {
		return err
	}
	defer store.Close()
	exists, err := stackExists(ctx, store, projectStack(o, o.stack))
	switch {
	case err != nil:
		return err
	case !exists && !o.create:
		return fmt.Errorf("no stack named %s: create it with gw stack init %s (or gw stack select --create %s)", o.stack, o.stack, o.stack)
	case !exists:
		if err := initStack(ctx, store, projectStack(o, o.stack)); err != nil {
			return err
		}
	}
	if err := selectStack(proj.Dir, o.stack); err != nil {
		return err
	}
	fmt.Fprintf(inv.stdout, "Selected stack %s.\n", o.stack)
	return nil
}

func runStackRm(ctx context.Context, inv *invocation, args []string) error {
	if len(args) > 1 {
		return usagef("gw stack rm takes at most the stack's NAME")
	}
	o := &inv.opts
	if len(args) == 1 {
		o.stack = args[0]
	}
	proj, store, err := openStacks(ctx, o)
	if err != nil {
		return err
	}
	defer store.Close()
	id := projectStack(o, o.stack)
	snap, err := loadExisting(ctx, store, id)
	if err != nil {
		return err
	}
	if n := len(snap.Resources); n > 0 && !o.force {
		return fmt.Errorf("stack %s still has %d resources: delete them with \"gw destroy --stack %s%s\" first, "+
			"or pass --force to remove the stack and forget them (they are not deleted)", o.stack, n, o.stack, stateArg(o))
	}
	if !o.yes {
		if err := confirmName(ctx, inv, o.stack); err != nil {
			return err
		}
	}
	if err := store.Remove(ctx, id); err != nil {
		return err
	}
	if !o.preserveConfig {
		if err := os.Remove(filepath.Join(proj.Dir, configFileName(o.stack))); err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
	}
	if current, err := selectedStack(proj.Dir); err == nil && current == o.stack {
		if err := selectStack(proj.Dir, ""); err != nil {
			return err
		}
	}
	fmt.Fprintf(inv.stdout, "Removed stack %s.\n", o.stack)
	return nil
}

// confirmName asks for the stack's name before removing it; without a
// terminal to ask on, --yes is required.
func confirmName(ctx context.Context, inv *invocation, name string) error {
	if !isTerminal(inv.stdin) {
		return usagef("gw stack rm removes stack %s for good, and there is no terminal to confirm on: pass --yes", name)
	}
	fmt.Fprintf(inv.stdout, "This removes stack %s and its state for good. Type its name to confirm: ", name)
	answer, err := askLine(ctx, inv.stdin)
	if err != nil || answer != name {
		return errors.New("cancelled: nothing was removed")
	}
	return nil
}

func runStackRename(ctx context.Context, inv *invocation, args []string) error {
	if len(args) != 1 {
		return usagef("gw stack rename takes the NEW-NAME")
	}
	o := &inv.opts
	to := args[0]
	if err := state.CheckStackName(to); err != nil {
		return &usageError{msg: err.Error()}
	}
	proj, store, err := openStacks(ctx, o)
	if err != nil {
		return err
	}
	defer store.Close()
	stacks, err := store.List(ctx)
	switch {
	case err != nil:
		return err
	case !slices.Contains(stacks, projectStack(o, o.stack)):
		return noStack(o.stack)
	case slices.Contains(stacks, projectStack(o, to)):
		return fmt.Errorf("stack %s already exists: remove it or choose another name", to)
	}
	lock, err := store.Lock(ctx, projectStack(o, o.stack), "rename")
	if err != nil {
		return err
	}
	defer lock.Unlock(ctx)
	snap, err := store.Load(ctx, projectStack(o, o.stack))
	if err != nil {
		return err
	}
	// The new stack exists, complete, before the old one is removed.
	if err := store.Save(ctx, projectStack(o, to), renamedSnapshot(snap, o.stack, to)); err != nil {
		return err
	}
	if err := carryHistory(ctx, store, projectStack(o, o.stack), projectStack(o, to)); err != nil {
		return err
	}
	from := filepath.Join(proj.Dir, configFileName(o.stack))
	if err := os.Rename(from, filepath.Join(proj.Dir, configFileName(to))); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	if err := lock.Unlock(ctx); err != nil {
		return err
	}
	if err := store.Remove(ctx, projectStack(o, o.stack)); err != nil {
		return fmt.Errorf("stack %s is renamed %s, but the old one could not be removed: %w", o.stack, to, err)
	}
	if current, err := selectedStack(proj.Dir); err == nil && current == o.stack {
		if err := selectStack(proj.Dir, to); err != nil {
			return err
		}
	}
	fmt.Fprintf(inv.stdout, "Renamed stack %s to %s.\n", o.stack, to)
	return nil
}

// renamedSnapshot is snap with every URN of stack from renamed to stack
// to: the resources', and every reference to them. The stack's root
// resource, named <project>-<stack>, takes the new stack's name, as the
// engine names it.
func renamedSnapshot(snap *state.Snapshot, from, to string) *state.Snapshot {
	prefix := "urn:pulumi:" + from + "::"
	urn := func(u resource.URN) resource.URN {
		rest, ok := strings.CutPrefix(string(u), prefix)
		if !ok {
			return u
		}
		renamed := resource.URN("urn:pulumi:" + to + "::" + rest)
		if project := u.Project(); renamed.QualifiedType() == "pulumi:pulumi:Stack" && u.Name() == project+"-"+from {
			renamed = resource.URN(strings.TrimSuffix(string(renamed), from) + to)
		}
		return renamed
	}
	out := *snap
	out.Resources = make([]*resource.State, len(snap.Resources))
	for i, r := range snap.Resources {
		out.Resources[i] = rewriteURNs(r, urn)
	}
	out.PendingOperations = slices.Clone(snap.PendingOperations)
	for i, op := range out.PendingOperations {
		out.PendingOperations[i].Resource = rewriteURNs(op.Resource, urn)
	}
	return &out
}

// rewriteURNs is a copy of r whose URN and references to other resources
// are mapped by urn.
func rewriteURNs(r *resource.State, urn func(resource.URN) resource.URN) *resource.State {
	if r == nil {
		return nil
	}
	c := r.Clone()
	c.URN, c.Parent, c.DeletedWith = urn(r.URN), urn(r.Parent), urn(r.DeletedWith)
	for i, d := range c.Dependencies {
		c.Dependencies[i] = urn(d)
	}
	for _, deps := range c.PropertyDependencies {
		for i, d := range deps {
			deps[i] = urn(d)
		}
	}
	for i, a := range c.Aliases {
		c.Aliases[i] = urn(a)
	}
	// A provider reference is "<URN>::<ID>", split at its last "::".
	if i := strings.LastIndex(c.Provider, "::"); i >= 0 {
		c.Provider = string(urn(resource.URN(c.Provider[:i]))) + c.Provider[i:]
	}
	return c
}

func runStackShow(ctx context.Context, inv *invocation, args []string) error {
	o := &inv.opts
	_, store, err := openStacks(ctx, o)
	if err != nil {
		return err
	}
	defer store.Close()
	id := projectStack(o, o.stack)
	snap, err := loadExisting(ctx, store, id)
	if err != nil {
		return err
	}
	w := inv.stdout
	fmt.Fprintf(w, "Current stack is %s:\n", o.stack)
	if t := snap.Manifest.Time; !t.IsZero() {
		fmt.Fprintf(w, "    Last updated: %s (%s)\n", ago(time.Now(), t), t.Format("2006-01-02 15:04:05 MST"))
	}
	if snap.Secrets != nil {
		fmt.Fprintln(w, "    Secrets are encrypted with a passphrase")
	}
	fmt.Fprintf(w, "Current stack resources (%d):\n", len(snap.Resources))
	if len(snap.Resources) == 0 {
		fmt.Fprintln(w, "    No resources.")
	} else {
		width := len("TYPE")
		for _, r := range snap.Resources {
			width = max(width, len(r.Type))
		}
		fmt.Fprintf(w, "    %-*s   NAME\n", width, "TYPE")
		for _, r := range snap.Resources {
			name := r.URN.Name()
			if r.Delete {
				name += " (pending deletion)"
			}
			fmt.Fprintf(w, "    %-*s   %s\n", width, r.Type, name)
			if o.showURNs {
				fmt.Fprintf(w, "        URN: %s\n", r.URN)
			}
		}
	}
	for _, r := range snap.Resources {
		if r.Type == "pulumi:pulumi:Stack" && r.Parent == "" && len(r.Outputs) > 0 {
			fmt.Fprintf(w, "Current stack outputs (%d):\n", len(r.Outputs))
			tw := tabwriter.NewWriter(w, 0, 0, 3, ' ', 0)
			fmt.Fprintln(tw, "    OUTPUT\tVALUE")
			for _, k := range r.Outputs.StableKeys() {
				fmt.Fprintf(tw, "    %s\t%s\n", k, formatValue(r.Outputs[k], o.showSecrets))
			}
			if err := tw.Flush(); err != nil {
				return err
			}
		}
	}
	if !o.showURNs && len(snap.Resources) > 0 {
		fmt.Fprintln(w, "\nMore information with gw stack --show-urns.")
	}
	return nil
}
