package deploy

import (
	"context"
	"errors"
	"slices"

	"github.com/groundwork-iac/groundwork/plan"
	"github.com/groundwork-iac/groundwork/resource"
	"github.com/groundwork-iac/groundwork/stepgen"
)

// The operation's body tells the generator what the program cannot: that
// the program is over and what it no longer declares goes (Delete), that
// every recorded resource is to be read (Refresh), that every planned step
// must have been taken (PlanKept). Each is a command, an event in the
// loop's inbox carried out on the loop's goroutine, whose caller waits for
// its error.

// command is an event of the operation's body.
type command struct {
	kind commandKind
	// pending are the pending operations a refresh resolves.
	pending []resource.Operation
	// refused receives the answer to cmdRefused.
	refused *[]refusal
	done    chan error
}

// commandKind is what a command asks of the generator.
type commandKind uint8

const (
	cmdRefresh  commandKind = iota // read every recorded resource
	cmdDelete                      // delete what the program no longer declares
	cmdPlanKept                    // check that every planned step was taken
	cmdRefused                     // the deletes refused, and what blocks each
)

// refusal is a delete the generator refused, with the resources whose
// failure spares it from being reported (stepgen's RefusalBlockers).
type refusal struct {
	step     *stepgen.Step
	blockers []*resource.State
}

// command carries out c on the loop and returns its error.
func (h *Host) command(ctx context.Context, c *command) error {
	switch c.kind {
	case cmdRefresh:
		h.dispatch(ctx, h.gen.Refresh(c.pending))
	case cmdDelete:
		antichains, err := h.gen.Deletes()
		if err != nil {
			return err
		}
		if h.cfg.DeleteHooks != nil {
			if err := h.cfg.DeleteHooks(ctx, antichains); err != nil {
				return err
			}
		}
		h.dispatch(ctx, h.gen.StartDeletes())
	case cmdPlanKept:
		err := h.gen.PlanKept()
		var ve *plan.ViolationError
		if errors.As(err, &ve) && ve.URN != "" {
			h.cfg.Observer.Refused(ve.URN, err)
		}
		return err
	case cmdRefused:
		for _, s := range h.gen.Refused() {
			*c.refused = append(*c.refused, refusal{step: s, blockers: h.gen.RefusalBlockers(s, h.cfg.ContinueOnError)})
		}
	}
	return nil
}

// order posts c to the loop and waits for its error.
func (h *Host) order(ctx context.Context, c *command) error {
	c.done = make(chan error, 1)
	if !h.inbox.post(c) {
		return errDeploymentOver
	}
	select {
	case err := <-c.done:
		return err
	case <-ctx.Done():
		return context.Cause(ctx)
	}
}

// Refresh has the generator read every recorded resource (or the
// targeted ones) and resolve the pending operations given; Settle waits
// for the reads.
func (h *Host) Refresh(ctx context.Context, pending []resource.Operation) error {
	return h.order(ctx, &command{kind: cmdRefresh, pending: pending})
}

// Delete tells the generator the program is over: it issues the deletes
// of what the program no longer declares (unregistered old resources and
// old copies of replaced ones), antichain by antichain, once
// Config.DeleteHooks has returned. Settle waits for them; RefuseProtected
// then reports those the generator refused.
func (h *Host) Delete(ctx context.Context) error {
	return h.order(ctx, &command{kind: cmdDelete})
}

// PlanKept returns the error of a plan whose steps were not all taken
// (stepgen.Generator.PlanKept).
func (h *Host) PlanKept(ctx context.Context) error {
	return h.order(ctx, &command{kind: cmdPlanKept})
}

// RefuseProtected reports the deletes the generator refused (of protected
// resources, and what they depend on) as failed steps, once the others
// have run: each, unless a resource whose failure stops it in the
// reference engine failed first. Call it once Delete's steps have settled.
func (h *Host) RefuseProtected(ctx context.Context) error {
	var refused []refusal
	if err := h.order(ctx, &command{kind: cmdRefused, refused: &refused}); err != nil {
		return err
	}
	failed := h.Unfinished()
	for _, r := range refused {
		if !slices.ContainsFunc(r.blockers, func(s *resource.State) bool { return failed[s] }) {
			h.refuse(ctx, r.step)
		}
	}
	return nil
}
