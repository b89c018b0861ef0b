package deploy

import (
	"context"
	"fmt"

	"github.com/groundwork-iac/groundwork/dag"
	"github.com/groundwork-iac/groundwork/resource"
	"github.com/groundwork-iac/groundwork/stepgen"
)

// The stack's outputs are recorded when the operation ends, once its
// outcome is known, as the reference engine records them: what the program
// registered when everything succeeded, and otherwise the outputs recorded
// before with the registered ones over them. A failure means that an
// output's absence may be the failure's doing rather than the program's
// wish, so nothing recorded is dropped and no empty set is written.

// heldOutputs are the stack outputs a program registered, held until the
// operation ends.
type heldOutputs struct {
	urn     resource.URN
	outputs resource.PropertyMap
}

// isStack reports whether urn is the stack's root resource.
func isStack(urn resource.URN) bool {
	return urn.QualifiedType() == resource.RootStackType
}

// holdStackOutputs takes the stack outputs a program registers (on the
// loop's goroutine) and answers at once: they are recorded when the
// operation ends (FinishStackOutputs). The last registration wins.
func (h *Host) holdStackOutputs(r *request) {
	if h.gen.State(r.reg.URN) == nil {
		err := &stepgen.RegistrationError{URN: r.reg.URN, Reason: "outputs registered for a stack not registered in this run"}
		h.NoteError(err)
		r.done(regResult{err: err})
		return
	}
	h.stackOutputs = &heldOutputs{urn: r.reg.URN, outputs: r.other.outputs}
	r.done(regResult{})
}

// FinishStackOutputs records the held stack outputs, once every step has
// ended and the loop has stopped (after Wait); failed says whether
// anything failed. It returns the outputs it recorded (nil if the program
// registered none) and the error that kept them from the state. It visits the outputs step itself, as the walker would: the walker skips
// every step after a failure, and this one must be recorded then. It ends
// as every step ends (over), which tells the generator directly, the loop
// being over.
func (h *Host) FinishStackOutputs(ctx context.Context, failed bool) (resource.PropertyMap, error) {
	held := h.stackOutputs
	if held == nil {
		return nil, nil
	}
	outs := held.outputs
	register := h.gen.RegisterOutputs
	if old := h.gen.Old(held.urn); failed && old != nil {
		outs = old.Outputs.Copy()
		if outs == nil {
			outs = resource.PropertyMap{}
		}
		for k, v := range held.outputs {
			outs[k] = v
		}
		// Not the program's outputs: a plan does not hold them.
		register = h.gen.KeepOutputs
	}
	acts, err := register(&stepgen.Registration{URN: held.urn}, outs)
	if err != nil {
		return outs, err
	}
	ws := &walkStep{out: stepgen.Outcome{Step: acts.Steps[0]}}
	err = dag.Finish(func() error { return h.visit(ctx, ws) })
	h.over(&ws.out, ws.took(h))
	if err != nil {
		return outs, fmt.Errorf("recording the stack outputs: %w", ws.out.Err)
	}
	return outs, nil
}
