// Package inline runs programs written with Pulumi's Go SDK inside the
// host's own process: a func(*pulumi.Context) error becomes an
// engine.Program, with no Pulumi CLI, no language host and no program
// binary.
//
//	res, err := eng.Up(ctx, inline.Program(func(ctx *pulumi.Context) error {
//		pet, err := random.NewRandomPet(ctx, "pet", nil)
//		if err != nil {
//			return err
//		}
//		ctx.Export("name", pet.ID())
//		return nil
//	}))
//
// The SDK talks to the operation's monitor over gRPC on a loopback port,
// as a program in a process of its own does (see langhost.Serve), so it
// behaves as it does under Pulumi: the same registrations, the same
// outputs, transforms, hooks and stack references. In tests, an inline
// program runs through enginetest like any other engine.Program, against
// providers written as Go functions.
//
// The package is a module of its own because the Pulumi Go SDK's pulumi
// package brings about eighty modules with it (git, HCL, terminal UI,
// tracing) that a host not running SDK programs should not have to build.
package inline

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"runtime/debug"

	"github.com/hashicorp/go-multierror"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/emptypb"

	"github.com/groundwork-iac/groundwork/engine"
	"github.com/groundwork-iac/groundwork/langhost"
	"github.com/groundwork-iac/groundwork/plugin/wire"
)

// Program returns an engine.Program that runs fn with Pulumi's Go SDK in
// this process, as pulumi.Run would in a program of its own. The SDK is
// told the operation's project and stack, the stack's configuration (secret
// keys named), whether the operation is a preview, and its parallelism;
// the organization is langhost.DefaultOrganization and the root directory
// this process's working directory. Program returns when the SDK's run
// ends, with fn's error (or the SDK's), once every resource fn registered
// has been answered; a panic in fn is returned as an error.
func Program(fn pulumi.RunFunc) engine.Program {
	return func(c *engine.Context) error {
		if fn == nil {
			return errors.New("the inline program has no function")
		}
		return langhost.Serve(c, func(ctx context.Context, addr string) error {
			return run(ctx, c, addr, fn)
		})
	}
}

// run runs fn against the monitor and engine served at addr.
func run(ctx context.Context, c *engine.Context, addr string, fn pulumi.RunFunc) error {
	info, err := runInfo(c, addr)
	if err != nil {
		return err
	}
	pctx, err := pulumi.NewContext(ctx, info)
	if err != nil {
		return fmt.Errorf("connecting the program to the engine: %w", err)
	}
	// The SDK's error for a failed call leaves out fn's own: fnErr keeps it.
	var fnErr error
	err = pulumi.RunWithContext(pctx, func(ctx *pulumi.Context) error {
		fnErr = recovered(c, fn)(ctx)
		return fnErr
	})
	if err == nil {
		// As pulumi.Run does: the SDK serves the hooks of the deletes that
		// follow the program until the engine lets it go.
		err = waitForShutdown(ctx, addr)
	}
	err = flatten(err)
	if fnErr != nil && !errors.Is(err, fnErr) {
		err = errors.Join(fnErr, err)
	}
	return errors.Join(echoed(err), pctx.Close())
}

// rpcWait is how the SDK's error for a failed call starts: the first call
// the engine answered with an error, reported once the program's calls
// are done.
const rpcWait = "waiting for RPCs: "

// echoed marks err as an echo of the engine's answers (answerEcho) when
// every error in it (a join, or one error) is the SDK's error for a call
// the engine answered with an error, saying nothing but that answer
// (rpcWait followed by the gRPC status). The operation's error, which
// lists the engine's failures themselves, then says each once. An error
// of the program's own among them keeps err as it is, whole.
func echoed(err error) error {
	if err == nil {
		return nil
	}
	errs := []error{err}
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		errs = j.Unwrap()
	}
	answers := make([]string, 0, len(errs))
	for _, e := range errs {
		var st interface {
			error
			GRPCStatus() *status.Status
		}
		if !errors.As(e, &st) || e.Error() != rpcWait+st.Error() {
			return err
		}
		answers = append(answers, st.GRPCStatus().Message())
	}
	return &answerEcho{err: err, answers: answers}
}

// answerEcho is the SDK's error for calls the engine answered with
// errors: it says nothing but those answers.
type answerEcho struct {
	err     error
	answers []string
}

func (e *answerEcho) Error() string { return e.err.Error() }

// Unwrap returns the SDK's error.
func (e *answerEcho) Unwrap() error { return e.err }

// LoggedCauses returns the engine's answers, the error's only causes: the
// operation leaves the error out when it lists those failures already.
func (e *answerEcho) LoggedCauses() []string { return e.answers }

// runInfo is what the SDK is told of the operation.
func runInfo(c *engine.Context, addr string) (pulumi.RunInfo, error) {
	config, secretKeys, err := wire.StackConfig(c.Config())
	if err != nil {
		return pulumi.RunInfo{}, err
	}
	root, err := os.Getwd()
	if err != nil {
		return pulumi.RunInfo{}, err
	}
	parallel := int32(math.MaxInt32)
	if n := c.Parallelism(); n > 0 && n < math.MaxInt32 {
		parallel = int32(n)
	}
	return pulumi.RunInfo{
		Project:          c.Project(),
		Stack:            c.Stack(),
		Organization:     langhost.DefaultOrganization,
		RootDirectory:    root,
		Config:           config,
		ConfigSecretKeys: secretKeys,
		Parallel:         parallel,
		DryRun:           c.Preview(),
		MonitorAddr:      addr,
		EngineAddr:       addr,
	}, nil
}

// recovered runs fn, turning a panic into an error; the panic's stack goes
// to the debug diagnostics.
func recovered(c *engine.Context, fn pulumi.RunFunc) pulumi.RunFunc {
	return func(ctx *pulumi.Context) (err error) {
		defer func() {
			if r := recover(); r != nil {
				c.Log(engine.SeverityDebug, "", string(debug.Stack()))
				err = fmt.Errorf("the program panicked: %v", r)
			}
		}()
		return fn(ctx)
	}
}

// waitForShutdown tells the engine that the program is done and waits
// until it is let go.
func waitForShutdown(ctx context.Context, addr string) error {
	conn, err := grpc.NewClient(addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		return err
	}
	defer conn.Close()
	_, err = pulumirpc.NewResourceMonitorClient(conn).SignalAndWaitForShutdown(ctx, &emptypb.Empty{})
	if status.Code(err) == codes.Unimplemented {
		return nil
	}
	if err != nil {
		return fmt.Errorf("waiting for the engine to let the program go: %w", err)
	}
	return nil
}

// flatten returns the errors the SDK gathered in a multierror as one
// joined error, without the multierror's list formatting.
func flatten(err error) error {
	var me *multierror.Error
	if errors.As(err, &me) {
		return errors.Join(me.Errors...)
	}
	return err
}
