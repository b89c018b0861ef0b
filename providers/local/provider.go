package local

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/groundwork-iac/groundwork/providers"
	"github.com/groundwork-iac/groundwork/resource"
	"github.com/groundwork-iac/groundwork/resource/contents"
)

// Package is the package name the provider serves.
const Package = "local"

// Version is the provider's version, under which Register records it.
const Version = "1.0.0"

// The resource types the provider manages.
const (
	FileType      = "local:index:File"
	DirectoryType = "local:index:Directory"
)

// Register registers the factory of New() in r under Package at Version,
// declaring the types it serves (providers.Tokens): a plugin of the same
// package serves the program's other types of it.
func Register(r *providers.Registry) error { return RegisterWith(r) }

// RegisterWith is Register with options for the provider (see New).
func RegisterWith(r *providers.Registry, opts ...Option) error {
	return r.RegisterFactory(Package, Version, func(context.Context) (providers.Provider, error) {
		return New(opts...), nil
	}, providers.Tokens(FileType, DirectoryType))
}

// Option configures the provider the host makes (it takes no
// configuration from the program).
type Option func(*config)

type config struct {
	src resource.Source
	wd  string
}

// WithSource sets what reads the contents of a File's source asset. The
// default, contents.Source{}, reads local files and fetches http(s) URIs
// with http.DefaultClient.
func WithSource(src resource.Source) Option { return func(c *config) { c.src = src } }

// WorkDir is the folder relative paths are taken from: a File's or a
// Directory's path, the ID of one being imported, and a File's source
// asset's path (default: this process's working folder). Pulumi starts a
// provider in the program's folder, where the program's relative paths
// then point: a host that runs a project's program elsewhere than its own
// working folder passes the program's folder.
func WorkDir(dir string) Option { return func(c *config) { c.wd = dir } }

// New returns the local provider. It keeps no state of its own and is
// safe for concurrent use.
func New(opts ...Option) providers.Provider {
	c := config{src: contents.Source{}}
	for _, opt := range opts {
		opt(&c)
	}
	w := workDir(c.wd)
	src := c.src
	if w != "" {
		src = dirSource{Source: src, wd: w}
	}
	return &provider{types: map[string]providers.Provider{
		FileType:      fileType{src: src, wd: w},
		DirectoryType: dirType{wd: w},
	}}
}

// provider hands each call to the resource type named by the URN.
type provider struct {
	types map[string]providers.Provider
}

func (p *provider) lookup(urn resource.URN) (providers.Provider, error) {
	t := urn.Type()
	if r, ok := p.types[t]; ok {
		return r, nil
	}
	known := make([]string, 0, len(p.types))
	for k := range p.types {
		known = append(known, k)
	}
	slices.Sort(known)
	return nil, fmt.Errorf("the %s provider has no resource type %q (it manages %s)", Package, t, strings.Join(known, ", "))
}

func (p *provider) Check(ctx context.Context, req providers.CheckRequest) (providers.CheckResponse, error) {
	r, err := p.lookup(req.URN)
	if err != nil {
		return providers.CheckResponse{}, err
	}
	return r.Check(ctx, req)
}

func (p *provider) Diff(ctx context.Context, req providers.DiffRequest) (providers.DiffResponse, error) {
	r, err := p.lookup(req.URN)
	if err != nil {
		return providers.DiffResponse{}, err
	}
	return r.Diff(ctx, req)
}

func (p *provider) Create(ctx context.Context, req providers.CreateRequest) (providers.CreateResponse, error) {
	r, err := p.lookup(req.URN)
	if err != nil {
		return providers.CreateResponse{}, err
	}
	if err := ctx.Err(); err != nil && !req.Preview {
		return providers.CreateResponse{}, err
	}
	return r.Create(ctx, req)
}

func (p *provider) Read(ctx context.Context, req providers.ReadRequest) (providers.ReadResponse, error) {
	r, err := p.lookup(req.URN)
	if err != nil {
		return providers.ReadResponse{}, err
	}
	if err := ctx.Err(); err != nil {
		return providers.ReadResponse{}, fmt.Errorf("read %s: %w", req.URN, err)
	}
	return r.Read(ctx, req)
}

func (p *provider) Update(ctx context.Context, req providers.UpdateRequest) (providers.UpdateResponse, error) {
	r, err := p.lookup(req.URN)
	if err != nil {
		return providers.UpdateResponse{}, err
	}
	if err := ctx.Err(); err != nil && !req.Preview {
		return providers.UpdateResponse{}, err
	}
	return r.Update(ctx, req)
}

func (p *provider) Delete(ctx context.Context, req providers.DeleteRequest) (providers.DeleteResponse, error) {
	r, err := p.lookup(req.URN)
	if err != nil {
		return providers.DeleteResponse{}, err
	}
	if err := ctx.Err(); err != nil {
		return providers.DeleteResponse{}, err
	}
	if req.ID == "" {
		return providers.DeleteResponse{}, fmt.Errorf("delete %s: the ID is empty", req.URN)
	}
	return r.Delete(ctx, req)
}
