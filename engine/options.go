package engine

import (
	"time"

	"github.com/groundwork-iac/groundwork/monitor"
	"github.com/groundwork-iac/groundwork/plan"
	"github.com/groundwork-iac/groundwork/resource"
)

// Option adjusts one operation.
type Option func(*options)

type options struct {
	parallelism      int
	continueOnError  bool
	expectNoChanges  bool
	replaceTargets   []resource.URN
	inputsOnlyDiff   bool
	refreshFirst     bool
	targets          []resource.URN
	targetDependents bool
	excludes         []resource.URN
	disableDefaults  []string
	analyzers        []Analyzer
	transforms       []Transform
	generatePlan     bool
	plan             *plan.Plan
	hooks            []*Hook
	grace            *time.Duration
	discardPending   bool
	secrets          *resource.SecretFilter
	message          string
}

// Message describes the operation in the stack's history (see
// state.HistoryRecorder), as the Pulumi CLI's --message does: the user's
// own text, recorded as given. A preview records no history, so it
// ignores the message.
func Message(text string) Option { return func(o *options) { o.message = text } }

// DiscardPendingCreates makes a refresh drop, on purpose, the pending
// creates it cannot resolve: creates an interrupted run left before their
// provider returned an ID, whose resource a refresh cannot look up.
// Without it they stay recorded, and every operation warns of each with
// its type and inputs so that the resource can be found and imported.
// Use it once each such resource is known not to exist, or has been
// imported (gw refresh --discard-pending-creates).
func DiscardPendingCreates() Option { return func(o *options) { o.discardPending = true } }

// Parallelism bounds how many steps run at once, and how many provider
// calls (Check, Diff, analyzer runs) are made at once; 0 (the default)
// means no bound on steps beyond what the dependency graph imposes, and a
// few hundred calls.
func Parallelism(n int) Option { return func(o *options) { o.parallelism = n } }

// GracePeriod sets how long a provider call already made may still
// answer once the operation's context is cancelled, or once the call has
// outlived its resource's custom timeout (the CustomTimeouts resource
// option); DefaultGracePeriod without this option. Cancellation starts no
// new step, signals the providers to wind down, and gives the creates,
// updates and deletes in flight this long to answer: their answers are
// recorded. One that does not answer in time fails with an
// *UnansweredError and stays recorded as a pending operation naming its
// resource, which a refresh resolves. 0 gives the calls in flight no time
// at all: they are cancelled with the operation, and stay pending.
func GracePeriod(d time.Duration) Option { return func(o *options) { o.grace = &d } }

// ContinueOnError keeps going after a step fails: only the resources that
// depend on the failed one are skipped. Without it the first failure stops
// new steps from starting (steps in flight finish and are recorded).
func ContinueOnError() Option { return func(o *options) { o.continueOnError = true } }

// ExpectNoChanges makes the operation fail, changing nothing, if any
// resource would be created, updated, replaced or deleted.
func ExpectNoChanges() Option { return func(o *options) { o.expectNoChanges = true } }

// ReplaceTargets forces the named resources to be replaced whatever their
// diff says.
func ReplaceTargets(urns ...resource.URN) Option {
	return func(o *options) { o.replaceTargets = append(o.replaceTargets, urns...) }
}

// InputsOnlyDiff decides updates by comparing old and new inputs, without
// asking providers to diff.
func InputsOnlyDiff() Option { return func(o *options) { o.inputsOnlyDiff = true } }

// RefreshFirst makes Up refresh the stack (as its own operation) before
// updating it, and Preview preview against the stack as that refresh
// would leave it, still writing nothing.
func RefreshFirst() Option { return func(o *options) { o.refreshFirst = true } }

// Targets limits the operation to these resources: others keep their
// recorded state untouched, are not created if new, and are not deleted.
func Targets(urns ...resource.URN) Option {
	return func(o *options) { o.targets = append(o.targets, urns...) }
}

// TargetDependents extends Targets (and Excludes) to every resource that
// depends on a named one, transitively.
func TargetDependents() Option { return func(o *options) { o.targetDependents = true } }

// Excludes keeps the operation away from these resources.
func Excludes(urns ...resource.URN) Option {
	return func(o *options) { o.excludes = append(o.excludes, urns...) }
}

// DisableDefaultProviders makes the resources of these packages name an
// explicit provider; registering one without is an error.
func DisableDefaultProviders(pkgs ...string) Option {
	return func(o *options) { o.disableDefaults = append(o.disableDefaults, pkgs...) }
}

// Analyzers runs policies on every resource after Check and on the stack at
// the end of the operation.
func Analyzers(as ...Analyzer) Option {
	return func(o *options) { o.analyzers = append(o.analyzers, as...) }
}

// Transform rewrites a registration's inputs and options (its
// resource.Goal) before it reaches the step generator. Pass stack-wide
// transforms with the Transforms option, or add one to a running program
// with Context.RegisterTransform.
type Transform = monitor.Transform

// Transforms rewrites every registration of the operation (in-process or
// over gRPC) before it reaches the step generator, in order.
func Transforms(ts ...Transform) Option {
	return func(o *options) { o.transforms = append(o.transforms, ts...) }
}

// MaskSecrets has the operation record in f the plaintext of every secret
// it handles (configuration, inputs, outputs, provider configuration) and
// mask them with it in every message it lets out. Without it an operation
// has a filter of its own; a host passes one to mask, with the same
// secrets, what it prints beside the operation's events and errors, such
// as a plugin's stderr (plugin.Options.Diagnostics).
func MaskSecrets(f *resource.SecretFilter) Option { return func(o *options) { o.secrets = f } }
