package engine

import (
	"context"
	"errors"
	"maps"
	"time"

	"github.com/groundwork-iac/groundwork/state"
)

// recordHistory adds the operation that just committed to the stack's
// history, when the store keeps one (state.HistoryRecorder) and the
// operation opened a journal: a preview changes nothing and is not
// recorded. It runs while the stack is still locked. The entry holds the
// operation's kind, result, times, counts and the user's message: no
// error text, so no secret reaches it. A failure to record it is a
// warning: the operation's changes are recorded either way.
func (d *deployment) recordHistory(ctx context.Context, res *Result, err error) {
	hr, ok := d.e.cfg.Store.(state.HistoryRecorder)
	if !ok || d.preview || d.journal == nil || res == nil {
		return
	}
	e := state.HistoryEntry{
		Kind: string(d.op), Result: state.HistorySucceeded, Message: d.opts.message,
		StartTime: d.start.UTC(), EndTime: time.Now().UTC(),
		ResourceChanges: map[string]int{},
	}
	var cancelled *CancelledError
	switch {
	case errors.As(err, &cancelled) || (err != nil && ctx.Err() != nil):
		e.Result = state.HistoryCancelled
	case err != nil:
		e.Result = state.HistoryFailed
	}
	for op, n := range maps.All(res.Counts) {
		if n > 0 {
			e.ResourceChanges[string(op)] = n
		}
	}
	if rerr := hr.RecordHistory(d.lasting, d.e.cfg.stackID(), e); rerr != nil {
		d.events.emit(DiagnosticEvent{Severity: SeverityWarning,
			Message: "the operation's changes are recorded, but not its entry in the stack's history: " + rerr.Error()})
	}
}
