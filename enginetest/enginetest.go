// Package enginetest runs in-process programs against providers written as
// Go functions and an in-memory store, so that a test can deploy, inspect
// the steps, events and state, change the program and deploy again in a few
// lines:
//
//	env := enginetest.New(t)
//	env.Provider("test", "", providers.ByType(map[string]providers.Provider{
//		"test:index:Thing": &providers.Typed[ThingInputs, ThingOutputs]{CreateF: ...},
//	}))
//	res, err := env.Up(func(ctx *engine.Context) error {
//		engine.NewResource[Thing](ctx, "test:index:Thing", "a", ThingArgs{Size: engine.Val(1)})
//		return nil
//	})
//	ops := enginetest.Ops(res) // "create a"
//
// examples/testing is a whole test suite written this way.
//
// Every operation of an Env works on the same stack and store, so a second
// Up sees the state the first one left.
package enginetest

import (
	"context"
	"sync"
	"testing"

	"github.com/groundwork-iac/groundwork/engine"
	"github.com/groundwork-iac/groundwork/providers"
	"github.com/groundwork-iac/groundwork/resource"
	"github.com/groundwork-iac/groundwork/state"
	"github.com/groundwork-iac/groundwork/state/memstore"
)

// Env is a test stack: a store, a set of providers, and the events of the
// last operation.
type Env struct {
	t       testing.TB
	Project string
	Stack   string
	Store   state.Store
	// Config is the stack configuration handed to every operation.
	Config map[string]resource.PropertyValue

	mu        sync.Mutex
	factories []factory
	events    []engine.Event
}

type factory struct {
	pkg, version string
	p            providers.Provider
}

// New returns an Env with an in-memory store and no providers.
func New(t testing.TB) *Env {
	return &Env{t: t, Project: "test", Stack: "dev", Store: memstore.New()}
}

// Provider serves package pkg at version ("" for 1.0.0) with p: every
// provider resource of that package gets p as its instance.
func (e *Env) Provider(pkg, version string, p providers.Provider) {
	if version == "" {
		version = "1.0.0"
	}
	e.factories = append(e.factories, factory{pkg: pkg, version: version, p: p})
}

// Engine builds an engine over the Env's store and providers.
func (e *Env) Engine() *engine.Engine {
	eng, err := engine.New(engine.Config{
		Project: e.Project, Stack: e.Stack, Store: e.Store, Config: e.Config,
		Providers: e.registry,
		OnEvent: func(ev engine.Event) {
			e.mu.Lock()
			e.events = append(e.events, ev)
			e.mu.Unlock()
		},
	})
	if err != nil {
		e.t.Fatalf("enginetest: %v", err)
	}
	return eng
}

func (e *Env) registry() *providers.Registry {
	r := providers.NewRegistry()
	for _, f := range e.factories {
		p := f.p
		if err := r.RegisterFactory(f.pkg, f.version, func(context.Context) (providers.Provider, error) { return p, nil }); err != nil {
			e.t.Fatalf("enginetest: registering provider %s@%s: %v", f.pkg, f.version, err)
		}
	}
	return r
}

func (e *Env) reset() {
	e.mu.Lock()
	e.events = nil
	e.mu.Unlock()
}

// Up runs engine.Up with the program.
func (e *Env) Up(program engine.Program, opts ...engine.Option) (*engine.Result, error) {
	e.reset()
	return e.Engine().Up(context.Background(), program, opts...)
}

// Preview runs engine.Preview with the program.
func (e *Env) Preview(program engine.Program, opts ...engine.Option) (*engine.Result, error) {
	e.reset()
	return e.Engine().Preview(context.Background(), program, opts...)
}

// Destroy runs engine.Destroy.
func (e *Env) Destroy(opts ...engine.Option) (*engine.Result, error) {
	e.reset()
	return e.Engine().Destroy(context.Background(), opts...)
}

// Events returns the events of the last operation.
func (e *Env) Events() []engine.Event {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]engine.Event(nil), e.events...)
}

// StackID names the stack in the store: Project's stack Stack.
func (e *Env) StackID() state.StackID { return state.StackID{Project: e.Project, Stack: e.Stack} }

// Snapshot loads the stack's current state and fails the test if it cannot
// or if it fails its integrity check.
func (e *Env) Snapshot() *state.Snapshot {
	e.t.Helper()
	snap, err := e.Store.Load(context.Background(), e.StackID())
	if err != nil {
		e.t.Fatalf("enginetest: loading the snapshot: %v", err)
	}
	if err := snap.VerifyIntegrity(); err != nil {
		e.t.Fatalf("enginetest: the snapshot fails integrity: %v", err)
	}
	return snap
}

// URN builds the URN of a resource of the Env's stack with no parent other
// than the root.
func (e *Env) URN(typ, name string) resource.URN {
	return resource.NewURN(e.Stack, e.Project, "", typ, name)
}

// Resource returns the live recorded state of urn, or nil.
func (e *Env) Resource(urn resource.URN) *resource.State {
	for _, s := range e.Snapshot().Resources {
		if s.URN == urn && !s.Delete {
			return s
		}
	}
	return nil
}

// Ops summarizes a result's steps as "op urn-name" strings, in completion
// order, for resources of the given types; when none are given, for the
// resources the program declared: custom resources and components, not
// providers (default or explicit) nor the stack, and without the
// components' "outputs" steps. Every step of a replacement is listed
// ("create-replacement", "replace", "delete-replaced").
func Ops(res *engine.Result, types ...string) []string {
	var out []string
	for _, s := range res.Steps {
		typ := s.URN.Type()
		if len(types) == 0 && (resource.IsProviderType(typ) || typ == resource.RootStackType || s.Op == engine.StepOutputs) {
			continue
		}
		if len(types) > 0 && !contains(types, typ) {
			continue
		}
		out = append(out, string(s.Op)+" "+s.URN.Name())
	}
	return out
}

func contains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}
