package providers

import (
	"context"
	"crypto/rand"
	"fmt"
	"sort"
	"sync"
	"sync/atomic"

	"github.com/hashicorp/go-multierror"

	"github.com/groundwork-iac/groundwork/resource"
)

// Registry holds a deployment's providers. It knows three things:
//
//   - factories, by package and semantic version (RegisterFactory, Lookup,
//     a Resolver for plugins, Parameterize for packages produced by
//     parameterization);
//   - live provider instances, by Reference (Get);
//   - and how to manage provider resources: the Registry is itself the
//     Provider of every resource of type "pulumi:providers:<package>".
//     Its Check is the package's CheckConfig, its Diff is DiffConfig, its
//     Create and Update start and configure an instance and record it under
//     the resource's Reference, and its Delete closes and forgets it.
//
// A provider resource's inputs are the provider's configuration plus a few
// keys the registry reads and keeps out of the configuration it hands the
// provider: VersionKey (the package version wanted), PluginDownloadURLKey
// (where a plugin can be fetched; for the Resolver's use),
// ParameterizationKey (written by the registry for parameterized packages)
// and InternalKey (bookkeeping of Pulumi's engine and of plugins, never
// diffed).
//
// A Registry is a value the host builds with NewRegistry and passes in;
// there is no global one. It is safe for concurrent use. Close shuts every
// instance down; after it the registry refuses new work.
type Registry struct {
	resolver Resolver
	newID    func() resource.ID
	// preferPlugin holds the packages whose registered factories are
	// passed over for a plugin (see PreferPlugins).
	preferPlugin map[string]bool

	mu        sync.Mutex
	closed    bool
	factories map[string][]*factoryEntry // by package, ascending versions
	instances map[Reference]*instance
	// live mirrors instances (Reference → *instance) for Get, which every
	// provider call and step makes: reads take no lock. It is written
	// under mu, with instances.
	live sync.Map
	// gen counts the changes to instances and aliases, so that a Source
	// can tell whether what it resolved a reference to still holds. It is
	// written under mu, with them.
	gen atomic.Uint64
	// aliases maps a reference to the one whose instance answers for it
	// (see Alias).
	aliases  map[Reference]Reference
	checkers map[FactoryInfo]*checker
}

var _ Provider = (*Registry)(nil)

// Option configures a Registry.
type Option func(*Registry)

// WithResolver sets the hook the registry asks for a factory when no
// registered one is compatible with the version wanted.
func WithResolver(res Resolver) Option { return func(r *Registry) { r.resolver = res } }

// PreferPlugins makes the registry serve the given packages with plugins
// the Resolver finds, never with the factories the host registered for
// them: for a user who wants a provider's real plugin rather than the
// built-in provider that stands in for it (random, command). Without a
// plugin for such a package, its lookups fail with a *NoFactoryError that
// says which plugin to install.
func PreferPlugins(pkgs ...string) Option {
	return func(r *Registry) {
		if r.preferPlugin == nil {
			r.preferPlugin = map[string]bool{}
		}
		for _, p := range pkgs {
			r.preferPlugin[p] = true
		}
	}
}

// shunned reports whether e is a registered factory of a package whose
// plugins are preferred (see PreferPlugins).
func (r *Registry) shunned(e *factoryEntry) bool {
	return !e.resolved && r.preferPlugin[e.info.Package]
}

// WithIDs sets how the registry makes the IDs of provider resources it
// creates (outside previews). The default is a random UUID; tests that want
// reproducible output pass a counter.
func WithIDs(newID func() resource.ID) Option { return func(r *Registry) { r.newID = newID } }

// NewRegistry returns an empty registry.
func NewRegistry(opts ...Option) *Registry {
	r := &Registry{
		newID:     newUUID,
		factories: map[string][]*factoryEntry{},
		instances: map[Reference]*instance{},
		aliases:   map[Reference]Reference{},
		checkers:  map[FactoryInfo]*checker{},
	}
	for _, o := range opts {
		if o != nil {
			o(r)
		}
	}
	return r
}

// newUUID returns a random (version 4) UUID.
func newUUID() resource.ID {
	var b [16]byte
	_, _ = rand.Read(b[:]) // never fails (see crypto/rand.Read)
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return resource.ID(fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16]))
}

func (r *Registry) isClosed() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.closed
}

// Get returns the provider instance that ref names, configured for the
// resources it manages, and false if the registry has none (its provider
// resource was never created, loaded, or has been deleted).
//
// The instance is guarded: a panic in it is returned as a *PanicError, and
// a call the lifecycle forbids (a resource operation on an instance that
// is not configured, or that is closed) is a *LifecycleError. An instance
// loaded from state is started and configured on its first call. One whose
// configuration had unknown values in a preview is not configured; it
// answers what it can without the provider: Check accepts the inputs, Diff
// says DiffUnknown, Create and Update in a preview echo the inputs (the
// other outputs are unknown), Read returns the recorded state, Invoke
// returns nothing, and everything else is a *LifecycleError.
//
// Like every wrapper in this package, the instance implements all optional
// interfaces; detect abilities by calling (see CheckConfig, Invoke, ...).
//
// A reference that has no instance of its own is answered by the instance
// of the reference it is an alias of (see Alias).
func (r *Registry) Get(ref Reference) (Provider, bool) {
	if inst, ok := r.live.Load(ref); ok {
		return inst.(*instance), true
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	inst, ok := r.instances[ref]
	if !ok {
		if inst, ok = r.aliased(ref); !ok {
			return nil, false
		}
	}
	return inst, true
}

// Provider resolves the provider a step or a provider call of a resource
// of type typ is made with, ref being the resource's provider reference: a
// provider resource is the registry's own to create, configure and check;
// any other resource is answered by the instance ref names (see Get). It
// makes the registry a ProviderSource.
func (r *Registry) Provider(ref, typ string) (Provider, error) {
	if resource.IsProviderType(typ) {
		return r, nil
	}
	parsed, err := ParseReference(ref)
	if err != nil {
		return nil, fmt.Errorf("resource of type %s: %w", typ, err)
	}
	p, ok := r.Get(parsed)
	if !ok {
		return nil, fmt.Errorf("provider %s is unknown: it was neither registered in this run nor loaded from the stack's state", ref)
	}
	return p, nil
}

// aliased returns the instance of the reference ref is an alias of. Called
// with r.mu held.
func (r *Registry) aliased(ref Reference) (*instance, bool) {
	target, ok := r.aliases[ref]
	if !ok {
		return nil, false
	}
	inst, ok := r.instances[target]
	return inst, ok
}

// Alias makes the instance recorded under target answer for ref too,
// whenever no instance is recorded under ref itself. A provider resource
// renamed through an alias keeps its ID, so it is the same provider under
// another URN: the resources it manages name it by its new reference once
// their steps rewrite their records, and by its old one until then. Load
// aliases the old references of every provider resource it records (their
// Aliases) to the new; a host that renames a provider resource without
// starting it again (its configuration unchanged) aliases the new
// reference to the old. An alias does not chain: target must have an
// instance of its own.
func (r *Registry) Alias(ref, target Reference) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if ref != target {
		r.aliases[ref] = target
		r.gen.Add(1)
	}
}

// Load records the provider resources among states (others are skipped),
// so that Get finds them. Nothing is started: each instance is started and
// configured from its recorded inputs (without CheckConfig, which they
// passed when recorded) on its first call.
//
// Load reconciles, so a host may keep a registry across operations and Load
// each operation's snapshot into it: a reference already recorded with the
// same version and configuration keeps its live instance; one recorded
// differently — or left unconfigured by a preview, or whose configuration
// failed — is replaced, and the old instance shut down.
//
// A state without an ID or with a malformed version is an error; the
// others are still loaded, and the errors are returned together.
func (r *Registry) Load(ctx context.Context, states []*resource.State) error {
	var errs *multierror.Error
	for _, s := range states {
		if s == nil || !resource.IsProviderType(s.Type) {
			continue
		}
		if err := ctx.Err(); err != nil {
			return multierror.Append(errs, err).ErrorOrNil()
		}
		if err := r.load(ctx, s); err != nil {
			errs = multierror.Append(errs, err)
		}
	}
	return errs.ErrorOrNil()
}

func (r *Registry) load(ctx context.Context, s *resource.State) error {
	ref := NewReference(s.URN, s.ID)
	fail := func(format string, args ...any) error {
		return fmt.Errorf("load provider %s: %s", ref, fmt.Sprintf(format, args...))
	}
	if s.ID == "" || s.ID == UnknownID {
		return fail("the recorded state has no ID; a provider resource is recorded only once created (repair the state)")
	}
	pkg, _ := PackageOfProviderType(s.Type)
	if pkg == "" || s.URN.Type() != s.Type {
		return fail("its URN's type %q does not match its type %q", s.URN.Type(), s.Type)
	}
	version, failure := versionOf(s.Inputs)
	if failure != nil {
		return fail("%s", failure)
	}
	var param *parameterization
	if v, ok := s.Inputs[ParameterizationKey]; ok {
		p, err := decodeParameterization(v)
		if err != nil {
			return fail("%v", err)
		}
		param = p
	}
	inst := newInstance(r, ref, pkg, version, configOf(s.Inputs))
	inst.param = param
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		return fmt.Errorf("load provider %s: %w", ref, ErrRegistryClosed)
	}
	for _, a := range s.Aliases {
		if old := NewReference(a, s.ID); old != ref {
			r.aliases[old] = ref
			r.gen.Add(1)
		}
	}
	old := r.instances[ref]
	if old != nil && old.serves(version, inst.config) {
		r.mu.Unlock()
		return nil
	}
	r.instances[ref] = inst
	r.live.Store(ref, inst)
	r.gen.Add(1)
	r.mu.Unlock()
	if old != nil {
		return wrapf(old.shutdown(ctx), "load provider %s: shut down the instance it replaces", ref)
	}
	return nil
}

// swap records inst under its reference and returns the instance it
// replaces, if any.
func (r *Registry) swap(inst *instance) (*instance, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return nil, ErrRegistryClosed
	}
	old := r.instances[inst.ref]
	r.instances[inst.ref] = inst
	r.live.Store(inst.ref, inst)
	r.gen.Add(1)
	return old, nil
}

// forget removes the instance recorded under ref, or else under the
// reference ref is an alias of, and returns it.
func (r *Registry) forget(ref Reference) *instance {
	r.mu.Lock()
	defer r.mu.Unlock()
	inst, ok := r.instances[ref]
	if !ok {
		ref = r.aliases[ref]
		inst = r.instances[ref]
	}
	delete(r.instances, ref)
	r.live.Delete(ref)
	r.gen.Add(1)
	return inst
}

// checker is an unconfigured instance of one package version, kept to run
// CheckConfig and DiffConfig, which need no configuration.
type checker struct {
	mu     sync.Mutex
	p      Provider
	closed bool
}

func (r *Registry) checkerFor(ctx context.Context, e *factoryEntry) (Provider, error) {
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		return nil, ErrRegistryClosed
	}
	c := r.checkers[e.info]
	if c == nil {
		c = &checker{}
		r.checkers[e.info] = c
	}
	r.mu.Unlock()

	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return nil, ErrRegistryClosed
	}
	if c.p == nil {
		p, err := e.build(ctx, e.info.String())
		if err != nil {
			return nil, err
		}
		c.p = p
	}
	return c.p, nil
}

// adoptChecker makes p the checker of info unless there is one already; it
// reports whether p was adopted.
func (r *Registry) adoptChecker(info FactoryInfo, p Provider) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed || r.checkers[info] != nil {
		return false
	}
	r.checkers[info] = &checker{p: p}
	return true
}

// SignalCancellation asks every started provider instance, and every
// unconfigured one kept for CheckConfig and DiffConfig, to wind down the
// work it has in flight. Unlike Close it shuts nothing down: calls are
// still served, so the steps running can finish and be recorded. A host
// calls it when an operation is cancelled (the engine does, as soon as
// the operation's context ends). Every failure is collected.
func (r *Registry) SignalCancellation(ctx context.Context) error {
	r.mu.Lock()
	insts := make([]*instance, 0, len(r.instances))
	for _, inst := range r.instances {
		insts = append(insts, inst)
	}
	checkers := make([]*checker, 0, len(r.checkers))
	for _, c := range r.checkers {
		checkers = append(checkers, c)
	}
	r.mu.Unlock()
	var errs *multierror.Error
	for _, inst := range insts {
		if err := inst.SignalCancellation(ctx); err != nil {
			errs = multierror.Append(errs, fmt.Errorf("signal provider %s: %w", inst.ref, err))
		}
	}
	for _, c := range checkers {
		c.mu.Lock()
		p := c.p
		c.mu.Unlock()
		if p != nil {
			if err := SignalCancellation(ctx, p); err != nil {
				errs = multierror.Append(errs, fmt.Errorf("signal provider: %w", err))
			}
		}
	}
	return errs.ErrorOrNil()
}

// Close shuts the registry down: it refuses new calls on every instance,
// calls SignalCancellation on every started instance, and only then waits
// for each one's calls in flight (until ctx ends) and calls its Close.
// Every failure is collected; the error names each provider that failed.
// Close is idempotent; after it, the registry refuses new work with
// ErrRegistryClosed, and its instances refuse calls with ErrClosed.
//
// Providers are closed with ctx even if it has ended, so that a provider
// still releases what it holds; they should not block on it.
func (r *Registry) Close(ctx context.Context) error {
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		return nil
	}
	r.closed = true
	insts := make([]*instance, 0, len(r.instances))
	for _, inst := range r.instances {
		insts = append(insts, inst)
	}
	infos := make([]FactoryInfo, 0, len(r.checkers))
	for info := range r.checkers {
		infos = append(infos, info)
	}
	checkers := r.checkers
	r.mu.Unlock()
	sort.Slice(insts, func(i, j int) bool { return insts[i].ref.String() < insts[j].ref.String() })
	sort.Slice(infos, func(i, j int) bool { return infos[i].String() < infos[j].String() })

	var errs *multierror.Error
	// Stop new calls and signal everyone before anything is closed.
	live := make([]Provider, len(insts))
	stopped := make([]bool, len(insts))
	for i, inst := range insts {
		p, first := inst.stop()
		stopped[i] = first // else it was shut down already
		if first && p != nil {
			live[i] = p
		}
	}
	checkerPs := make([]Provider, len(infos))
	for i, info := range infos {
		c := checkers[info]
		c.mu.Lock()
		c.closed = true
		checkerPs[i] = c.p
		c.mu.Unlock()
	}
	for i, p := range live {
		if p != nil {
			if err := SignalCancellation(ctx, p); err != nil {
				errs = multierror.Append(errs, fmt.Errorf("signal provider %s: %w", insts[i].ref, err))
			}
		}
	}
	for i, p := range checkerPs {
		if p != nil {
			if err := SignalCancellation(ctx, p); err != nil {
				errs = multierror.Append(errs, fmt.Errorf("signal provider %s: %w", infos[i], err))
			}
		}
	}
	for i, inst := range insts {
		if !stopped[i] {
			continue
		}
		if err := inst.drainAndClose(ctx); err != nil {
			errs = multierror.Append(errs, err)
		}
	}
	for i, p := range checkerPs {
		if p != nil {
			if err := Close(ctx, p); err != nil {
				errs = multierror.Append(errs, fmt.Errorf("close provider %s: %w", infos[i], err))
			}
		}
	}
	return errs.ErrorOrNil()
}
