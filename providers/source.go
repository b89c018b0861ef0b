package providers

import (
	"context"
	"fmt"
	"sync"

	"github.com/groundwork-iac/groundwork/resource"
)

// ProviderSource resolves a provider reference to a live provider. typ is
// the type of the resource the provider is wanted for, so that a source
// can answer a provider resource (type "pulumi:providers:<pkg>") with the
// registry itself, which creates, configures and checks provider
// resources.
//
// Package deploy applies steps and asks calls with providers resolved
// through one, and package monitor resolves the providers of invokes,
// calls and constructs through one. A *Registry is a ProviderSource, and
// so is the *Source an operation makes of it with Registry.Serving.
type ProviderSource interface {
	Provider(ref, typ string) (Provider, error)
}

var (
	_ ProviderSource = (*Registry)(nil)
	_ ProviderSource = (*Source)(nil)
)

// Source is the one provider source of an operation: a Registry, with one
// package served by a fixed provider that the registry never starts,
// loads or versions (the engine's built-in "pulumi" package, whose
// provider belongs to the operation). Steps, provider calls and the
// monitor all resolve their providers through it.
//
// A Source is a view: the Registry, which a host may keep across
// operations, is left as it is, so each operation brings its own fixed
// provider. Make one with Registry.Serving. It is safe for concurrent use.
type Source struct {
	reg *Registry
	pkg string
	p   Provider
	// fixedType is the type of pkg's provider resources.
	fixedType string
	// resolved holds what the references met so far resolve to (string
	// → *resolved): every step and provider call resolves one, and
	// nearly all name the same few.
	resolved sync.Map
}

// resolved is what a provider reference resolves to: the fixed provider,
// or the registry's instance as of the registry's generation gen.
type resolved struct {
	ref   Reference
	fixed bool
	p     Provider
	gen   uint64
}

// Serving returns a Source that answers as r does, except for package pkg,
// which p serves: p answers for pkg's provider resources (type
// "pulumi:providers:<pkg>") and for every reference to one of them, and
// pkg's default provider has whatever version is asked for.
func (r *Registry) Serving(pkg string, p Provider) *Source {
	return &Source{reg: r, pkg: pkg, p: p, fixedType: ProviderType(pkg)}
}

// Registry returns the registry s serves the other packages from.
func (s *Source) Registry() *Registry { return s.reg }

// Provider resolves the provider a step or a provider call of a resource
// of type typ is made with, ref being the resource's provider reference:
// the fixed provider for its package's provider resources and references,
// the registry for every other provider resource (see Registry.Provider),
// and otherwise the instance ref names (see Registry.Get).
func (s *Source) Provider(ref, typ string) (Provider, error) {
	if resource.IsProviderType(typ) {
		if typ == s.fixedType {
			return s.p, nil
		}
		return s.reg, nil
	}
	if ref == "" {
		return nil, fmt.Errorf("no provider for a resource of type %s", typ)
	}
	// A reference resolved before answers as it did, unless the
	// registry's instances or aliases changed since.
	gen := s.reg.gen.Load()
	var r Reference
	if v, ok := s.resolved.Load(ref); ok {
		res := v.(*resolved)
		if res.fixed || res.gen == gen {
			return res.p, nil
		}
		r = res.ref
	} else {
		var err error
		if r, err = ParseReference(ref); err != nil {
			return nil, err
		}
	}
	if r.URN.Type() == s.fixedType {
		s.resolved.Store(ref, &resolved{ref: r, fixed: true, p: s.p})
		return s.p, nil
	}
	p, ok := s.reg.Get(r)
	if !ok {
		return nil, fmt.Errorf("provider %s is unknown: it was neither registered in this run nor recorded in the stack's state", ref)
	}
	s.resolved.Store(ref, &resolved{ref: r, p: p, gen: gen})
	return p, nil
}

// Load loads the recorded provider resources of states into the registry
// (see Registry.Load), leaving out the fixed package's, which its fixed
// provider serves.
func (s *Source) Load(ctx context.Context, states []*resource.State) error {
	fixed := ProviderType(s.pkg)
	provs := make([]*resource.State, 0, len(states))
	for _, st := range states {
		if st != nil && st.Type != fixed {
			provs = append(provs, st)
		}
	}
	return s.reg.Load(ctx, provs)
}

// ChooseVersion returns the version a default provider of pkg must be
// registered at to serve token (see Registry.ChooseVersion); the fixed
// package has one provider, so its version is the one asked for.
func (s *Source) ChooseVersion(ctx context.Context, pkg, version, token string) (string, error) {
	if pkg == s.pkg {
		return version, nil
	}
	return s.reg.ChooseVersion(ctx, pkg, version, token)
}
