package monitor

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/groundwork-iac/groundwork/providers"
	"github.com/groundwork-iac/groundwork/resource"
)

// chooseKey keys the versions VersionChooser chose: package, version
// asked for, token.
type chooseKey [3]string

// VersionChooser is implemented by a providers.ProviderSource that knows
// which version of a package's provider serves a token, such as a
// registry holding a built-in provider that serves some of its package's
// types and a plugin that serves the others
// (providers.Registry.ChooseVersion, providers.Source.ChooseVersion).
// The Monitor asks it which version a default provider must have; without
// it, a default provider has the version the registration asks for.
type VersionChooser interface {
	ChooseVersion(ctx context.Context, pkg, version, token string) (string, error)
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
