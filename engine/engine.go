package engine

import (
	"errors"
	"fmt"

	"github.com/groundwork-iac/groundwork/providers"
	"github.com/groundwork-iac/groundwork/resource"
	"github.com/groundwork-iac/groundwork/state"
)

// Operation names what an engine run does.
type Operation string

// The operations.
const (
	OpPreview Operation = "preview"
	OpUp      Operation = "update"
	OpDestroy Operation = "destroy"
	OpRefresh Operation = "refresh"
	OpImport  Operation = "import"
)

// Config is what an Engine needs for every operation on one stack.
type Config struct {
	// Project and Stack name the stack: the store keeps it as the
	// project's (state.StackID), apart from other projects' stacks of the
	// same name. Required; each is 1-100 letters, digits, '.', '_' or
	// '-', beginning with a letter, digit or '_'.
	Project string
	Stack   string
	// Store keeps the stack's state. Required.
	Store state.Store
	// Providers builds the provider registry for one operation: a fresh
	// registry holding the host's provider factories. Required unless the
	// stack has only components. A host that keeps providers warm across
	// operations may return the same registry each time; the engine then
	// does not close it (see KeepProviders).
	Providers func() *providers.Registry
	// KeepProviders leaves the registry open when an operation ends.
	KeepProviders bool
	// Config is the stack configuration, keyed "<package>:<key>" (secret
	// values wrapped with resource.NewSecret).
	Config map[string]resource.PropertyValue
	// OnEvent receives the event stream of every operation; calls are
	// serialized. It must not block for long.
	OnEvent func(Event)
}

// Engine runs operations on one stack. It is safe to use from one goroutine
// at a time per stack; the store's lock keeps two engines (or two
// processes) from running operations on the same stack at once.
type Engine struct {
	cfg Config
}

// New returns an Engine after checking the configuration.
func New(cfg Config) (*Engine, error) {
	switch {
	case cfg.Store == nil:
		return nil, errors.New("Config.Store is required (filestore.New or memstore.New)")
	case cfg.Project == "":
		return nil, errors.New("Config.Project is required")
	case cfg.Stack == "":
		return nil, errors.New("Config.Stack is required")
	}
	if err := cfg.stackID().Check(); err != nil {
		return nil, fmt.Errorf("engine configuration: %w", err)
	}
	if cfg.Providers == nil {
		cfg.Providers = func() *providers.Registry { return providers.NewRegistry() }
	}
	return &Engine{cfg: cfg}, nil
}

// stackID is the stack the engine works on, as its store keys it.
func (c Config) stackID() state.StackID { return state.StackID{Project: c.Project, Stack: c.Stack} }

// Program is an in-process program: it declares resources through its
// Context. Registrations do not block; the engine waits for all of them
// after the function returns.
type Program func(ctx *Context) error
