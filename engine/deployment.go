package engine

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/groundwork-iac/groundwork/executor"
	"github.com/groundwork-iac/groundwork/monitor"
	"github.com/groundwork-iac/groundwork/providers"
	"github.com/groundwork-iac/groundwork/providers/builtin"
	"github.com/groundwork-iac/groundwork/resource"
	"github.com/groundwork-iac/groundwork/state"
	"github.com/groundwork-iac/groundwork/stepgen"
)

var errDeploymentOver = errors.New("the deployment has finished; no more registrations are accepted")

// deployment is one operation in flight: the parts wired together and the
// bookkeeping that joins them.
type deployment struct {
	e       *Engine
	op      Operation
	opts    options
	preview bool
	base    *state.Snapshot
	journal state.Journal // nil in a preview
	// lasting is the operation's context without its cancellation: a
	// step's outcome is recorded under it, even once the operation is
	// cancelled, since the step did run.
	lasting  context.Context
	registry *providers.Registry
	gen      *stepgen.Generator
	exec     *executor.Executor
	mon      *monitor.Monitor
	events   *eventSink
	start    time.Time

	inbox    *inbox
	stop     chan struct{}
	loopDone chan struct{}
	// callers make the provider calls the generator asks for.
	callers callers
	// refs caches parsed provider references (string → providers.Reference).
	refs sync.Map
	// builtin serves the "pulumi" package (builtin.go).
	builtin *builtin.Provider
	// hooks are the resource hooks the operation knows.
	hooks hookRegistry

	mu      sync.Mutex
	waiters map[*stepgen.Registration]func(regResult)
	records []StepRecord
	// expectedSteps sizes records when the first step ends: the number
	// of recorded resources (set by load; read under mu).
	expectedSteps int
	counts        map[StepOp]int
	errs          []error // registration errors the executor does not report
	failed        int
	// produced are the states the steps that succeeded have produced, in
	// completion order; producedIndex indexes produced[:indexed] by URN,
	// for getResource (see producedStates).
	produced      []*resource.State
	producedIndex map[resource.URN]*resource.State
	indexed       int
	// stackOutputs are the stack outputs the program registered, held
	// until the operation ends (written by the loop, read once it has
	// stopped); outputs are those recorded then.
	stackOutputs *heldOutputs
	outputs      resource.PropertyMap
	// clearPending asks finish to drop the pending operations of the
	// snapshot the operation started from.
	clearPending bool
	// order runs the steps on one resource in the order they were issued.
	order resourceOrder
	// lane runs the quick chains the loop issues.
	lane quickLane
}

// body is what one operation does once the deployment is loaded: run a
// program, refresh, delete. It returns the operation's own errors; step
// failures reach the result through the executor.
type body func(ctx context.Context, d *deployment) error

// run is the shape shared by every operation: lock, load, wire, do the
// operation's body, wait for every step, commit. Every step that completed
// is recorded whatever fails later.
func (e *Engine) run(ctx context.Context, op Operation, preview bool, opts []Option, do body) (res *Result, err error) {
	d := &deployment{
		e: e, op: op, preview: preview, events: &eventSink{fn: e.cfg.OnEvent}, start: time.Now(),
		inbox: newInbox(),
		stop:  make(chan struct{}), loopDone: make(chan struct{}),
		waiters: map[*stepgen.Registration]func(regResult){},
		counts:  map[StepOp]int{},
	}
	d.lane.d = d
	d.callers.d = d
	d.lasting = context.WithoutCancel(ctx)
	for _, o := range opts {
		o(&d.opts)
	}
	d.events.emit(OperationStartEvent{Operation: op, Preview: preview, Project: e.cfg.Project, Stack: e.cfg.Stack, Time: d.start})
	defer func() { d.summarize(err) }()
	defer func() {
		// Cancelled before anything ran: say so, not "context canceled".
		if res == nil && err != nil && ctx.Err() != nil && (errors.Is(err, ctx.Err()) || errors.Is(err, context.Cause(ctx))) {
			err = &CancelledError{Operation: op, Cause: context.Cause(ctx), Preview: preview}
		}
	}()

	if !d.preview {
		lock, err := e.cfg.Store.Lock(ctx, e.cfg.Stack, string(op))
		if err != nil {
			return nil, err
		}
		if r, ok := lock.(state.ReplacedLock); ok {
			if stale := r.Replaced(); stale != nil {
				d.events.emit(DiagnosticEvent{Severity: SeverityWarning, Message: stale.String()})
			}
		}
		defer func() {
			if uerr := lock.Unlock(context.WithoutCancel(ctx)); uerr != nil && err == nil {
				err = fmt.Errorf("releasing the stack lock: %w", uerr)
			}
		}()
	}
	if err := d.load(ctx); err != nil {
		return nil, err
	}
	defer d.closeProviders(ctx, &err)
	defer d.signalOnCancel(ctx)()
	go d.loop(ctx)
	opErr := do(ctx, d)
	d.stopLoop()
	return d.finish(ctx, opErr)
}

// load reads and verifies the last snapshot and builds the parts.
func (d *deployment) load(ctx context.Context) error {
	cfg := d.e.cfg
	// Store.Load verifies integrity (a snapshot that fails it is an
	// error wrapping *state.IntegrityError); checking again here cost a
	// tenth of an unchanged rerun of 10,000 resources (BENCHMARKS.md).
	snap, err := cfg.Store.Load(ctx, cfg.Stack)
	if err != nil {
		return err // the store's error names the stack
	}
	d.base = snap
	d.expectedSteps = len(snap.Resources)
	for _, op := range snap.PendingOperations {
		if op.Resource == nil {
			continue
		}
		d.events.emit(DiagnosticEvent{URN: op.Resource.URN, Severity: SeverityWarning, Message: fmt.Sprintf(
			"an earlier operation was interrupted while %s this resource; it may exist outside the recorded state. Run a refresh to resolve it", op.Kind)})
	}
	d.registry = cfg.Providers()
	d.builtin = d.newBuiltin()
	for _, h := range d.opts.hooks {
		if err := d.hooks.register(h); err != nil {
			return err
		}
	}
	var provs []*resource.State
	for _, s := range snap.Resources {
		if s.IsProvider() && !isBuiltinProvider(s) {
			provs = append(provs, s)
		}
	}
	if err := d.registry.Load(ctx, provs); err != nil {
		return fmt.Errorf("loading the stack's providers: %w", err)
	}
	targets, excludes, err := d.targets(snap)
	if err != nil {
		return err
	}
	if err := d.checkPlanStack(); err != nil {
		return err
	}
	// The generator and the journal each index the snapshot on their own
	// (neither changes it): for a big stack that is milliseconds apiece,
	// so the generator is built on a goroutine of its own meanwhile.
	genDone := make(chan error, 1)
	go func() {
		var err error
		d.gen, err = stepgen.New(stepgen.Config{
			Stack: cfg.Stack, Project: cfg.Project, Old: snap.Resources, Preview: d.preview,
			Providers: d, Now: time.Now, ReplaceTargets: d.opts.replaceTargets, InputsOnlyDiff: d.opts.inputsOnlyDiff,
			StackSeed: []byte(cfg.Project + "::" + cfg.Stack), Analyze: len(d.analyzers()) > 0,
			Targets: targets, Excludes: excludes, KeepUnregistered: d.op == OpImport,
			Plan: d.opts.plan, RecordPlan: d.opts.generatePlan,
		})
		genDone <- err
	}()
	if !d.preview {
		d.journal, err = cfg.Store.OpenJournal(ctx, cfg.Stack, snap)
	}
	if genErr := <-genDone; genErr != nil {
		if d.journal != nil {
			// Nothing was appended: closing leaves the stack as opening
			// left it (its snapshot checkpointed if the loaded one was
			// not the stored file) and releases the journal.
			_ = d.journal.Close(d.lasting)
			d.journal = nil
		}
		return genErr
	}
	if err != nil {
		return fmt.Errorf("opening the journal of stack %q: %w", cfg.Stack, err)
	}
	d.exec = executor.New(executor.Options{Parallelism: d.opts.parallelism, ContinueOnError: d.opts.continueOnError, Hooks: d})
	d.mon = monitor.New(monitor.Config{Deployer: d, Providers: d, Config: cfg.Config, Preview: d.preview,
		DisableDefaultProviders: d.opts.disableDefaults, Transforms: d.opts.transforms})
	return nil
}

// stopLoop ends the engine loop once no registration can arrive any more.
func (d *deployment) stopLoop() {
	select {
	case <-d.stop:
	default:
		close(d.stop)
	}
	<-d.loopDone
	d.callers.wait()
	d.lane.drain()
}

// finish waits for every step, records the outcome and gathers the errors.
func (d *deployment) finish(ctx context.Context, opErr error) (*Result, error) {
	execErr := d.exec.Wait()
	failed := opErr != nil || execErr != nil || !d.healthy() || ctx.Err() != nil
	if err := d.finishStackOutputs(ctx, failed); err != nil {
		d.noteError(err)
	}
	stackErr := d.analyzeStack(ctx)
	res := &Result{Counts: d.counts, Steps: d.records, Outputs: d.outputs}
	var commitErr error
	if d.journal != nil {
		if d.clearPending && d.healthy() && opErr == nil {
			commitErr = d.clearPendingOperations(ctx)
		}
		if commitErr == nil {
			res.Snapshot, commitErr = d.journal.Commit(context.WithoutCancel(ctx))
		}
		if cerr := d.journal.Close(context.WithoutCancel(ctx)); cerr != nil && commitErr == nil {
			commitErr = cerr
		}
		if commitErr != nil {
			commitErr = fmt.Errorf("writing the stack's state: %w", commitErr)
		}
	} else {
		res.Snapshot = d.base
	}
	d.mu.Lock()
	regErrs := d.errs
	d.mu.Unlock()
	errs := []error{opErr, execErr, stackErr, commitErr}
	errs = append(errs, regErrs...)
	if ctx.Err() != nil {
		// What only echoes the cancellation (the program stopped, steps
		// not started) is said once, by the CancelledError.
		cancelled := &CancelledError{Operation: d.op, Cause: context.Cause(ctx), Recorded: maps.Clone(d.counts), Preview: d.preview}
		errs = slices.DeleteFunc(errs, func(err error) bool {
			var unreturned *unreturnedError
			if errors.As(err, &unreturned) {
				cancelled.ProgramRunning = true
			}
			return err != nil && (errors.Is(err, cancelled.Cause) || errors.Is(err, ctx.Err()))
		})
		errs = append(errs, cancelled)
	}
	err := joinDistinct(errs)
	if err == nil && d.opts.generatePlan {
		res.Plan = d.gen.Plan()
	}
	return res, err
}

// CancelledError reports an operation stopped by its context: steps in
// flight finished and were recorded, nothing new started.
type CancelledError struct {
	Operation Operation
	Cause     error
	// Recorded counts the steps that completed before the operation
	// stopped, by kind (in a preview, nothing was recorded).
	Recorded map[StepOp]int
	Preview  bool
	// ProgramRunning is set when the program had not returned when the
	// operation ended.
	ProgramRunning bool
}

// Error says what was stopped and what was recorded.
func (e *CancelledError) Error() string {
	what := "the " + string(e.Operation)
	if e.Preview && e.Operation != OpPreview {
		what = "the preview of the " + string(e.Operation)
	}
	msg := fmt.Sprintf("%s was cancelled (%v): no new step was started", what, e.Cause)
	if e.ProgramRunning {
		msg += ", the program did not return before the operation ended"
	}
	if e.Preview {
		return msg + ", and nothing was changed"
	}
	var done []string
	for _, op := range slices.Sorted(maps.Keys(e.Recorded)) {
		if n := e.Recorded[op]; n > 0 && op != StepSame && op != StepOutputs {
			done = append(done, fmt.Sprintf("%s: %d", op, n))
		}
	}
	if len(done) == 0 {
		return msg + ", and no change had been made"
	}
	return msg + "; the steps already running finished, and the state records every change made (" + strings.Join(done, ", ") + ")"
}

// Unwrap returns the cancellation cause.
func (e *CancelledError) Unwrap() error { return e.Cause }

// healthy reports whether nothing has failed so far.
func (d *deployment) healthy() bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.failed == 0 && len(d.errs) == 0
}

// runDeletes deletes, antichain by antichain, what the program no longer
// declares, and then reports the deletes the generator refused (protected
// resources) as failed steps: those the reference engine would have come
// to, as no delete it schedules before them failed (see
// stepgen.Generator.RefusalBlockers).
func (d *deployment) runDeletes(ctx context.Context) error {
	antichains, err := d.gen.Deletes()
	if err != nil {
		return err
	}
	if err := d.knowsDeleteHooks(antichains); err != nil {
		return err
	}
	err = d.runAntichains(ctx, antichains)
	failed := d.failedURNs()
	for _, s := range d.gen.Refused() {
		if !slices.ContainsFunc(d.gen.RefusalBlockers(s, d.opts.continueOnError), func(u resource.URN) bool { return failed[u] }) {
			d.refuse(ctx, s)
		}
	}
	return err
}

// failedURNs returns the URNs of the steps that failed or were skipped so
// far.
func (d *deployment) failedURNs() map[resource.URN]bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	out := map[resource.URN]bool{}
	for _, r := range d.records {
		if r.Err != nil {
			out[r.URN] = true
		}
	}
	return out
}

// runAntichains runs the antichains of deletes one after another, the
// chains of each side by side. They bypass the resource order: the
// program is done and nothing else runs, and two chains of one antichain
// that share a URN delete two copies of a resource (its live record and
// an old copy marked for deletion), which are independent.
func (d *deployment) runAntichains(ctx context.Context, antichains [][]stepgen.Chain) error {
	for _, chains := range antichains {
		for _, ch := range chains {
			d.execute(ctx, ch, d.quick(ch), false)
		}
		if err := d.exec.WaitIdle(ctx); err != nil {
			return err
		}
		if !d.opts.continueOnError && !d.healthy() {
			return nil
		}
	}
	return nil
}

// refuse reports a step the generator refused as a failed step. It does
// not go through the executor: the refusal calls no provider and journals
// nothing, and it must not cancel the steps that can go ahead, as the
// failure of a step the executor ran would.
func (d *deployment) refuse(ctx context.Context, s *stepgen.Step) {
	rs := &runStep{Step: s, d: d}
	err := d.starting(rs)
	if err == nil {
		err = s.Apply(ctx) // calls no provider: returns the refusal
	}
	d.record(s, err, time.Since(rs.at), false)
	d.noteError(err)
}

// signalOnCancel has the providers signalled as soon as ctx is cancelled
// (the host's SIGINT), so that the calls in flight wind down and their
// steps end and are recorded. The function it returns stops watching,
// waiting for a signal under way.
func (d *deployment) signalOnCancel(ctx context.Context) func() {
	done := make(chan struct{})
	stop := context.AfterFunc(ctx, func() {
		defer close(done)
		if err := d.registry.SignalCancellation(context.WithoutCancel(ctx)); err != nil {
			d.events.emit(DiagnosticEvent{Severity: SeverityWarning, Message: "signalling the providers to cancel: " + err.Error()})
		}
	})
	return func() {
		if !stop() {
			<-done
		}
	}
}

func (d *deployment) closeProviders(ctx context.Context, errp *error) {
	if d.registry == nil || d.e.cfg.KeepProviders {
		return
	}
	if err := d.registry.Close(context.WithoutCancel(ctx)); err != nil && *errp == nil {
		*errp = fmt.Errorf("shutting down providers: %w", err)
	}
}

func (d *deployment) noteError(err error) {
	d.mu.Lock()
	d.errs = append(d.errs, err)
	d.mu.Unlock()
}

func (d *deployment) addWaiter(reg *stepgen.Registration, done func(regResult)) {
	d.mu.Lock()
	d.waiters[reg] = done
	d.mu.Unlock()
}

// complete answers a registration, once.
func (d *deployment) complete(reg *stepgen.Registration, r regResult) {
	d.mu.Lock()
	done, ok := d.waiters[reg]
	delete(d.waiters, reg)
	d.mu.Unlock()
	if ok {
		done(r)
	}
}

func (d *deployment) summarize(err error) {
	if !d.events.enabled() {
		return
	}
	ev := SummaryEvent{Operation: d.op, Counts: map[StepOp]int{}, Duration: time.Since(d.start)}
	d.mu.Lock()
	for k, v := range d.counts {
		ev.Counts[k] = v
	}
	ev.Failed = d.failed
	d.mu.Unlock()
	if err != nil {
		ev.Error = err.Error()
	} else if d.op == OpUp || d.op == OpPreview {
		ev.Outputs = maskSecrets(d.outputs)
	}
	d.events.emit(ev)
}

// joinDistinct joins the non-nil errors, dropping skips (they repeat a
// failure already reported) and repeats of the same error value.
func joinDistinct(errs []error) error {
	var out []error
	seen := map[error]bool{}
	for _, err := range errs {
		if err == nil || seen[err] {
			continue
		}
		var skip *executor.SkippedError
		if errors.As(err, &skip) {
			continue
		}
		seen[err] = true
		out = append(out, err)
	}
	switch len(out) {
	case 0:
		return nil
	case 1:
		return out[0]
	}
	return errorList(out)
}

// errorList is several errors of one operation, read as a list.
type errorList []error

func (l errorList) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d errors:", len(l))
	for _, err := range l {
		b.WriteString("\n  - ")
		b.WriteString(strings.ReplaceAll(err.Error(), "\n", "\n    "))
	}
	return b.String()
}

// Unwrap returns the errors, for errors.Is and errors.As.
func (l errorList) Unwrap() []error { return l }
