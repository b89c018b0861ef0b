package main

import (
	"context"
	"errors"
	"fmt"
	"net/url"

	"github.com/groundwork-iac/groundwork/state"
)

// runUnlock removes the stack's lock: one whose holder is provably gone at
// once (its PID is free, or runs a process started later than the lock
// records), one whose holder cannot be checked (on another machine, or a
// lock without a start time whose PID runs) only with --force, one whose
// holder provably still runs on this machine never.
func runUnlock(ctx context.Context, inv *invocation, args []string) error {
	if len(args) > 0 {
		return usagef("gw unlock takes no arguments")
	}
	o := &inv.opts
	id, err := stackID(o)
	if err != nil {
		return err
	}
	store, err := openStore(ctx, o)
	if err != nil {
		return err
	}
	defer store.Close()
	breaker, ok := store.(state.LockBreaker)
	if !ok {
		return fmt.Errorf("the store at %s keeps no locks that outlive their holder", o.stateURL)
	}
	err = breaker.BreakLock(ctx, id)
	var locked *state.LockedError
	switch {
	case err == nil:
		fmt.Fprintf(inv.stdout, "Stack %s is unlocked.\n", o.stack)
		return nil
	case !errors.As(err, &locked):
		return err
	case locked.Running:
		return fmt.Errorf("%w", locked)
	case locked.PIDInUse && !o.force:
		return fmt.Errorf("stack %s is locked by process %d, running %q since %s; a process with that PID runs, but the lock "+
			"does not record when its holder started, so gw cannot tell whether it is the holder or a later process given the same PID: "+
			"if the operation is no longer running, pass --force", o.stack, locked.Holder.PID, locked.Holder.Operation,
			locked.Holder.Time.Format("2006-01-02 15:04:05 MST"))
	case !o.force:
		return fmt.Errorf("stack %s is locked by process %d on host %q, running %q since %s, which gw cannot check from here: "+
			"if it is no longer running, pass --force", o.stack, locked.Holder.PID, locked.Holder.Host, locked.Holder.Operation,
			locked.Holder.Time.Format("2006-01-02 15:04:05 MST"))
	}
	forcer, ok := store.(state.ForceUnlocker)
	if !ok {
		return fmt.Errorf("the store at %s cannot remove a lock by force", o.stateURL)
	}
	if err := forcer.ForceUnlock(ctx, id, locked.Holder.Token); err != nil {
		return err
	}
	fmt.Fprintf(inv.stdout, "Removed the lock of stack %s held by process %d on host %q (%s since %s).\n", o.stack,
		locked.Holder.PID, locked.Holder.Host, locked.Holder.Operation, locked.Holder.Time.Format("2006-01-02 15:04:05 MST"))
	return nil
}

// stackID names the stack of --project (or ./Pulumi.yaml) and --stack.
func stackID(o *options) (state.StackID, error) {
	if _, err := openProject(o); err != nil {
		return state.StackID{}, err
	}
	return state.StackID{Project: o.project, Stack: o.stack}, nil
}

// unlockHint is how lock errors tell gw's users to remove a lock.
func unlockHint(o *options) string {
	cmd := "gw unlock --force"
	if o.stack != defaultStack {
		cmd += " --stack " + o.stack
	}
	return fmt.Sprintf("run %q", cmd+stateArg(o))
}

// stateArg is " --state URL" for a command gw suggests, when --state names
// a store other than the default; else "".
func stateArg(o *options) string {
	if o.stateURL == defaultState {
		return ""
	}
	state := o.stateURL
	if u, err := url.Parse(state); err == nil && u.User != nil {
		state = u.Redacted() // never a password in a message
	}
	return " --state " + state
}
