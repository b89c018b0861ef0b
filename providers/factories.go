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
	// tokens, if set, are the only resource types and function tokens the
	// entry's provider serves (see Tokens).
	tokens map[string]bool
	// resolved is set for an entry the Resolver found (a plugin), rather
	// than one the host registered.
	resolved bool
	// claimsMajor is set for an entry that serves every version of its
	// major version, newer ones included (see ClaimMajor).
	claimsMajor bool
}

// qualifies reports whether the entry may serve version want (nil: any),
// and whether only by its claim (see ClaimMajor): it is older than want.
func (e *factoryEntry) qualifies(want *Version) (ok, byClaim bool) {
	if want == nil {
		return true, false
	}
	if e.version.Major != want.Major {
		return false, false
	}
	if e.version.Compare(*want) >= 0 {
		return true, false
	}
	return e.claimsMajor, e.claimsMajor
}

// serves reports whether the entry's provider serves token.
func (e *factoryEntry) serves(token string) bool { return e.tokens == nil || e.tokens[token] }

// FactoryOption refines a factory registered with RegisterFactory.
type FactoryOption func(*factoryEntry)

// Tokens declares every resource type and function token the factory's
// provider serves. A factory registered without it serves every token of
// its package. For any other token of the package, the Monitor's default
// provider comes from another factory or a plugin instead (see
// ChooseVersion): a built-in provider that shares its package's name with
// a provider plugin (random, command) declares its tokens, so that a
// program that uses the plugin's types gets the plugin.
func Tokens(tokens ...string) FactoryOption {
	return func(e *factoryEntry) {
		e.tokens = make(map[string]bool, len(tokens))
		for _, t := range tokens {
			e.tokens[t] = true
		}
	}
}

// ClaimMajor declares that the factory serves every version of its major
// version, newer ones included: a built-in provider that stands in for a
// plugin's whole major line (pulumi-random 4.x) serves a program that
// asks for any 4.x release. A factory that qualifies only by its claim
// (the version asked for is newer than its own) comes after every other
// that qualifies, plugins the Resolver found included, so that a plugin
// found for a token the built-in does not serve (see ChooseVersion) is
// chosen at the version it was found at.
func ClaimMajor() FactoryOption {
	return func(e *factoryEntry) { e.claimsMajor = true }
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
func (r *Registry) RegisterFactory(pkg, version string, f Factory, opts ...FactoryOption) error {
	e, err := newEntry(pkg, version, f)
	if err != nil {
		return err
	}
	for _, o := range opts {
		o(e)
	}
	return r.addEntry(e)
}

// newEntry checks a factory registration and makes its entry.
func newEntry(pkg, version string, f Factory) (*factoryEntry, error) {
	if pkg == "" {
		return nil, errors.New("register provider factory: the package name is empty")
	}
	if f == nil {
		return nil, fmt.Errorf("register provider factory for %s@%s: the factory is nil", pkg, version)
	}
	v, err := ParseVersion(version)
	if err != nil {
		return nil, fmt.Errorf("register provider factory for %s: %w", pkg, err)
	}
	info := FactoryInfo{Package: pkg, Version: v.String(), Plugin: pkg, PluginVersion: v.String()}
	return &factoryEntry{info: info, version: v, factory: f}, nil
}

func (r *Registry) addEntry(e *factoryEntry) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, old := range r.factories[e.info.Package] {
		if old.version.Compare(e.version) == 0 {
			return fmt.Errorf("register provider factory for %s: version %s is already registered (as %s); register each version once", e.info.Package, e.info.Version, old.info)
		}
	}
	r.insertLocked(e)
	return nil
}

// insertLocked adds e to its package's entries, in ascending versions.
func (r *Registry) insertLocked(e *factoryEntry) {
	entries := append(r.factories[e.info.Package], e)
	sort.Slice(entries, func(i, j int) bool { return entries[i].version.Compare(entries[j].version) < 0 })
	r.factories[e.info.Package] = entries
}

// Lookup chooses among the registered factories of pkg the one to serve
// version: the newest with the same major version that is not older than
// version, else one that claims that major version (see ClaimMajor). An
// empty version accepts any. Releases are preferred: a
// prerelease is chosen only when no release qualifies; and the factories
// the host registered are preferred to plugins the Resolver found, so that
// a built-in provider wins over a plugin of the same package wherever it
// qualifies (see ChooseVersion for a token it does not serve). The Resolver is not
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
	// The best of each rank: registered releases, registered
	// prereleases, resolved releases, resolved prereleases, and those
	// that qualify only by their claim.
	var best [5]*factoryEntry
	for _, e := range slices.Backward(entries) {
		ok, byClaim := e.qualifies(want)
		if !ok || r.shunned(e) {
			continue
		}
		rank := 0
		if e.version.IsPrerelease() {
			rank++
		}
		if e.resolved {
			rank += 2
		}
		if byClaim {
			rank = 4
		}
		if best[rank] == nil {
			best[rank] = e
		}
	}
	for _, e := range best {
		if e != nil {
			return e, nil
		}
	}
	nf := &NoFactoryError{Package: pkg, Version: version, PluginPreferred: r.preferPlugin[pkg]}
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
	e, err = r.addResolved(pkg, got, f)
	if err != nil {
		nf.ResolveErr = err
		return nil, nf
	}
	return e, nil
}

// addResolved registers a factory the Resolver found, or returns the
// entry a concurrent resolution registered for it first. A plugin cannot
// take the version of a factory the host registered.
func (r *Registry) addResolved(pkg, version string, f Factory) (*factoryEntry, error) {
	e, err := newEntry(pkg, version, f)
	if err != nil {
		return nil, err
	}
	e.resolved = true
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, old := range r.factories[pkg] {
		if old.version.Compare(e.version) != 0 {
			continue
		}
		if !old.resolved {
			return nil, fmt.Errorf("the plugin found for %s has version %s, the version of the provider registered for it; a plugin cannot stand in for it at the same version", pkg, e.info.Version)
		}
		return old, nil
	}
	r.insertLocked(e)
	return e, nil
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
