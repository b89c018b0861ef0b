package main

import (
	"context"
	"fmt"
	"slices"

	"github.com/groundwork-iac/groundwork/display"
	"github.com/groundwork-iac/groundwork/engine"
	"github.com/groundwork-iac/groundwork/resource"
)

// This file turns the operation flags into engine and display options.

// engineOptions are the engine options of the command line. A --target,
// --exclude or --replace that is no URN is a usage error, found before
// anything runs.
func engineOptions(o *options) ([]engine.Option, error) {
	var opts []engine.Option
	if o.parallel > 0 {
		opts = append(opts, engine.Parallelism(o.parallel))
	}
	for _, list := range []struct {
		flag   string
		values []string
		option func(...resource.URN) engine.Option
	}{
		{"--target", o.targets, engine.Targets},
		{"--exclude", o.excludes, engine.Excludes},
		{"--replace", o.replaces, engine.ReplaceTargets},
	} {
		if len(list.values) == 0 {
			continue
		}
		urns := make([]resource.URN, len(list.values))
		for i, v := range list.values {
			u, err := resource.ParseURN(v)
			if err != nil {
				return nil, usagef("%s %q is not a URN: gw stack --show-urns lists the stack's", list.flag, v)
			}
			urns[i] = u
		}
		opts = append(opts, list.option(urns...))
	}
	if o.targetDependents {
		opts = append(opts, engine.TargetDependents())
	}
	if o.expectNoChanges {
		opts = append(opts, engine.ExpectNoChanges())
	}
	if o.refresh {
		opts = append(opts, engine.RefreshFirst())
	}
	if o.continueOnError {
		opts = append(opts, engine.ContinueOnError())
	}
	if o.discardPending {
		opts = append(opts, engine.DiscardPendingCreates())
	}
	if o.message != "" {
		opts = append(opts, engine.Message(o.message))
	}
	return opts, nil
}

// displayOptions are the display options of the command line.
func displayOptions(o *options) (display.Options, error) {
	opts := display.Options{Mode: display.ModeAuto, ShowSames: o.showSames, ShowDebug: o.debug, ShowDiff: o.diff}
	switch {
	case o.json:
		opts.Mode = display.ModeJSON
	case o.nonInteractive:
		opts.Mode = display.ModePlain
	}
	switch o.color {
	case "auto", "":
		opts.Color = display.ColorAuto
	case "always", "raw":
		opts.Color = display.ColorAlways
	case "never":
		opts.Color = display.ColorNever
	default:
		return opts, usagef("--color %q: say auto, always, never or raw", o.color)
	}
	return opts, nil
}

// checkOperationFlags reports a bad flag value before anything runs.
func (o *options) checkOperationFlags() error {
	if _, err := engineOptions(o); err != nil {
		return err
	}
	if _, err := displayOptions(o); err != nil {
		return err
	}
	if o.parallel < 0 {
		return usagef("--parallel must not be negative")
	}
	return nil
}

// refuseProtected is destroy's check, made before anything is deleted, as
// the Pulumi CLI's preview makes it: a stack with protected resources is
// refused, naming them, unless --exclude-protected, which leaves them (and
// what they need) alone. With --target the engine refuses a protected
// target itself.
func refuseProtected(ctx context.Context, s *session, opts []engine.Option) ([]engine.Option, error) {
	o := &s.inv.opts
	if len(o.targets) > 0 {
		return opts, nil
	}
	snap, err := s.store.Load(ctx, projectStack(o, o.stack))
	if err != nil {
		return nil, err
	}
	excluded := map[resource.URN]bool{}
	for _, e := range o.excludes {
		excluded[resource.URN(e)] = true
	}
	var protected []resource.URN
	for _, r := range snap.Resources {
		if r.Protect && !r.Delete && !excluded[r.URN] {
			protected = append(protected, r.URN)
		}
	}
	switch {
	case len(protected) == 0:
		return opts, nil
	case o.excludeProtected:
		kept, err := withDependencies(snap.Resources, protected)
		if err != nil {
			return nil, err
		}
		return append(opts, engine.Excludes(kept...)), nil
	}
	return nil, fmt.Errorf("stack %s has %d protected resources, and destroy deleted nothing: %s. "+
		"Unprotect them with gw state unprotect URN (or --all), or pass --exclude-protected to destroy everything else",
		o.stack, len(protected), urnList(protected))
}

// withDependencies is urns and everything they need, transitively: their
// parents, dependencies, providers and so on.
func withDependencies(states []*resource.State, urns []resource.URN) ([]resource.URN, error) {
	g, err := resource.NewGraph(states)
	if err != nil {
		return nil, err
	}
	seen := map[resource.URN]bool{}
	var out []resource.URN
	for queue := slices.Clone(urns); len(queue) > 0; queue = queue[1:] {
		u := queue[0]
		if seen[u] {
			continue
		}
		seen[u] = true
		out = append(out, u)
		queue = append(queue, g.DependenciesOf(u)...)
	}
	return out, nil
}
