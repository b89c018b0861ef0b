package grpcserver

import (
	"context"
	"errors"
	"fmt"

	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
	"google.golang.org/protobuf/types/known/emptypb"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/groundwork-iac/groundwork/plugin/wire"
	"github.com/groundwork-iac/groundwork/resource"
)

// HookRegistry takes the resource hooks a program defines over the wire.
// The engine runs a hook by calling run, which calls the program back.
type HookRegistry interface {
	RegisterHook(name string, onPreview bool, run func(context.Context, resource.HookArgs) error) error
}

// RegisterResourceHook registers a resource hook of the program with
// Config.Hooks; without them the server does not support hooks.
func (s *resourceMonitor) RegisterResourceHook(_ context.Context, req *pulumirpc.RegisterResourceHookRequest) (*emptypb.Empty, error) {
	if s.hooks == nil {
		return nil, badRequest("register hook %q: this engine does not run resource hooks", req.GetName())
	}
	cb := req.GetCallback()
	if cb.GetTarget() == "" || cb.GetToken() == "" {
		return nil, badRequest("register hook %q: the callback needs a target and a token", req.GetName())
	}
	run := func(ctx context.Context, args resource.HookArgs) error {
		return s.callHook(ctx, cb, args)
	}
	if err := s.hooks.RegisterHook(req.GetName(), req.GetOnDryRun(), run); err != nil {
		return nil, badRequest("register hook %q: %v", req.GetName(), err)
	}
	return &emptypb.Empty{}, nil
}

// callHook calls a hook of the program back with what the step knows; the
// hook's error message, if it answers one, is its failure.
func (s *resourceMonitor) callHook(ctx context.Context, cb *pulumirpc.Callback, a resource.HookArgs) error {
	req := &pulumirpc.ResourceHookRequest{Urn: string(a.URN), Id: string(a.ID), Name: a.Name, Type: a.Type}
	for _, m := range []struct {
		in  resource.PropertyMap
		out **structpb.Struct
	}{{a.NewInputs, &req.NewInputs}, {a.OldInputs, &req.OldInputs}, {a.NewOutputs, &req.NewOutputs}, {a.OldOutputs, &req.OldOutputs}} {
		if m.in == nil {
			continue
		}
		st, err := wire.MarshalProperties(m.in, wire.KeepAll())
		if err != nil {
			return fmt.Errorf("sending the resource's properties to the hook: %w", err)
		}
		*m.out = st
	}
	var resp pulumirpc.ResourceHookResponse
	if err := s.callbacks.call(ctx, cb, req, &resp); err != nil {
		return fmt.Errorf("calling the program's hook: %w", err)
	}
	if resp.GetError() != "" {
		return errors.New(resp.GetError())
	}
	return nil
}

// hooksOf reads a registration's hook binding.
func hooksOf(b *pulumirpc.RegisterResourceRequest_ResourceHooksBinding) resource.Hooks {
	if b == nil {
		return nil
	}
	var out resource.Hooks
	for _, k := range []struct {
		kind  resource.HookKind
		names []string
	}{
		{resource.HookBeforeCreate, b.GetBeforeCreate()}, {resource.HookAfterCreate, b.GetAfterCreate()},
		{resource.HookBeforeUpdate, b.GetBeforeUpdate()}, {resource.HookAfterUpdate, b.GetAfterUpdate()},
		{resource.HookBeforeDelete, b.GetBeforeDelete()}, {resource.HookAfterDelete, b.GetAfterDelete()},
	} {
		if len(k.names) == 0 {
			continue
		}
		if out == nil {
			out = resource.Hooks{}
		}
		out[k.kind] = k.names
	}
	return out
}
