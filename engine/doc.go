// Package engine runs deployments: it wires a provider registry, a step
// generator, the deployment loop (package deploy) and a monitor around a
// stack's stored state and offers the operations a host needs — Up, Preview, Destroy, Refresh and
// Import — plus an in-process program API and a typed event stream.
//
// # Operations
//
// An Engine is built from a Config (project, stack, a state.Store, a
// function returning the provider registry for one operation, the stack
// configuration and an event callback). Each operation locks the stack
// (previews do not), loads and verifies the last snapshot, runs its body,
// waits for every step and commits the journal into a new snapshot. Every
// step that completed is recorded whatever fails afterwards; the error
// returned joins the program's error, each step failure (a failure's
// dependents are skipped, not reported again) and any error recording the
// state. An operation ends when its context does: nothing a program does
// can keep it running, or keep the stack locked, after that.
//
// A Result lists the steps the operation took (StepRecord, by StepOp),
// counts them by kind, and holds the stack outputs and the snapshot it
// left. Engine.Outputs and Engine.State read the stack between
// operations.
//
// # Programs
//
// A Program is a function of a *Context that declares resources; Up
// deploys what it declares and Preview shows what Up would do. The
// program API — Context, Resource, Output[T], Val, Apply, All, Sprintf,
// NewResource, the resource options, resource hooks and stack
// references, with the program's contract — is package program's. The
// names this package exports for it (Context, Output, Val,
// NewResource, Protect, ...) are aliases of program's and forwarders to
// it, kept so that existing programs compile, and deprecated in favour
// of package program. Each operation that runs a program makes a
// program.Runner for it, whose Context reaches the operation through the
// monitor and through program.Host, which the engine implements.
//
// # Cancellation and timeouts
//
// Cancelling an operation's context starts no new step and signals the
// providers to wind down (SignalCancellation). The creates, updates and
// deletes already made have the operation's grace period (GracePeriod,
// DefaultGracePeriod by default) to answer, and their answers are
// recorded; a resource's custom timeouts (CustomTimeouts) end their
// context earlier. One that does not answer in time fails with an
// *UnansweredError and stays recorded as a pending operation naming its
// resource, which the next operation warns of and a refresh resolves; the
// *CancelledError lists them. Whatever a provider does with its context,
// the operation waits no longer than the grace period after the context of
// a call ended: a call of an in-process provider that ignores it is left
// running on its own goroutine, which the provider owns, and nothing it
// does afterwards reaches the state, the events or the result.
//
// # The host loop
//
// The step generator (package stepgen) is a pure state machine. The loop
// around it is package deploy's Host: one goroutine owns the generator
// and feeds it events — the monitor's registrations, provider answers and
// step outcomes — and carries out the actions it answers with: provider
// calls, which a bounded pool makes, steps to run, and replies to
// registrations. Steps are plain data carrying the IDs of the steps they
// need and the step they come after; the step walker (dag.Walker) runs
// each once those have ended, and its visit journals the step's begin
// durably before deploy.Apply calls the provider, and its end durably
// before the outcome goes back to the loop, which answers the waiting
// registration. Each operation here builds a Host for its run (the
// generator, the journal, its options, a provider source that bounds
// every call, its secret filter, and a deploy.Observer that records the
// steps in the Result and emits their events), runs its body through it,
// stops it and reads what it recorded. ARCHITECTURE.md follows one
// operation through these stages, one file each. A host that needs
// another shape can wire the parts itself; examples/wiring shows how.
// Programs that run in other processes reach the same monitor through
// package langhost (see Context.Monitor).
//
// # Events
//
// Config.OnEvent receives OperationStartEvent, StepStartEvent,
// StepDoneEvent, StepFailedEvent, DiagnosticEvent and SummaryEvent values,
// never concurrently. Secret values are masked before an event is built.
// A registration that fails before it has a step (its provider's Check
// rejects its inputs, a Diff fails, the plan refuses it, its URN is taken)
// is reported as it fails by an error DiagnosticEvent whose URN is the
// resource's and whose Message is the error the operation lists for it.
// Package display renders the stream for terminals, logs and JSON lines.
// BENCHMARKS.md has the engine's performance figures.
//
// # Errors
//
// An error about a resource names it once. A step's failure, as the
// operation returns it (and SummaryEvent.Error carries it), reads
// "<urn>: <what failed>: <cause>" — "urn:...::web: create failed: quota
// exceeded" — unless what failed names the resource itself, as the typed
// errors do (*ProtectedError, *CheckFailedError, *plan.ViolationError,
// ...): those are passed on as they are. A StepFailedEvent names its
// resource by its URN field; its Message says what failed without naming
// it again, except in a typed error's text. An error the program returns
// that only passes on a step failure the operation reports already (a
// resource's Wait) is not listed a second time: where the program joined
// that failure with causes of its own (errors.Join), or wrapped it, only
// the causes of its own are listed; where it wrapped the failure with
// causes of its own into one text (fmt.Errorf with several %w), that
// text is kept whole and the step's own listing left out. Nor is a
// registration's
// failure the operation records (a default provider that failed to
// start) when the program's error passes it on. The causes stay wrapped:
// errors.Is finds a provider's error, and errors.As the typed ones.
//
// # Secrets in messages
//
// An operation learns the plaintext of every secret it hands a provider
// (the configuration, a resource's inputs and outputs, a provider's
// configuration) before the provider sees it, in a resource.SecretFilter,
// and masks them as "[secret]" in every message that leaves it: the error
// it returns and each step's, the messages of its events, check failures,
// and the init errors recorded in the state. A function applied to a
// secret that fails or panics has its message masked with the secrets it
// was given. Masked errors wrap the originals, so errors.As and errors.Is
// still find them. MaskSecrets shares the filter with a host, to mask what
// it prints beside the events (plugin.Options.Secrets); Context.Mask masks
// a program host's output. Plaintexts shorter than
// resource.MinSecretLength are not masked; a secret a provider transforms
// before quoting it cannot be recognised, nor one that only the arguments
// of a component's Construct or Call carry.
package engine
