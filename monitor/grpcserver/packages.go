package grpcserver

import (
	"context"
	"crypto/rand"
	"fmt"
	"sync"

	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/groundwork-iac/groundwork/providers"
)

// packages keeps the packages a program registered with RegisterPackage,
// by the reference each was given.
type packages struct {
	p Packages

	mu    sync.Mutex
	byKey map[string]string      // identity of a registration -> ref
	refs  map[string]packageInfo // ref -> package
}

// packageInfo is the package a reference names: the package resources and
// functions of that reference belong to, at its version.
type packageInfo struct {
	name, version string
}

func newPackages(p Packages) *packages {
	return &packages{p: p, byKey: map[string]string{}, refs: map[string]packageInfo{}}
}

func (ps *packages) enabled() bool { return ps.p != nil }

// register records a package, parameterizing its plugin when the request
// carries a parameterization. Registering the same package again answers
// the same reference.
func (ps *packages) register(ctx context.Context, req *pulumirpc.RegisterPackageRequest) (string, error) {
	if ps.p == nil {
		return "", status.Error(codes.Unimplemented, "RegisterPackage: this engine was started without package support")
	}
	if req.GetName() == "" {
		return "", badRequest("RegisterPackage: the request names no package")
	}
	key := fmt.Sprintf("%q %q %q", req.GetName(), req.GetVersion(), req.GetDownloadUrl())
	param := req.GetParameterization()
	if param != nil {
		key += fmt.Sprintf(" %q %q %x", param.GetName(), param.GetVersion(), param.GetValue())
	}
	ps.mu.Lock()
	ref, ok := ps.byKey[key]
	ps.mu.Unlock()
	if ok {
		return ref, nil
	}
	info := packageInfo{name: req.GetName(), version: req.GetVersion()}
	if param != nil {
		resp, err := ps.p.Parameterize(ctx, req.GetName(), req.GetVersion(), providers.ParameterizeRequest{
			Value: &providers.ParameterizeValue{Name: param.GetName(), Version: param.GetVersion(), Value: param.GetValue()},
		})
		if err != nil {
			return "", toStatus(fmt.Errorf("RegisterPackage %s: %w", param.GetName(), err))
		}
		info = packageInfo{name: resp.Name, version: resp.Version}
	}
	ps.mu.Lock()
	defer ps.mu.Unlock()
	if ref, ok := ps.byKey[key]; ok {
		return ref, nil
	}
	ref = rand.Text()
	ps.byKey[key] = ref
	ps.refs[ref] = info
	return ref, nil
}

// apply sets the version a request that names a package reference uses,
// unless the request names one itself.
func (ps *packages) apply(ref string, version *string) error {
	if ref == "" {
		return nil
	}
	ps.mu.Lock()
	info, ok := ps.refs[ref]
	ps.mu.Unlock()
	if !ok {
		return fmt.Errorf("unknown package reference %q: register the package first", ref)
	}
	if *version == "" {
		*version = info.version
	}
	return nil
}
