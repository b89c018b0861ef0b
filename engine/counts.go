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

// tally counts records as Result.Counts and SummaryEvent do: resources by
// kind, and the resources that failed.
func tally(records []StepRecord) (counts map[StepOp]int, failed int) {
	type seen struct {
		urn             resource.URN
		kind            StepOp
		failed, skipped bool
		// replaced is set by a delete-replaced: the create after it is
		// the replacement's.
		replaced bool
	}
	// Each resource's entry in all, in the order of its first record.
	byURN := make(map[resource.URN]int, len(records))
	all := make([]seen, 0, len(records))
	for _, r := range records {
		i, ok := byURN[r.URN]
		if !ok {
			i = len(all)
			byURN[r.URN] = i
			all = append(all, seen{urn: r.URN})
		}
		s := &all[i]
		switch {
		case r.Skipped:
			s.skipped = true
			continue
		case r.Err != nil:
			s.failed = true
			continue
		}
		kind := countedKind(r.Op)
		if r.Op == StepDeleteReplaced {
			s.replaced = true
		}
		if kind == StepCreate && s.replaced {
			kind = StepReplace
		}
		if rank[kind] > rank[s.kind] {
			s.kind = kind
		}
	}
	counts = map[StepOp]int{}
	for _, s := range all {
		switch {
		case s.failed:
			failed++
		case s.skipped, s.kind == "", providers.IsDefaultProvider(s.urn):
		default:
			counts[s.kind]++
		}
	}
	return counts, failed
}
