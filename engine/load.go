package engine

import (
	"context"
	"fmt"

	"github.com/groundwork-iac/groundwork/deploy"
	"github.com/groundwork-iac/groundwork/monitor"
	"github.com/groundwork-iac/groundwork/providers"
	"github.com/groundwork-iac/groundwork/providers/pulumi"
	"github.com/groundwork-iac/groundwork/resource"
	"github.com/groundwork-iac/groundwork/state"
	"github.com/groundwork-iac/groundwork/stepgen"
)

// load reads and verifies the last snapshot and builds the parts: the
// provider registry with the stack's providers, the journal, the
// generator over the snapshot, the host that runs its loop (its steps and
// provider calls), and the monitor the program registers through.
func (d *deployment) load(ctx context.Context) error {
	cfg := d.e.cfg
	// Store.Load verifies integrity (a snapshot that fails it is an
	// error wrapping *state.IntegrityError).
	snap, err := cfg.Store.Load(ctx, cfg.stackID())
	if err != nil {
		return err // the store's error names the stack
	}
	if err := state.CheckProject(cfg.stackID(), snap); err != nil {
		return err
	}
	d.base = snap
	d.learnSnapshot(snap) // before any provider is loaded (secrets.go)
	for _, op := range snap.PendingOperations {
		if op.Resource == nil {
			continue
		}
		msg := fmt.Sprintf("an earlier operation was interrupted while %s this resource; it may exist outside the recorded state. Run a refresh to resolve it", op.Kind)
		if unresolvable(op) {
			msg = unresolvedMessage(op)
		}
		d.events.emit(DiagnosticEvent{URN: op.Resource.URN, Severity: SeverityWarning, Message: msg})
	}
	d.registry = cfg.Providers()
	d.source = d.registry.Serving(pulumi.Package, d.newBuiltin())
	d.bounds = deploy.NewBounds(d.source, d.grace())
	if err := d.newHooks(); err != nil {
		return err
	}
	var provs []*resource.State
	for _, s := range snap.Resources {
		if s.IsProvider() {
			provs = append(provs, s)
		}
	}
	if err := d.source.Load(ctx, provs); err != nil {
		return fmt.Errorf("loading the stack's providers: %w", err)
	}
	targets, excludes, err := stepgen.TargetSets(snap.Resources, d.opts.targets, d.opts.excludes, d.opts.targetDependents)
	if err != nil {
		return err
	}
	if err := d.checkPlan(); err != nil {
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
			ContinueOnError: d.opts.continueOnError,
			ReplaceTargets:  d.opts.replaceTargets, InputsOnlyDiff: d.opts.inputsOnlyDiff,
			StackSeed: []byte(cfg.Project + "::" + cfg.Stack), Analyze: len(d.opts.analyzers) > 0,
			Targets: targets, Excludes: excludes, KeepUnregistered: d.op == OpImport,
			Plan: d.opts.plan, RecordPlan: d.opts.generatePlan,
		})
		genDone <- err
	}()
	if !d.preview {
		d.journal, err = cfg.Store.OpenJournal(ctx, cfg.stackID(), snap)
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
	d.host = d.newHost()
	d.mon = monitor.New(monitor.Config{Deployer: d.host, Providers: d.source, Config: cfg.Config, Preview: d.preview,
		DisableDefaultProviders: d.opts.disableDefaults, Transforms: d.opts.transforms})
	return nil
}

// The monitor asks its provider source which version a default provider
// must have when the source can say (monitor.VersionChooser).
var _ monitor.VersionChooser = (*providers.Source)(nil)
