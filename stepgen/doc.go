// Package stepgen decides what to do with each resource of a deployment.
//
// A Generator is a pure state machine in the manner of a consensus core: it
// owns no goroutine, performs no I/O and never calls a provider. The engine
// feeds it events one at a time — a registration (Register, Read,
// RegisterOutputs) or the answer to a provider call it asked for (Answer) —
// and each call returns Actions: the provider calls it needs answered next
// (Check, Diff) and the chains of steps that are ready to run. Because the
// provider calls happen outside, Check and Diff for different resources
// overlap freely while the bookkeeping (which URNs were seen, which old
// resources were taken over) stays serial and simple.
//
// For one registration the generator builds the URN from type, name and
// parent, refuses a duplicate, finds the old state (by URN, by alias, or
// by an alias inherited from a parent found under an alias),
// applies ignoreChanges, asks for Check (with the old inputs, so a provider
// keeps its generated defaults), and then decides:
//
//   - no old state: create;
//   - a replace target, or a changed provider reference: replace;
//   - otherwise it asks for Diff (or compares inputs in inputs-only mode, or
//     when the provider cannot tell), applies replaceOnChanges, and issues
//     same, update or replace.
//
// A step the resource may not take is issued refused (Step.Refused): the
// step of a resource the analyzers refused, and the replacement of a
// protected resource, directly or as a dependent of a delete-before-replace.
// It calls no provider and records nothing; applying it fails with the
// refusal, so that the host reports the resource's step as failed.
//
// Where the Diff is certain to follow a successful Check, the Check call
// says so (Call.DiffAfterCheck) and carries the Diff request but for the
// checked inputs; the engine makes both calls on one goroutine and answers
// them together (Answer.Diffed), and the generator goes on from the Diff
// without asking for it. A host that ignores the field is asked as before.
//
// A replacement is re-checked without the old inputs and then, by default,
// created before the old copy is deleted: the create's record marks the
// old copy Delete (Step.Condemns), so only once the replacement exists, and
// the old copy is removed after the program, with everything else the
// program no longer declares. With delete-before-replace the chain deletes first and leaves
// the old record marked PendingReplacement until the create succeeds, so a
// crash between the two is visible and the next run finishes the job.
//
// After the program, Deletes returns the deletions as antichains of the
// reverse dependency graph, each resource as late as what it depends on
// allows (a dependency on a component standing for the component's
// descendants recorded before the dependent, as the reference engine reads
// it): each antichain may run in parallel, one after another. A protected resource is not deleted, nor anything it depends
// on; its delete comes back refused (Refused) for the host to report. A resource deleted with another that goes too (deletedWith)
// rides in that one's chain: its step calls no provider and records
// nothing, and the other's step lists its record in With, to leave the
// state in the same journal entry as the other's.
//
// With Config.RecordPlan the generator records what it decides as a saved
// plan (Plan); with Config.Plan it holds the operation to one: a step,
// option or input the plan does not allow fails its registration with a
// *plan.ViolationError, and PlanKept reports the planned steps never taken
// (plan.go; the rules are package plan's).
//
// Steps (Step) are the unit the executor runs. Each knows how to Apply
// itself against its provider, what pending operation it represents while it
// runs (JournalOp), and what it records when it succeeds (Result).
package stepgen
