package command

import (
	"context"
	"crypto/rand"
	"fmt"
	"sync"
	"time"

	"github.com/groundwork-iac/groundwork/providers"
	"github.com/groundwork-iac/groundwork/resource"
)

// Package is the package name the provider serves.
const Package = "command"

// Version is the provider's version, under which Register records it: the
// newest release of pulumi-command's major version 1, whose local types the
// provider serves as that release does. A program that asks for any
// version of the package from 1.0.0 up to it gets the provider (the
// registry's rule: the same major version, not older than asked for).
const Version = "1.2.1"

// The types and the function the provider serves.
const (
	// CommandType is groundwork's own command resource.
	CommandType = "command:index:Command"
	// LocalCommandType is pulumi-command's local Command resource.
	LocalCommandType = "command:local:Command"
	// RunFunction is pulumi-command's local run function.
	RunFunction = "command:local:run"
)

// Register registers the provider's factory in r under Package at Version,
// declaring the types it serves (providers.Tokens): a plugin of the same
// package serves the program's other types of it (pulumi-command's remote
// types).
func Register(r *providers.Registry) error { return RegisterWith(r) }

// RegisterWith is Register with options for the provider (see New).
func RegisterWith(r *providers.Registry, opts ...Option) error {
	return r.RegisterFactory(Package, Version, func(context.Context) (providers.Provider, error) {
		return New(opts...), nil
	}, providers.Tokens(CommandType, LocalCommandType, RunFunction), providers.ClaimMajor())
}

// Option configures the provider.
type Option func(*provider)

// WorkDir is the folder a command without a dir input runs in, and the one
// a relative dir is taken from (default: this process's working folder).
// Pulumi starts pulumi-command in the program's folder, where its commands
// then run: a host that runs a project's program elsewhere than its own
// working folder passes the program's folder.
func WorkDir(dir string) Option {
	return func(p *provider) { p.wd = dir }
}

// New returns the command provider. It takes no configuration and is safe
// for concurrent use.
func New(opts ...Option) providers.Provider {
	p := &provider{deleted: map[resource.ID]bool{}}
	for _, o := range opts {
		o(p)
	}
	return p
}

// provider runs commands, in wd unless their dir input says otherwise.
// What a command did exists only in the state, so the provider remembers
// the IDs it deleted and Read reports those gone; any other ID it reads is
// reported as recorded.
type provider struct {
	wd      string
	mu      sync.Mutex
	deleted map[resource.ID]bool
}

// lifecycle is one resource type's implementation.
type lifecycle interface {
	check(context.Context, providers.CheckRequest) (providers.CheckResponse, error)
	diff(context.Context, providers.DiffRequest) (providers.DiffResponse, error)
	create(context.Context, providers.CreateRequest) (providers.CreateResponse, error)
	update(context.Context, providers.UpdateRequest) (providers.UpdateResponse, error)
	delete(context.Context, providers.DeleteRequest) (providers.DeleteResponse, error)
}

// typeOf returns the implementation of the URN's type.
func (p *provider) typeOf(urn resource.URN) (lifecycle, error) {
	switch t := urn.Type(); t {
	case CommandType:
		return indexCommand{wd: p.wd}, nil
	case LocalCommandType:
		return localCommand{wd: p.wd}, nil
	default:
		return nil, fmt.Errorf("the %s provider has no resource type %q (it manages %s and %s)", Package, t, CommandType, LocalCommandType)
	}
}

func (p *provider) Check(ctx context.Context, req providers.CheckRequest) (providers.CheckResponse, error) {
	t, err := p.typeOf(req.URN)
	if err != nil {
		return providers.CheckResponse{}, err
	}
	return t.check(ctx, req)
}

// Diff reports changes key by key; a change of triggers replaces the
// resource, any other change updates it.
func (p *provider) Diff(ctx context.Context, req providers.DiffRequest) (providers.DiffResponse, error) {
	t, err := p.typeOf(req.URN)
	if err != nil {
		return providers.DiffResponse{}, err
	}
	return t.diff(ctx, req)
}

// Create runs the create command; outside a preview a command that fails
// creates nothing.
func (p *provider) Create(ctx context.Context, req providers.CreateRequest) (providers.CreateResponse, error) {
	t, err := p.typeOf(req.URN)
	if err != nil {
		return providers.CreateResponse{}, err
	}
	return t.create(ctx, req)
}

// Update runs the update (or create) command, as the type says when.
func (p *provider) Update(ctx context.Context, req providers.UpdateRequest) (providers.UpdateResponse, error) {
	t, err := p.typeOf(req.URN)
	if err != nil {
		return providers.UpdateResponse{}, err
	}
	return t.update(ctx, req)
}

// Delete runs the delete command, if any, and remembers the ID as gone.
func (p *provider) Delete(ctx context.Context, req providers.DeleteRequest) (providers.DeleteResponse, error) {
	t, err := p.typeOf(req.URN)
	if err != nil {
		return providers.DeleteResponse{}, err
	}
	if err := ctx.Err(); err != nil {
		return providers.DeleteResponse{}, err
	}
	resp, err := t.delete(ctx, req)
	if err == nil {
		p.mu.Lock()
		p.deleted[req.ID] = true
		p.mu.Unlock()
	}
	return resp, err
}

// Read returns the recorded state: what a command did cannot be read back.
// For the same reason a command cannot be imported.
func (p *provider) Read(ctx context.Context, req providers.ReadRequest) (providers.ReadResponse, error) {
	if _, err := p.typeOf(req.URN); err != nil {
		return providers.ReadResponse{}, err
	}
	p.mu.Lock()
	gone := p.deleted[req.ID]
	p.mu.Unlock()
	if gone {
		return providers.ReadResponse{}, nil
	}
	if len(req.State) == 0 {
		return providers.ReadResponse{}, fmt.Errorf("read %s: a %s cannot be imported, as the effects of a command cannot be read back; declare it instead: %w", req.URN, req.URN.Type(), providers.ErrNotImplemented)
	}
	return providers.ReadResponse{ID: req.ID, Inputs: req.Inputs, Outputs: req.State}, nil
}

// Invoke calls the command:local:run function.
func (p *provider) Invoke(ctx context.Context, req providers.InvokeRequest) (providers.InvokeResponse, error) {
	if req.Token != RunFunction {
		return providers.InvokeResponse{}, fmt.Errorf("the %s provider has no function %q (it has %s)", Package, req.Token, RunFunction)
	}
	return invokeRun(ctx, p.wd, req)
}

// newID returns an opaque, unique ID.
func newID() resource.ID { return resource.ID(rand.Text()) }

// withTimeout bounds ctx by the operation's timeout, if it has one. The
// cause says which timeout expired.
func withTimeout(ctx context.Context, d time.Duration) (context.Context, context.CancelFunc) {
	if d <= 0 {
		return ctx, func() {}
	}
	return context.WithTimeoutCause(ctx, d, fmt.Errorf("its %s timeout expired: %w", d, context.DeadlineExceeded))
}
