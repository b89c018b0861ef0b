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
// state.
//
// # Programs
//
// A Program is a function of a *Context. Context.Register returns a
// *Resource handle at once; the registration proceeds in the background
// once everything it depends on has finished. A handle's Output and ID are
// futures that can be used as inputs of other registrations (the engine
// waits for them and records both the dependency and the per-property
// dependency) or exported as stack outputs. In a preview, outputs that are
// not known yet are unknown and flow onward as unknown; secret outputs stay
// secret through Output.Apply. The program's function may return before its
// registrations finish; the engine waits for all of them.
// Context.StackReference reads the outputs of another stack of the store,
// and Context.Get rehydrates a resource of the operation by its URN, both
// through the "pulumi" package every deployment serves itself (package
// providers/builtin). Resource hooks (Hook, bound with ResourceHooks) run
// before and after a resource's creates, updates and deletes; the state
// records them by name, so that a resource's delete runs them after the
// program has stopped declaring it.
//
// # The host loop
//
// The step generator (package stepgen) is a pure state machine. One
// goroutine, the engine loop (loop.go), owns it: registrations arrive from
// the monitor as requests, the generator answers with provider calls to
// make and chains to run, each provider call runs on its own goroutine and
// its answer returns to the loop, and chains go to the executor, whose hooks
// (hooks.go) journal each step's begin (durably) before its provider is
// called and its end (in order) before the waiting registration is
// answered through its callback. The begin is awaited by a callback from
// the journal's writer rather than by a parked goroutine: a chain gets its
// goroutine once its begin is durable. Chains that call no provider and
// journal no begin run in issue order on a lane of their own (lane.go),
// without a goroutine each. A host that needs another shape can wire
// the same parts itself; examples/wiring shows how.
//
// # Events
//
// Config.OnEvent receives OperationStartEvent, StepStartEvent,
// StepDoneEvent, StepFailedEvent, DiagnosticEvent and SummaryEvent values,
// never concurrently. Secret values are masked before an event is built.
// Package display renders the stream for terminals, logs and JSON lines.
//
// # Performance
//
// Figures from BenchmarkUp10k and BenchmarkSlowCheckDiff1k on a shared
// 2-vCPU Xeon, Go 1.26 (BENCHMARKS.md has the method, the end-to-end
// workloads of go run ./bench, the profiles and the known limits):
//
//	BenchmarkUp10k: Up of 10,000 independent resources, no-op provider
//	  store=memory  first run         0.19-0.22 s/op   39 allocs/resource
//	  store=memory  unchanged rerun   0.09-0.11 s/op   32 allocs/resource
//	  store=file    first run         0.21-0.22 s/op   39 allocs/resource
//	  store=file    unchanged rerun   0.08-0.09 s/op   33 allocs/resource
//	BenchmarkSlowCheckDiff1k: 1,000 unchanged resources, Check and Diff 5 ms
//	                                  54-58 ms/op: 5.4-5.8 x the 10 ms floor (10 s serially)
//
// (end of the fifth round, load average about 2; the fourth round
// measured 0.20-0.24 s/op for a first run and 0.11-0.13 for a rerun, the
// third 0.38-0.49 and 0.21-0.23, the first 0.75-1.20.) Memory is time
// here: in a fresh process a third of an operation's CPU is the kernel
// serving first touches of the memory it allocates, and the garbage
// collector a sixth to a third more (BENCHMARKS.md, fifth round).
//
// An unchanged resource's Check and Diff run on one goroutine
// (stepgen.Call.DiffAfterCheck), and at most 256 provider calls are in
// flight at once (callers.go): a goroutine per call, started faster than a
// busy machine ran them, left thousands waiting with fresh stacks, at the
// price of BenchmarkSlowCheckDiff1k's 36-38 ms.
//
// Allocations are the operation's, store and program included. No
// goroutine waits for a registration's step: a registration whose
// dependencies have finished costs none, one that waits for dependencies
// costs one until they have. No goroutine waits for a sync either: a
// chain's goroutine is started when its first step's begin is durable, by
// the journal's writer, and runs the step's provider call and its end.
package engine
