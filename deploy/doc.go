// Package deploy is the deployment loop: the host around the step
// generator, and where a step or a call meets its provider.
//
// A Host runs one operation's loop. It is the monitor's Deployer: each
// registration, read and component outputs the program sends becomes an
// event in the Host's inbox, and one goroutine, the loop, hands every
// event to the generator (stepgen.Generator) and carries out the Actions
// it returns. Provider calls (Check, Diff, analyzers) go to a pool of at
// most a few hundred workers (fewer if Config.Parallelism is lower), so
// calls for different resources overlap; their answers come back as
// events. Steps go to a dag.Walker, which
// visits each once the steps it needs have succeeded, at most
// Config.Parallelism at once. A visit journals the step's begin, Applies
// it, and journals its end; only then does the outcome go back to the
// loop, which tells the generator and answers the registration. The
// events are a closed set of types, handled by one switch; whoever posts
// one never waits for the loop, and the loop never waits on a provider or
// the journal (only Config.DeleteHooks, before the deletes start, may
// wait on the loop for the program to register hooks).
//
// A step ends in one place, whoever ran it — the walker,
// RefuseProtected for a delete the generator refused, FinishStackOutputs
// for the stack's outputs once the loop is over — which takes note of its
// outcome, tells the Config.Observer, and tells the generator.
//
// The operation that builds a Host supplies what it needs as plain values
// and functions in a Config (its generator, journal, options, provider
// source, secret filter, Observer, analyzers and hooked apply): the Host
// knows nothing of the operation beyond them. The operation runs its body
// with the Host's commands (CloseRegistrations, Delete, Refresh, Settle,
// RefuseProtected, PlanKept), each an event of the loop's like the
// others, and, for a refresh, DropGone once Settle has returned; then
// Stop, Wait and FinishStackOutputs, reads the bookkeeping (Errors,
// Unfinished, Gone, Pending), and has JoinErrors join the operation's
// errors into the one it returns, each failure said once.
//
// Bounds is the provider source an operation gives the Host: it makes
// every provider call within the operation's grace period and the
// resource's custom timeouts, and fails a create, update or delete not
// answered in time with an *UnansweredError, whose step journals no end
// (bounds.go states the rules).
//
// Apply performs a step (stepgen.Step) and Ask answers a Check or Diff
// call (stepgen.Call). Both resolve providers through the
// providers.ProviderSource they are handed; neither touches the
// generator, whose Done and Answer the caller calls with what they
// return. A host wired by hand (examples/wiring) uses them directly.
package deploy
