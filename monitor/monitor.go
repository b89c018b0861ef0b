package monitor

import (
	"context"
	"fmt"
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
