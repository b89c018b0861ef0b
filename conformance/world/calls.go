package world

import (
	"math/rand/v2"
	"time"
)

// Call is a provider call an engine made, as the world saw it: the order
// in which an engine learned of each registration, decided about it, and
// began deleting (the delete-order invariant reads it).
type Call struct {
	Run int
	// Op is "check", "diff", "create" or "delete"; Unknowns says a diff
	// had an unknown input (a delete-before-replace's diff of a
	// dependent). ID is the object's, for a diff or a delete.
	Op       string
	URN      string
	ID       string
	Unknowns bool
	// End marks the answer of a check or diff (each has two entries: when
	// it was made, and when it answered); a create or delete has only the
	// first.
	End bool
}

// SetLatency makes every provider call (Check, Diff, Create, Update,
// Delete) take a random time up to max before it answers; 0 (the default)
// answers at once. The time is drawn anew for each call, so that the
// schedules of the two engines, and of two runs of one program, differ.
func (w *World) SetLatency(max time.Duration) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.latency = max
}

// pause waits the latency of one call.
func (w *World) pause() {
	w.mu.Lock()
	max := w.latency
	w.mu.Unlock()
	if max > 0 {
		time.Sleep(rand.N(max))
	}
}

// Checked records a Check of urn, then waits the call's latency. The
// engines' provider adapters call it.
func (w *World) Checked(urn string) { w.note(Call{Op: "check", URN: urn}) }

// Diffed records a Diff of object id under urn (with an unknown input, or
// not), then waits the call's latency.
func (w *World) Diffed(urn, id string, unknowns bool) {
	w.note(Call{Op: "diff", URN: urn, ID: id, Unknowns: unknowns})
}

func (w *World) note(c Call) {
	w.mu.Lock()
	c.Run = w.run
	w.calls = append(w.calls, c)
	w.mu.Unlock()
	w.pause()
	w.mu.Lock()
	c.End = true
	w.calls = append(w.calls, c)
	w.mu.Unlock()
}

// Calls returns the Check and Diff calls of run, in the order they were
// made.
func (w *World) Calls(run int) []Call {
	w.mu.Lock()
	defer w.mu.Unlock()
	var out []Call
	for _, c := range w.calls {
		if c.Run == run {
			out = append(out, c)
		}
	}
	return out
}
