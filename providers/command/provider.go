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

// Version is the provider's version, under which Register records it.
const Version = "1.0.0"

// CommandType is the resource type the provider manages.
const CommandType = "command:index:Command"

// Register registers the provider's factory in r under Package at Version,
// declaring the types it serves (providers.Tokens): a plugin of the same
// package serves the program's other types of it.
func Register(r *providers.Registry) error {
	return r.RegisterFactory(Package, Version, func(context.Context) (providers.Provider, error) {
		return New(), nil
	}, providers.Tokens(CommandType))
}

// New returns the command provider. It takes no configuration and is safe
// for concurrent use.
func New() providers.Provider {
	return &provider{deleted: map[resource.ID]bool{}}
}

// provider runs commands. What a command did exists only in the state, so
// the provider remembers the IDs it deleted and Read reports those gone;
// any other ID it reads is reported as recorded.
type provider struct {
	mu      sync.Mutex
	deleted map[resource.ID]bool
}

func checkType(urn resource.URN) error {
	if t := urn.Type(); t != CommandType {
		return fmt.Errorf("the %s provider has no resource type %q (it manages %s)", Package, t, CommandType)
	}
	return nil
}

func (p *provider) Check(ctx context.Context, req providers.CheckRequest) (providers.CheckResponse, error) {
	if err := checkType(req.URN); err != nil {
		return providers.CheckResponse{}, err
	}
	return p.check(ctx, req)
}

// Diff reports changes key by key; a change of triggers replaces the
// resource, any other change updates it.
func (p *provider) Diff(ctx context.Context, req providers.DiffRequest) (providers.DiffResponse, error) {
	if err := checkType(req.URN); err != nil {
		return providers.DiffResponse{}, err
	}
	return p.diff(ctx, req)
}

// Create runs the create command; outside a preview a command that fails
// creates nothing.
func (p *provider) Create(ctx context.Context, req providers.CreateRequest) (providers.CreateResponse, error) {
	if err := checkType(req.URN); err != nil {
		return providers.CreateResponse{}, err
	}
	return p.create(ctx, req)
}

// Update runs the update (or create) command if a relevant input changed.
func (p *provider) Update(ctx context.Context, req providers.UpdateRequest) (providers.UpdateResponse, error) {
	if err := checkType(req.URN); err != nil {
		return providers.UpdateResponse{}, err
	}
	return p.update(ctx, req)
}

// Delete runs the delete command, if any, and remembers the ID as gone.
func (p *provider) Delete(ctx context.Context, req providers.DeleteRequest) (providers.DeleteResponse, error) {
	if err := checkType(req.URN); err != nil {
		return providers.DeleteResponse{}, err
	}
	if err := ctx.Err(); err != nil {
		return providers.DeleteResponse{}, fmt.Errorf("delete %s: %w", req.URN, err)
	}
	resp, err := p.delete(ctx, req)
	if err == nil {
		p.mu.Lock()
		p.deleted[req.ID] = true
		p.mu.Unlock()
	}
	return resp, err
}

// Read returns the recorded state: what a command did cannot be read back.
// For the same reason a Command cannot be imported.
func (p *provider) Read(ctx context.Context, req providers.ReadRequest) (providers.ReadResponse, error) {
	if err := checkType(req.URN); err != nil {
		return providers.ReadResponse{}, err
	}
	p.mu.Lock()
	gone := p.deleted[req.ID]
	p.mu.Unlock()
	if gone {
		return providers.ReadResponse{}, nil
	}
	if len(req.State) == 0 {
		return providers.ReadResponse{}, fmt.Errorf("read %s: a Command cannot be imported, as the effects of a command cannot be read back; declare it instead: %w", req.URN, providers.ErrNotImplemented)
	}
	return providers.ReadResponse{ID: req.ID, Inputs: req.Inputs, Outputs: req.State}, nil
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
