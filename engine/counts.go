package engine

import (
	"github.com/groundwork-iac/groundwork/providers"
	"github.com/groundwork-iac/groundwork/resource"
)

// What an operation counts, everywhere it gives counts (Result.Counts,
// SummaryEvent, CancelledError.Recorded, and so the display's summary and
// every message made of them), is the user's resources: each resource the
// steps touched (the program's, explicit providers, the stack itself,
// those the stack held), once, under the strongest kind of change its
// steps made, as a display shows one row per resource and Pulumi's summary
// counts them:
//
//   - a default provider (one the engine made for a package the program
//     gave no provider to) is not counted, unless its step failed;
//   - the steps of a replacement (create-replacement, delete-replaced,
//     read-replacement, the replace step, and the create that follows a
//     delete-replaced) count as one StepReplace;
//   - a component's outputs step does not count;
//   - a resource one of whose steps failed counts as failed, not under a
//     kind; one whose step was skipped, because a step it needed failed,
//     is not counted.

// rank orders the kinds a resource is counted under, weakest first: a
// resource counts under the strongest kind among its steps (a refresh
// then an update counts as an update).
var rank = map[StepOp]int{
	StepSame: 1, StepRead: 2, StepRefresh: 3, StepImport: 4, StepDiscard: 5,
	StepCreate: 6, StepDelete: 7, StepUpdate: 8, StepReplace: 9,
}

// countedKind is the kind a succeeded step counts its resource under; ""
// for a step that does not count.
func countedKind(op StepOp) StepOp {
	switch op {
	case StepCreateReplacement, StepDeleteReplaced, StepReadReplacement, StepReplace:
		return StepReplace
	case StepOutputs:
		return ""
	}
	return op
}

// tally counts step records as they arrive, as Result.Counts and
// SummaryEvent count them: resources by kind, and the resources that
// failed. It keeps what it needs of each resource (a byte), not the
// records, so counting at the end builds nothing over all of them.
// The zero tally is ready to use.
type tally struct {
	// seen is each resource's counting so far.
	seen map[resource.URN]tallied
	// counts and failed are the resources' counts as they stand.
	counts map[StepOp]int
	failed int
}

// tallied is what a tally holds of one resource: the rank of the kind it
// counts under (rank), and the flags below.
type tallied uint8

const (
	talliedFailed  tallied = 1 << 4
	talliedSkipped tallied = 1 << 5
	// talliedReplaced is set by a delete-replaced: the create after it is
	// the replacement's.
	talliedReplaced tallied = 1 << 6
	talliedRank     tallied = 1<<4 - 1
)

// byRank is the kind of each rank (rank's inverse).
var byRank = func() [talliedRank + 1]StepOp {
	var kinds [talliedRank + 1]StepOp
	for k, r := range rank {
		kinds[r] = k
	}
	return kinds
}()

// size sizes the tally for n resources, before the first record.
func (t *tally) size(n int) {
	if t.seen == nil {
		t.seen = make(map[resource.URN]tallied, n)
	}
}

// add counts a record.
func (t *tally) add(r *StepRecord) {
	if t.seen == nil {
		t.seen = map[resource.URN]tallied{}
	}
	was, ok := t.seen[r.URN]
	s := was
	switch {
	case r.Skipped:
		s |= talliedSkipped
	case r.Err != nil:
		s |= talliedFailed
	default:
		kind := countedKind(r.Op)
		if r.Op == StepDeleteReplaced {
			s |= talliedReplaced
		}
		if kind == StepCreate && s&talliedReplaced != 0 {
			kind = StepReplace
		}
		if k := tallied(rank[kind]); k > s&talliedRank {
			s = s&^talliedRank | k
		}
	}
	if ok && s == was {
		return
	}
	t.seen[r.URN] = s
	if ok {
		t.count(r.URN, was, -1)
	}
	t.count(r.URN, s, 1)
}

// count adds by to the count a resource counts under.
func (t *tally) count(urn resource.URN, s tallied, by int) {
	switch {
	case s&talliedFailed != 0:
		t.failed += by
	case s&talliedSkipped != 0, s&talliedRank == 0, providers.IsDefaultProvider(urn):
	default:
		if t.counts == nil {
			t.counts = map[StepOp]int{}
		}
		kind := byRank[s&talliedRank]
		if t.counts[kind] += by; t.counts[kind] == 0 {
			delete(t.counts, kind)
		}
	}
}

// result returns the counts, in a map of the caller's, and the number of
// resources that failed.
func (t *tally) result() (counts map[StepOp]int, failed int) {
	counts = make(map[StepOp]int, len(t.counts))
	for k, n := range t.counts {
		counts[k] = n
	}
	return counts, t.failed
}
