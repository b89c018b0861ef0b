// Package stepgen decides what to do with each resource of a deployment.
//
// A Generator is a pure state machine in the manner of a consensus core: it
// owns no goroutine, performs no I/O and never calls a provider. The host
// feeds it events one at a time — a registration (Register, Read,
// RegisterOutputs), the answer to a provider call it asked for (Answer), or
// the outcome of a step it issued (Done) — and each returns Actions: the
// provider calls it needs answered next (Check, Diff, analyzer runs), the
// steps it issues, and the replies to registrations, failed ones included.
// Because the
// provider calls happen outside, Check and Diff for different resources
// overlap freely while the bookkeeping (which URNs were seen, which old
// resources were taken over) stays serial and simple.
//
// For one registration the generator builds the URN from type, name and
// parent, refuses a duplicate, finds the old state (by URN, by alias, or
// by an alias inherited from a parent's aliases),
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
// without asking for it. A host that ignores the field is asked for the
// Diff in a call of its own.
//
// A replacement is re-checked without the old inputs and then, by default,
// created before the old copy is deleted: the create's record marks the
// old copy Delete (Outcome.Condemns), so only once the replacement exists, and
// the old copy is removed after the program, with everything else the
// program no longer declares. With delete-before-replace the chain deletes first and leaves
// the old record marked PendingReplacement until the create succeeds, so a
// crash between the two is visible and the next run finishes the job.
//
// # Deletes come after their dependents' deletes
//
// When a resource X and a resource D that depended on X in the last
// snapshot (through a dependency, a property dependency, its parent, its
// deletedWith target or its provider) are both deleted in one operation —
// a removal, or the old copy of a replacement — D's delete comes first: it
// is a step X's delete needs, whatever order the registrations arrive in.
// Deletes after the program follow the reverse dependency graph (below). A
// delete-before-replace deletes X during the program, so before X's delete
// it settles each old resource that depends on X, directly or not, in
// dependency order:
//
//   - one the program has not registered yet is diffed with the inputs
//     that come from a replaced resource unknown; if the provider asks for
//     a replacement (or cannot tell), it is deleted first, and the program
//     creates it again when it registers it;
//   - one the program has registered is taken as its own steps decide,
//     and the cascade waits for them to be decided: a replacement is
//     made delete-before-create when the cascade counts the resource
//     among its dependents, so its old copy is deleted first (as the
//     reference engine's cascade deletes it); an old copy condemned by a
//     create-before-delete decided before the cascade is deleted in its
//     place in the cascade, once its replacement exists, instead of after
//     the program; any other step (an update that no longer refers to X,
//     an unchanged resource) ends before X's delete starts;
//   - one that another delete-before-replace deleted is not deleted again:
//     X's delete follows that delete;
//   - an old copy an earlier run marked for deletion and left (its delete
//     never ran) is diffed like one not registered, and deleted first if
//     it would be replaced, instead of after the program.
//
// A dependent that is neither replaced nor registered when X's delete is
// decided stays, referring to the old X while X is replaced (what
// delete-before-replace means); should its registration then replace it,
// or the program leave it out, its old copy is deleted after X, since the
// generator could not know in time.
//
// After the program, Deletes returns the deletions as antichains of the
// reverse dependency graph, each resource as late as what it depends on
// allows (a dependency on a component standing for the component's
// descendants recorded before the dependent, as the reference engine reads
// it); StartDeletes issues the first antichain, and Done each next one
// once the one before has ended. A protected resource is not deleted, nor
// anything it depends on; its delete comes back refused (Refused) for the
// host to report. A resource deleted with another that goes too
// (deletedWith) follows that one's delete: its step needs the other's,
// calls no provider and records nothing, and the other's step lists its
// record in With, to leave the state in the same journal entry as the
// other's.
//
// With Config.RecordPlan the generator records what it decides as a saved
// plan (Plan); with Config.Plan it holds the operation to one: a step,
// option or input the plan does not allow fails its registration with a
// *plan.ViolationError, and PlanKept reports the planned steps never taken
// (plan.go; the rules are package plan's).
//
// Steps (Step) are plain data: an operation, the old and new state, an ID,
// the IDs of the steps it needs (Needs) and of the step on the same
// resource it comes after (After) — edges a DAG walker such as
// dag.Walker waits on — and the pending operation it stands for while
// it runs (JournalOp). No step applies itself and the package calls no
// provider: the host does (package deploy's Apply, the one place a step
// meets its provider, returns its Outcome — the state it produced, and
// what the journal records: Outcome.Record — which the host gives to Done;
// its Ask makes the provider calls the generator asks for).
package stepgen
