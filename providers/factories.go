package providers

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"slices"
	"sort"
)

// Factory starts a new, unconfigured instance of a provider. For an
// in-process provider it typically returns a fresh value; for a plugin it
// launches the plugin process. The registry calls it once per instance it
// needs, and closes every instance it starts.
type Factory func(ctx context.Context) (Provider, error)

// Resolver finds a factory for a package when none registered with
// RegisterFactory is compatible with the version asked for: the hook
// through which plugin binaries are found and launched. It returns the
// factory and the version it serves (a semantic version); the registry
// registers the pair, so later lookups find it without asking again.
// Returning an error means no plugin was found.
type Resolver func(ctx context.Context, pkg, version string) (Factory, string, error)

// FactoryInfo identifies the factory a lookup chose.
type FactoryInfo struct {
	Package string
	// Version is the version the factory serves, canonically formatted.
	Version string
	// Plugin and PluginVersion name the provider that actually serves
	// Package: the same as Package and Version, except for a package
	// produced by parameterizing another provider (see
	// Registry.Parameterize).
	Plugin        string
	PluginVersion string
}

// String returns "pkg@version", followed by the plugin for a
// parameterized package.
func (i FactoryInfo) String() string {
	s := i.Package + "@" + i.Version
	if i.Plugin != i.Package || i.PluginVersion != i.Version {
		s += " (served by " + i.Plugin + "@" + i.PluginVersion + ")"
	}
	return s
}

// factoryEntry is one registered factory. Entries are immutable once
// registered.
type factoryEntry struct {
	info    FactoryInfo
	version Version
	factory Factory
	// param, if set, is replayed on every new instance: the entry serves a
	// package produced by parameterizing the plugin.
	param *ParameterizeRequest
}

// build starts an instance, named name in panics and errors, and
// parameterizes it if the entry says so. The instance is wrapped with
// Recover.
func (e *factoryEntry) build(ctx context.Context, name string) (_ full, err error) {
	defer func() {
		if v := recover(); v != nil {
			err = &PanicError{Provider: name, Method: "Factory", Value: v, Stack: debug.Stack()}
		}
	}()
	raw, err := e.factory(ctx)
	if err != nil {
		return nil, fmt.Errorf("start provider %s: %w", name, err)
	}
	if raw == nil {
		return nil, fmt.Errorf("start provider %s: its factory returned no provider and no error (fix the factory)", name)
	}
	p := recoverFull(name, raw)
	if e.param != nil {
		if _, err := Parameterize(ctx, p, *e.param); err != nil {
			return nil, errors.Join(fmt.Errorf("parameterize provider %s: %w", name, err), Close(ctx, p))
		}
	}
	return p, nil
}

// RegisterFactory makes f the factory of pkg at version, a semantic version
// (MAJOR.MINOR.PATCH[-PRERELEASE][+BUILD]). Registering a second factory for
// the same package and version (build metadata aside) is an error.
func (r *Registry) RegisterFactory(pkg, version string, f Factory) error {
	if pkg == "" {
		return errors.New("register provider factory: the package name is empty")
	}
	if f == nil {
		return fmt.Errorf("register provider factory for %s@%s: the factory is nil", pkg, version)
	}
	v, err := ParseVersion(version)
	if err != nil {
		return fmt.Errorf("register provider factory for %s: %w", pkg, err)
	}
	info := FactoryInfo{Package: pkg, Version: v.String(), Plugin: pkg, PluginVersion: v.String()}
	return r.addEntry(&factoryEntry{info: info, version: v, factory: f})
}

func (r *Registry) addEntry(e *factoryEntry) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	entries := r.factories[e.info.Package]
	for _, old := range entries {
		if old.version.Compare(e.version) == 0 {
			return fmt.Errorf("register provider factory for %s: version %s is already registered (as %s); register each version once", e.info.Package, e.info.Version, old.info)
		}
	}
	entries = append(entries, e)
	sort.Slice(entries, func(i, j int) bool { return entries[i].version.Compare(entries[j].version) < 0 })
	r.factories[e.info.Package] = entries
	return nil
}

// Lookup chooses among the registered factories of pkg the one to serve
// version: the newest with the same major version that is not older than
// version. An empty version accepts any. Releases are preferred: a
// prerelease is chosen only when no release qualifies. The Resolver is not
// consulted (it needs a context; the registry consults it when it needs an
// instance). The error is a *NoFactoryError listing what is available, or
// says the version is malformed.
func (r *Registry) Lookup(pkg, version string) (FactoryInfo, error) {
	e, err := r.lookup(pkg, version)
	if err != nil {
		return FactoryInfo{}, err
	}
	return e.info, nil
}

func (r *Registry) lookup(pkg, version string) (*factoryEntry, error) {
	var want *Version
	if version != "" {
		v, err := ParseVersion(version)
		if err != nil {
			return nil, fmt.Errorf("look up provider %s: %w", pkg, err)
		}
		want = &v
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	entries := r.factories[pkg]
	var pre *factoryEntry
	for _, e := range slices.Backward(entries) {
		if want != nil && (e.version.Major != want.Major || e.version.Compare(*want) < 0) {
			continue
		}
		if !e.version.IsPrerelease() {
			return e, nil
		}
		if pre == nil {
			pre = e
		}
	}
	if pre != nil {
		return pre, nil
	}
	nf := &NoFactoryError{Package: pkg, Version: version}
	for _, e := range entries {
		nf.Available = append(nf.Available, e.info)
	}
	for p := range r.factories {
		nf.Packages = append(nf.Packages, p)
	}
	sort.Strings(nf.Packages)
	return nil, nf
}

// resolve is lookup, then the Resolver when nothing registered qualifies.
func (r *Registry) resolve(ctx context.Context, pkg, version string) (*factoryEntry, error) {
	e, err := r.lookup(pkg, version)
	var nf *NoFactoryError
	if err == nil || !errors.As(err, &nf) || r.resolver == nil {
		return e, err
	}
	f, got, rerr := r.resolver(ctx, pkg, version)
	if rerr == nil && f == nil {
		rerr = errors.New("the resolver returned no factory and no error")
	}
	if rerr != nil {
		nf.ResolveErr = rerr
		return nil, nf
	}
	if err := r.RegisterFactory(pkg, got, f); err != nil {
		// A concurrent resolution may have registered it first.
		if e, lerr := r.lookup(pkg, got); lerr == nil {
			return e, nil
		}
		nf.ResolveErr = err
		return nil, nf
	}
	return r.lookup(pkg, got)
}

// Instantiate starts a new, unconfigured instance of pkg at a version
// compatible with version (see Lookup; the Resolver is consulted too). The
// instance is wrapped with Recover and, for a parameterized package,
// already parameterized. It is not recorded in the registry: the caller
// owns it, may configure it, and must Close it. Tools use it for work that
// needs no provider resource, such as reading a schema.
func (r *Registry) Instantiate(ctx context.Context, pkg, version string) (Provider, FactoryInfo, error) {
	e, err := r.resolve(ctx, pkg, version)
	if err != nil {
		return nil, FactoryInfo{}, err
	}
	p, err := e.build(ctx, e.info.String())
	if err != nil {
		return nil, FactoryInfo{}, err
	}
	return p, e.info, nil
}
