// Package engine runs deployments: it wires a provider registry, a step
// generator, an executor and a monitor around a stack's stored state and
// offers the operations a host needs — Up, Preview, Destroy, Refresh and
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
// A Program is a function of a *Context. It declares resources, each of
// which the engine creates, updates, replaces or leaves alone to match
// the declaration, and deletes when a later run no longer declares it.
// A declaration returns its handle at once; the registration proceeds in
// the background once everything it depends on has finished, so
// independent resources deploy in parallel. The program's function may
// return before its registrations finish; the engine waits for all of
// them.
//
// Typed resources are declared with a constructor such as local.NewFile,
// or with NewResource for any type: the inputs are a struct (the
// arguments), the outputs the fields of the returned struct:
//
//	pet := random.NewPet(ctx, "mascot", random.PetArgs{Length: engine.Val(2)})
//	page := local.NewFile(ctx, "index", local.FileArgs{
//		Path:    engine.Val("./site/index.html"),
//		Content: engine.Sprintf("<h1>Hello from %s!</h1>", pet.Result),
//	})
//	ctx.Export("size", page.Size)
//
// Context.Register declares one with untyped inputs (Props) instead, and
// OutputOf reads any of its outputs typed.
//
// An Output[T] is a value known during the operation: a resource's
// output once its step has completed, a constant (Val), or a function of
// other outputs (Apply, ApplyErr, Apply2, Apply3, All, Sprintf). Passed
// as an input, it makes the registration wait for it and record a
// dependency on every resource the value came from, so that the resource
// is created after them and deleted before them. A secret stays secret
// through every function applied to it (Secret marks one). In a preview
// a value that depends on a resource not created yet is unknown: the
// functions are not called, and it flows onward as unknown. Output.Await
// gives the value to the program's function.
//
// Context.StackReference reads the outputs of another stack of the store,
// and Context.Get rehydrates a resource of the operation by its URN, both
// through the "pulumi" package every deployment serves itself (package
// providers/builtin). Resource hooks (Hook, bound with ResourceHooks) run
// before and after a resource's creates, updates and deletes; the state
// records them by name, so that a resource's delete runs them after the
// program has stopped declaring it.
//
// # The program's contract
//
//   - Arguments are checked when the resource is declared: an empty name
//     or one containing "::", a custom type without a package, a nil
//     handle in an option, a zero Output among the inputs, inputs that
//     are not a struct or Props. A bad one fails the registration at once
//     with an *ArgumentError naming the resource and the argument.
//   - Using an output the provider did not return is a
//     *MissingOutputError naming the resource and the key (a typo is
//     never a silent null); a value that does not decode into its Go type
//     is a *resource.DecodeError naming them too. The registration that
//     takes it fails, and so does the operation.
//   - A panic in the program's function, an Apply function or a transform
//     is a *PanicError of the operation, naming whose code panicked and
//     where.
//   - A function given to Apply, and a transform, runs on a goroutine of
//     the engine's and must not wait for other outputs: such a wait is
//     refused with an error (a *CycleError naming the resources, when what
//     it waits for is waiting for that very function). Combine outputs
//     with Apply2, Apply3, All or Sprintf instead.
//   - Registrations are made before the program's function returns (or
//     from Apply functions); one made after fails.
//   - Every wait of the program API watches the operation's context.
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
// The step generator (package stepgen) is a pure state machine. One
// goroutine, the engine loop, owns it and feeds it events: the monitor's
// registrations, provider answers and step outcomes. The generator answers
// with actions: provider calls to make, which a walker of their own makes,
// steps to run, and replies to registrations. Steps are plain data
// carrying the IDs of the steps they need and the step they come after;
// the step walker (executor.Walker) runs each once those have ended, and
// its visit journals the step's begin durably before stepgen.Apply calls
// the provider, and its end durably before the outcome goes back to the
// loop, which answers the waiting registration. ARCHITECTURE.md follows
// one operation through these stages, one file each. A host that needs
// another shape can wire the same parts itself; examples/wiring shows how. Programs that run in other processes reach
// the same monitor through package langhost (see Context.Monitor).
//
// # Events
//
// Config.OnEvent receives OperationStartEvent, StepStartEvent,
// StepDoneEvent, StepFailedEvent, DiagnosticEvent and SummaryEvent values,
// never concurrently. Secret values are masked before an event is built.
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
// resource's Wait) is not listed a second time. The causes stay wrapped:
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
