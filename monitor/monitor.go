package monitor

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/groundwork-iac/groundwork/providers"
	"github.com/groundwork-iac/groundwork/providers/pulumi"
	"github.com/groundwork-iac/groundwork/resource"
)

// Deployer carries registrations into a deployment: the engine implements it
// by handing each one to its step generator and answering when the
// resource's step has completed.
type Deployer interface {
	// RegisterResourceAsync registers a custom or component resource. It
	// takes goal over and calls done exactly once, from any goroutine and
	// possibly before it returns, when the resource's step has completed
	// or the registration failed. It must not wait for other
	// registrations: the Monitor continues the registrations parked on a
	// default provider one after another, from one goroutine.
	RegisterResourceAsync(ctx context.Context, goal *resource.Goal, done func(providers.RegisterResult, error))
	// RegisterResourceOutputs records a component's outputs.
	RegisterResourceOutputs(ctx context.Context, urn resource.URN, outputs resource.PropertyMap) error
	// ReadResource records an external resource read by ID.
	ReadResource(ctx context.Context, goal resource.Goal, id resource.ID) (providers.RegisterResult, error)
}

// ProviderSource resolves the providers of invokes, calls and constructs.
//
// Deprecated: use providers.ProviderSource, the same interface, which
// package deploy shares.
type ProviderSource = providers.ProviderSource

// Config sets up a Monitor.
type Config struct {
	// Deployer carries the registrations into the deployment.
	Deployer Deployer
	// Providers resolves the providers of invokes, calls and constructs:
	// a *providers.Registry, or the *providers.Source an engine also
	// gives its steps.
	Providers providers.ProviderSource
	// Config is the stack configuration, keyed "<package>:<key>". A default
	// provider of a package is configured from the keys of its package.
	Config map[string]resource.PropertyValue
	// DisableDefaultProviders lists packages whose resources must name an
	// explicit provider. The built-in "pulumi" package is never disabled.
	DisableDefaultProviders []string
	// Preview is set for previews; it is passed to Construct and Call.
	Preview bool
	// Transforms rewrite every registration, in order, before anything
	// else happens to it.
	Transforms []Transform
}

// Transform rewrites a registration's inputs and options before the
// Monitor acts on it. An error fails the registration.
type Transform func(ctx context.Context, goal *resource.Goal) error

// Monitor is the single entry point of a running program: every resource
// registration, read, function invoke and method call goes through it, from
// the in-process program API and from the gRPC server alike.
//
// Before passing a custom resource on, the Monitor gives it a provider:
// the one it names, or else the default provider of its package and
// version, which the Monitor registers on first need (once per package and
// version, however many registrations race for it). A remote component is
// sent to its provider's Construct instead. A Monitor is safe for
// concurrent use.
type Monitor struct {
	cfg      Config
	disabled map[string]bool

	mu       sync.Mutex
	defaults map[packageVersion]*defaultProvider
	chosen   map[chooseKey]string // see chooseVersion
	addr     string
}

// chooseKey keys the versions VersionChooser chose: package, version
// asked for, token.
type chooseKey [3]string

// VersionChooser is implemented by a providers.ProviderSource that knows which
// version of a package's provider serves a token, such as a registry
// holding a built-in provider that serves some of its package's types
// and a plugin that serves the others (providers.Registry.ChooseVersion,
// providers.Source.ChooseVersion).
// The Monitor asks it which version a default provider must have; without
// it, a default provider has the version the registration asks for.
type VersionChooser interface {
	ChooseVersion(ctx context.Context, pkg, version, token string) (string, error)
}

// SetAddress records the address of a gRPC server that serves this Monitor
// (see package monitor/grpcserver), so that providers running as plugins
// can register a remote component's children through it.
func (m *Monitor) SetAddress(addr string) {
	m.mu.Lock()
	m.addr = addr
	m.mu.Unlock()
}

// MonitorAddress returns the address recorded by SetAddress, "" if none.
// Providers that run out of process need it for Construct and Call.
func (m *Monitor) MonitorAddress() string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.addr
}

// packageVersion keys the default providers.
type packageVersion struct{ pkg, version string }

// defaultProvider is one package's default provider: registered once, by
// whichever registration needs it first. Until then, asynchronous
// registrations that need it wait in waiting (guarded by Monitor.mu) rather
// than on a goroutine each; they are continued in the order they arrived.
type defaultProvider struct {
	done    chan struct{}
	settled bool // guarded by Monitor.mu: ref and err are known and nothing waits
	waiting []func(ref string, err error)
	ref     string
	err     error
}

// New returns a Monitor.
func New(cfg Config) *Monitor {
	m := &Monitor{cfg: cfg, disabled: map[string]bool{}, defaults: map[packageVersion]*defaultProvider{}, chosen: map[chooseKey]string{}}
	for _, p := range cfg.DisableDefaultProviders {
		// The built-in package has nothing to configure: its default
		// provider is never refused.
		if p != pulumi.Package {
			m.disabled[p] = true
		}
	}
	return m
}

// RegisterResource registers a resource and waits for its step: it is
// RegisterResourceAsync and a wait for done that watches ctx. When ctx ends
// first, it returns a *ReportedError with no URN wrapping ctx's cause, and
// the registration's answer, whenever it comes, is dropped.
func (m *Monitor) RegisterResource(ctx context.Context, goal resource.Goal) (providers.RegisterResult, error) {
	return wait(ctx, func(done func(providers.RegisterResult, error)) {
		m.RegisterResourceAsync(ctx, &goal, done)
	})
}

// wait starts a registration with start and waits for its answer or for
// ctx to end. The answer's channel has room for it, so a late answer
// leaves nothing blocked.
func wait(ctx context.Context, start func(done func(providers.RegisterResult, error))) (providers.RegisterResult, error) {
	type outcome struct {
		res providers.RegisterResult
		err error
	}
	ch := make(chan outcome, 1)
	start(func(res providers.RegisterResult, err error) { ch <- outcome{res, err} })
	select {
	case o := <-ch:
		return o.res, o.err
	case <-ctx.Done():
		return providers.RegisterResult{}, &ReportedError{Err: context.Cause(ctx)}
	}
}

// RegisterResourceAsync registers a resource without waiting for its step:
// done is called exactly once with the outcome, from any goroutine and
// possibly before RegisterResourceAsync returns. It takes goal over.
//
// No goroutine waits for the step. A registration whose package's default
// provider is still being registered is parked and continued, in arrival
// order, by the goroutine registering that provider; that registration
// runs under the context of the registration that started it, and a parked
// one is answered when it has settled (with its failure, if it failed). A
// remote component is constructed on a goroutine of its own, which ends
// when done has been called.
func (m *Monitor) RegisterResourceAsync(ctx context.Context, goal *resource.Goal, done func(providers.RegisterResult, error)) {
	for _, t := range m.cfg.Transforms {
		if err := t(ctx, goal); err != nil {
			done(providers.RegisterResult{}, fmt.Errorf("transforming %s %q: %w", goal.Type, goal.Name, err))
			return
		}
	}
	if goal.Remote {
		go func() { done(m.construct(ctx, *goal)) }()
		return
	}
	if goal.Custom && !resource.IsProviderType(goal.Type) {
		ref, ready, err := m.providerNow(ctx, goal.Type, goal.Provider, goal.Version)
		switch {
		case err != nil:
			done(providers.RegisterResult{}, providerError(*goal, err))
			return
		case !ready:
			// Continued by the default provider's registration.
			m.afterDefault(ctx, goal.Type, goal.Version, func(ref string, err error) {
				if err != nil {
					done(providers.RegisterResult{}, providerError(*goal, err))
					return
				}
				goal.Provider = ref
				m.cfg.Deployer.RegisterResourceAsync(ctx, goal, done)
			})
			return
		}
		goal.Provider = ref
	}
	m.cfg.Deployer.RegisterResourceAsync(ctx, goal, done)
}

// providerError names the resource whose provider could not be had.
func providerError(goal resource.Goal, err error) error {
	return fmt.Errorf("resource %q: %w", goal.Name, err)
}

// RegisterResourceOutputs records a component's outputs.
func (m *Monitor) RegisterResourceOutputs(ctx context.Context, urn resource.URN, outputs resource.PropertyMap) error {
	return m.cfg.Deployer.RegisterResourceOutputs(ctx, urn, outputs)
}

// ReadResource reads an external resource by ID and records it.
func (m *Monitor) ReadResource(ctx context.Context, goal resource.Goal, id resource.ID) (providers.RegisterResult, error) {
	goal.Custom = true
	ref, err := m.providerFor(ctx, goal.Type, goal.Provider, goal.Version)
	if err != nil {
		return providers.RegisterResult{}, providerError(goal, err)
	}
	goal.Provider = ref
	return m.cfg.Deployer.ReadResource(ctx, goal, id)
}

// InvokeRequest calls a provider function.
type InvokeRequest struct {
	Token string
	Args  resource.PropertyMap
	// Provider is an explicit provider reference; "" uses the default
	// provider of the token's package.
	Provider string
	Version  string
}

// Invoke calls a provider function. Arguments must be fully known and hold
// no secrets.
func (m *Monitor) Invoke(ctx context.Context, req InvokeRequest) (providers.InvokeResponse, error) {
	for _, k := range req.Args.StableKeys() {
		v := req.Args[k]
		if v.ContainsUnknowns() {
			return providers.InvokeResponse{}, fmt.Errorf("invoke %s: argument %q is unknown; functions take only known values (wait for the output before invoking)", req.Token, k)
		}
		if v.ContainsSecrets() {
			return providers.InvokeResponse{}, fmt.Errorf("invoke %s: argument %q is secret; functions take no secrets", req.Token, k)
		}
	}
	p, err := m.resolve(ctx, req.Token, req.Provider, req.Version)
	if err != nil {
		return providers.InvokeResponse{}, fmt.Errorf("invoke %s: %w", req.Token, err)
	}
	resp, err := providers.Invoke(ctx, p, providers.InvokeRequest{Token: req.Token, Args: req.Args})
	if err != nil {
		return resp, fmt.Errorf("invoke %s: %w", req.Token, err)
	}
	return resp, nil
}

// CallRequest calls a method of a component resource.
type CallRequest struct {
	Token           string
	Args            resource.PropertyMap
	ArgDependencies map[resource.PropertyKey][]resource.URN
	Provider        string
	Version         string
}

// Call calls a component's method through its provider. The provider may
// register resources through the Monitor while it runs.
func (m *Monitor) Call(ctx context.Context, req CallRequest) (providers.CallResponse, error) {
	p, err := m.resolve(ctx, req.Token, req.Provider, req.Version)
	if err != nil {
		return providers.CallResponse{}, fmt.Errorf("call %s: %w", req.Token, err)
	}
	resp, err := providers.Call(ctx, p, providers.CallRequest{
		Token: req.Token, Args: req.Args, ArgDependencies: req.ArgDependencies, Host: m, Preview: m.cfg.Preview,
		Config: m.cfg.Config,
	})
	if err != nil {
		return resp, fmt.Errorf("call %s: %w", req.Token, err)
	}
	return resp, nil
}

// resolve finds the provider serving a type or function token.
func (m *Monitor) resolve(ctx context.Context, token, ref, version string) (providers.Provider, error) {
	ref, err := m.providerFor(ctx, token, ref, version)
	if err != nil {
		return nil, err
	}
	return m.cfg.Providers.Provider(ref, token)
}

// providerFor returns the provider reference a registration uses: its own,
// or its package's default provider.
func (m *Monitor) providerFor(ctx context.Context, typ, ref, version string) (string, error) {
	if ref != "" {
		if _, err := providers.ParseReference(ref); err != nil {
			return "", fmt.Errorf("resource of type %s names a bad provider: %w", typ, err)
		}
		return ref, nil
	}
	pkg := resource.TypePackage(typ)
	if m.disabled[pkg] {
		return "", &NoProviderError{Type: typ, Package: pkg}
	}
	version, err := m.chooseVersion(ctx, pkg, version, typ)
	if err != nil {
		return "", err
	}
	return m.defaultProvider(ctx, pkg, version)
}

// chooseVersion returns the version of pkg's default provider that serves
// token when version is asked for (see VersionChooser), remembering the
// answer.
func (m *Monitor) chooseVersion(ctx context.Context, pkg, version, token string) (string, error) {
	ch, ok := m.cfg.Providers.(VersionChooser)
	if !ok {
		return version, nil
	}
	key := chooseKey{pkg, version, token}
	m.mu.Lock()
	v, hit := m.chosen[key]
	m.mu.Unlock()
	if hit {
		return v, nil
	}
	v, err := ch.ChooseVersion(ctx, pkg, version, token)
	if err != nil {
		return "", fmt.Errorf("default provider for package %s: %w", pkg, err)
	}
	m.mu.Lock()
	m.chosen[key] = v
	m.mu.Unlock()
	return v, nil
}

// providerNow is providerFor without waiting: ready is false when the
// package's default provider is not registered yet (see afterDefault).
func (m *Monitor) providerNow(ctx context.Context, typ, ref, version string) (_ string, ready bool, _ error) {
	if ref != "" {
		ref, err := m.providerFor(ctx, typ, ref, version)
		return ref, true, err
	}
	pkg := resource.TypePackage(typ)
	if m.disabled[pkg] {
		return "", true, &NoProviderError{Type: typ, Package: pkg}
	}
	version, err := m.chooseVersion(ctx, pkg, version, typ)
	if err != nil {
		return "", true, err
	}
	m.mu.Lock()
	d, ok := m.defaults[packageVersion{pkg, version}]
	settled := ok && d.settled
	m.mu.Unlock()
	if !settled {
		return "", false, nil
	}
	return d.ref, true, d.err
}

// afterDefault calls then once the default provider of typ's package and
// version is registered (or has failed): at once if it is already, else
// from the goroutine that registers it, starting that registration if
// nobody has.
func (m *Monitor) afterDefault(ctx context.Context, typ, version string, then func(ref string, err error)) {
	pkg := resource.TypePackage(typ)
	version, err := m.chooseVersion(ctx, pkg, version, typ)
	if err != nil {
		then("", err)
		return
	}
	key := packageVersion{pkg, version}
	m.mu.Lock()
	d, ok := m.defaults[key]
	switch {
	case ok && d.settled:
		m.mu.Unlock()
		then(d.ref, d.err)
		return
	case ok:
		d.waiting = append(d.waiting, then)
		m.mu.Unlock()
		return
	}
	d = &defaultProvider{done: make(chan struct{}), waiting: []func(string, error){then}}
	m.defaults[key] = d
	m.mu.Unlock()
	go m.registerDefault(ctx, pkg, version, d)
}

// defaultProvider registers the default provider of a package and version
// the first time it is needed; concurrent callers wait for that one
// registration. Reads, invokes and calls pass here (registrations look with
// providerNow and wait with afterDefault); the registration itself is in
// registerDefault.
func (m *Monitor) defaultProvider(ctx context.Context, pkg, version string) (string, error) {
	key := packageVersion{pkg, version}
	m.mu.Lock()
	d, ok := m.defaults[key]
	if !ok {
		d = &defaultProvider{done: make(chan struct{})}
		m.defaults[key] = d
	}
	settled := ok && d.settled
	m.mu.Unlock()
	if settled {
		return d.ref, d.err
	}
	if !ok {
		return m.registerDefault(ctx, pkg, version, d)
	}
	select {
	case <-d.done:
		return d.ref, d.err
	case <-ctx.Done():
		return "", context.Cause(ctx)
	}
}

// registerDefault registers the default provider d of a package and
// version, records its reference (or the failure) in d and continues the
// registrations waiting for it.
//
// d stays unsettled until no registration waits any more, so that one
// arriving while the others are continued queues behind them rather than
// overtaking them: registrations reach the Deployer in the order they came.
// Synchronous callers (defaultProvider) need not wait for that: d.done is
// closed as soon as the outcome is known.
func (m *Monitor) registerDefault(ctx context.Context, pkg, version string, d *defaultProvider) (string, error) {
	ref, err := m.registerDefaultResource(ctx, pkg, version)
	m.mu.Lock()
	d.ref, d.err = ref, err
	close(d.done)
	for len(d.waiting) > 0 {
		waiting := d.waiting
		d.waiting = nil
		m.mu.Unlock()
		for _, then := range waiting {
			then(ref, err)
		}
		m.mu.Lock()
	}
	d.settled = true
	m.mu.Unlock()
	return ref, err
}

// registerDefaultResource registers the provider resource of a package's
// default provider and returns its reference.
func (m *Monitor) registerDefaultResource(ctx context.Context, pkg, version string) (string, error) {
	inputs := m.defaultConfig(pkg)
	if version != "" {
		inputs["version"] = resource.NewString(version)
	}
	goal := &resource.Goal{
		Type:   providers.ProviderType(pkg),
		Name:   providers.DefaultProviderName(version),
		Custom: true,
		Inputs: inputs,
	}
	res, err := wait(ctx, func(done func(providers.RegisterResult, error)) {
		m.cfg.Deployer.RegisterResourceAsync(ctx, goal, done)
	})
	if err != nil {
		return "", fmt.Errorf("default provider for package %s: %w", pkg, err)
	}
	id := res.ID
	if id == "" {
		id = providers.UnknownID
	}
	return providers.NewReference(res.URN, id).String(), nil
}

// defaultConfig collects the stack config keys of a package, stripped of
// the "<package>:" prefix. A dynamic provider (providers.IsDynamic) gets
// the whole stack configuration, keys as they are: its resources' code may
// read any of it, and it reads keys with their namespaces, as under
// Pulumi's engine.
func (m *Monitor) defaultConfig(pkg string) resource.PropertyMap {
	dynamic := providers.IsDynamic(pkg)
	prefix := pkg + ":"
	out := resource.PropertyMap{}
	keys := make([]string, 0, len(m.cfg.Config))
	for k := range m.cfg.Config {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if dynamic {
			out[resource.PropertyKey(k)] = m.cfg.Config[k]
			continue
		}
		if rest, ok := strings.CutPrefix(k, prefix); ok && rest != "" {
			out[resource.PropertyKey(rest)] = m.cfg.Config[k]
		}
	}
	return out
}

// ReportedError is how a Deployer fails a registration whose failure the
// deployment reports itself, so that the operation fails with it whatever
// the program does: the resource's step failed, or was skipped because a
// resource it needs did not succeed (URN names the resource), or the
// deployment is ending or the registration's context ended (URN is
// empty). A server can then tell a program that the deployment is going
// away, or that a registration whose step did not succeed is answered,
// rather than hand it an error to report (see monitor/grpcserver); the
// program API does not report it a second time.
type ReportedError struct {
	Err error
	// URN names the resource when Err is the outcome of its step; the
	// resource was registered, only its step did not succeed, so an
	// operation that continues after errors goes on.
	URN resource.URN
	// Skipped says the step never ran, because a resource it needs did
	// not succeed.
	Skipped bool
}

// Error names the resource whose step did not succeed, once.
func (e *ReportedError) Error() string {
	msg := e.Err.Error()
	if e.URN == "" || strings.Contains(msg, string(e.URN)) {
		return msg
	}
	return string(e.URN) + ": " + msg
}

func (e *ReportedError) Unwrap() error { return e.Err }

// Reported reports whether err is a failure the deployment has reported
// itself (a *ReportedError).
func Reported(err error) bool {
	var r *ReportedError
	return errors.As(err, &r)
}

// StepOutcome reports whether err is the outcome of a registered
// resource's step (a *ReportedError naming the resource), and if so the
// resource's URN and whether the step was skipped.
func StepOutcome(err error) (urn resource.URN, skipped, ok bool) {
	var r *ReportedError
	if !errors.As(err, &r) || r.URN == "" {
		return "", false, false
	}
	return r.URN, r.Skipped, true
}

// NoProviderError reports a custom resource that names no provider while
// default providers are disabled for its package.
type NoProviderError struct {
	Type    string
	Package string
}

func (e *NoProviderError) Error() string {
	return fmt.Sprintf("resource of type %s names no provider and default providers are disabled for package %q; pass an explicit provider", e.Type, e.Package)
}
