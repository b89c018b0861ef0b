package main

import (
	"context"
	"errors"
	"fmt"
	"net/url"

	"github.com/groundwork-iac/groundwork/state"
)

// runUnlock removes the stack's lock: one whose holder is provably gone at
// once, one whose holder cannot be checked (on another machine) only with
// --force, one whose holder still runs on this machine never.
func runUnlock(ctx context.Context, inv *invocation, args []string) error {
	if len(args) > 0 {
		return usagef("gw unlock takes no arguments")
	}
	o := &inv.opts
	store, err := openStore(ctx, o)
	if err != nil {
		return err
	}
	defer store.Close()
	breaker, ok := store.(state.LockBreaker)
	if !ok {
		return fmt.Errorf("the store at %s keeps no locks that outlive their holder", o.stateURL)
	}
	err = breaker.BreakLock(ctx, o.stack)
	var locked *state.LockedError
	switch {
	case err == nil:
		fmt.Fprintf(inv.stdout, "Stack %s is unlocked.\n", o.stack)
		return nil
	case !errors.As(err, &locked):
		return err
	case locked.Running:
		return fmt.Errorf("%w", locked)
	case !o.force:
		return fmt.Errorf("stack %s is locked by process %d on host %q, running %q since %s, which gw cannot check from here: "+
			"if it is no longer running, pass --force", o.stack, locked.Holder.PID, locked.Holder.Host, locked.Holder.Operation,
			locked.Holder.Time.Format("2006-01-02 15:04:05 MST"))
	}
	forcer, ok := store.(state.ForceUnlocker)
	if !ok {
		return fmt.Errorf("the store at %s cannot remove a lock by force", o.stateURL)
	}
	if err := forcer.ForceUnlock(ctx, o.stack, locked.Holder.Token); err != nil {
		return err
	}
	fmt.Fprintf(inv.stdout, "Removed the lock of stack %s held by process %d on host %q (%s since %s).\n", o.stack,
		locked.Holder.PID, locked.Holder.Host, locked.Holder.Operation, locked.Holder.Time.Format("2006-01-02 15:04:05 MST"))
	return nil
}

// unlockHint is how lock errors tell gw's users to remove a lock.
func unlockHint(o *options) string {
	cmd := "gw unlock --force"
	if o.stack != defaultStack {
		cmd += " --stack " + o.stack
	}
	if o.stateURL != defaultState {
		state := o.stateURL
		if u, err := url.Parse(state); err == nil && u.User != nil {
			state = u.Redacted() // never a password in a message
		}
		cmd += " --state " + state
	}
	return fmt.Sprintf("run %q", cmd)
}
