package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/groundwork-iac/groundwork/state"
)

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
		return fmt.Errorf("the store at %s has no locks to break", o.stateURL)
	}
	err = breaker.BreakLock(ctx, o.stack)
	var locked *state.LockedError
	if err != nil && errors.As(err, &locked) {
		return err
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(inv.stdout, "Stack %s is unlocked.\n", o.stack)
	return nil
}
