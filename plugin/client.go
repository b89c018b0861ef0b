package plugin

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/emptypb"

	"github.com/groundwork-iac/groundwork/plugin/wire"
	"github.com/groundwork-iac/groundwork/providers"
	"github.com/groundwork-iac/groundwork/resource"
)

// Options configure how a plugin is found, launched and talked to. The
// zero value works: it searches PATH only and passes no engine address.
type Options struct {
	// Dirs are folders searched for the plugin binary, in order, before
	// PATH (see Find).
	Dirs []string
	// PluginCache, if set, is Pulumi's plugin cache (see PulumiPluginCache),
	// searched after Dirs and before PATH: the plugins `pulumi plugin
	// install` installed are found there, and an error for a plugin not
	// found names that command.
	PluginCache string
	// EngineAddress is the address of the engine's gRPC services; it is
	// the plugin's last argument, omitted when empty. Plugins built with
	// Pulumi's SDKs need one (they log through the engine); plugins built
	// with package plugin/server do not.
	EngineAddress string
	// Args are extra arguments, placed before the engine address.
	Args []string
	// Env is the plugin's environment; nil inherits this process's. The
	// stack's settings below are added to it.
	Env []string
	// Project names the project the plugin serves, Config is the stack's
	// configuration (keyed "<namespace>:<key>") and RuntimeOptions are
	// the project's runtime options (Pulumi.yaml's runtime.options). The
	// plugin is started with them in its environment, as Pulumi's engine
	// starts provider plugins: PULUMI_PROJECT, PULUMI_CONFIG (its
	// package's own keys, without their namespace), PULUMI_RUNTIME_<NAME>,
	// and for the Node.js dynamic provider PULUMI_NODEJS_PROJECT. Pulumi
	// tells plugins neither the stack nor the organization.
	Project        string
	Config         map[string]resource.PropertyValue
	RuntimeOptions map[string]string
	// Dir is the plugin's working directory; "" is this process's.
	Dir string
	// RootDirectory and ProgramDirectory are told to the plugin in its
	// handshake: the folders of the project and of its program.
	RootDirectory, ProgramDirectory string
	// Diagnostics, if set, receives each line the plugin writes to stderr,
	// and each stdout line other than its port, in the order they were
	// read. The lines written before the plugin has started are passed on
	// once it has; if it fails to start, only those its error does not
	// quote are (the error quotes the end of its stderr), so that the
	// cause is said once. It is called one line at a time, from the
	// plugin's reader goroutines or from Start, and must not block for
	// long.
	Diagnostics func(line string)
	// Secrets, if set, masks the plugin's output lines, those given to
	// Diagnostics and those its errors quote, with the secrets it holds
	// when each line is read: a host shares the operation's filter
	// (engine.MaskSecrets) so that a plugin that prints a secret it was
	// given does not have it shown.
	Secrets *resource.SecretFilter
	// StartTimeout bounds how long a plugin may take to print its port,
	// and then how long it may take to answer its handshake (default one
	// minute each).
	StartTimeout time.Duration
	// GracePeriod is how long Close waits for the plugin and what it
	// started to exit after SIGTERM before killing them (default five
	// seconds).
	GracePeriod time.Duration
}

// maxMessageSize is the largest gRPC message either side accepts: resource
// states with large assets inline get big.
const maxMessageSize = 400 << 20

// Provider is a provider plugin seen through the Pulumi provider protocol:
// a providers.Provider, and every optional ability, whose calls are gRPC
// calls to the plugin. What the plugin does not implement answers an error
// wrapping providers.ErrNotImplemented.
//
// A Provider launched by Launch or Start owns the plugin process: if the
// process dies, calls in flight and every later call fail with an error
// wrapping an *ExitError, which quotes the last lines of its stderr. Close
// stops it. It is safe for concurrent use.
type Provider struct {
	name    string
	opts    Options
	conn    *grpc.ClientConn
	client  pulumirpc.ResourceProviderClient
	proc    *process // nil when attached with Connect
	version string

	mu              sync.Mutex
	acceptSecrets   bool
	acceptResources bool
	acceptOutputs   bool
	closed          bool

	closeOnce sync.Once
}

var (
	_ providers.Provider       = (*Provider)(nil)
	_ providers.Configurer     = (*Provider)(nil)
	_ providers.Parameterizer  = (*Provider)(nil)
	_ providers.SchemaProvider = (*Provider)(nil)
	_ providers.Constructor    = (*Provider)(nil)
	_ providers.Invoker        = (*Provider)(nil)
	_ providers.StreamInvoker  = (*Provider)(nil)
	_ providers.Caller         = (*Provider)(nil)
	_ providers.Canceler       = (*Provider)(nil)
	_ providers.Closer         = (*Provider)(nil)
)

// Launch finds the plugin of package name (see Find) and starts it.
func Launch(ctx context.Context, name string, opts Options) (*Provider, error) {
	cs := candidates(name, opts.searchDirs())
	if len(cs) == 0 {
		return nil, opts.notFound(name, "")
	}
	return Start(ctx, name, cs[0].path, opts)
}

// Start starts the plugin binary at path for package name: it runs it with
// the engine address as its last argument, reads the port it prints on
// stdout, connects, and shakes hands. ctx bounds the start only; the
// plugin runs until Close. Printing the port and answering the handshake
// are each bounded by Options.StartTimeout: a plugin that prints a port
// nobody answers at fails with an error naming the port and quoting its
// stderr.
func Start(ctx context.Context, name, path string, opts Options) (*Provider, error) {
	proc, port, err := start(ctx, name, path, opts)
	if err != nil {
		return nil, err
	}
	timeout := startTimeout(opts)
	hctx, cancel := context.WithTimeoutCause(ctx, timeout, errNoAnswer)
	defer cancel()
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	p, err := connect(hctx, name, addr, proc, opts)
	if err != nil {
		proc.kill()
		var exit *ExitError
		quoted := errors.As(err, &exit)
		if ctx.Err() == nil && errors.Is(context.Cause(hctx), errNoAnswer) {
			err = fmt.Errorf("start plugin %s (%s): it printed port %d, but nothing answered its handshake at %s within %v%s",
				name, path, port, addr, timeout, proc.quoteTail())
			quoted = true
		}
		proc.out.fail(quoted)
		return nil, err
	}
	proc.out.release()
	return p, nil
}

// errNoAnswer is the cause of a handshake that timed out.
var errNoAnswer = errors.New("the plugin did not answer its handshake")

// Connect attaches to a plugin that is already running and listening at
// addr (host:port), such as one started by hand under a debugger. Close
// closes the connection and leaves the plugin running.
func Connect(ctx context.Context, name, addr string, opts Options) (*Provider, error) {
	return connect(ctx, name, addr, nil, opts)
}

func connect(ctx context.Context, name, addr string, proc *process, opts Options) (*Provider, error) {
	conn, err := grpc.NewClient(addr,
		grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(maxMessageSize), grpc.MaxCallSendMsgSize(maxMessageSize)))
	if err != nil {
		return nil, fmt.Errorf("connect to plugin %s at %s: %w", name, addr, err)
	}
	p := &Provider{name: name, opts: opts, conn: conn, client: pulumirpc.NewResourceProviderClient(conn), proc: proc}
	if err := p.handshake(ctx); err != nil {
		conn.Close()
		return nil, err
	}
	return p, nil
}

// handshake tells the plugin about the engine and learns what it accepts;
// plugins that predate Handshake are taken to accept nothing until
// Configure says otherwise. It then asks for the plugin's version.
func (p *Provider) handshake(ctx context.Context) error {
	req := &pulumirpc.ProviderHandshakeRequest{EngineAddress: p.opts.EngineAddress, ConfigureWithUrn: true}
	if p.opts.RootDirectory != "" {
		req.RootDirectory = &p.opts.RootDirectory
	}
	if p.opts.ProgramDirectory != "" {
		req.ProgramDirectory = &p.opts.ProgramDirectory
	}
	var resp *pulumirpc.ProviderHandshakeResponse
	err := p.call(ctx, "Handshake", "", func(ctx context.Context) (err error) {
		resp, err = p.client.Handshake(ctx, req, grpc.WaitForReady(p.proc != nil))
		return err
	})
	switch {
	case err == nil:
		p.setAccepts(resp.GetAcceptSecrets(), resp.GetAcceptResources(), resp.GetAcceptOutputs())
	case !errors.Is(err, providers.ErrNotImplemented):
		return fmt.Errorf("start plugin %s: %w", p.name, err)
	}
	var info *pulumirpc.PluginInfo
	err = p.call(ctx, "GetPluginInfo", "", func(ctx context.Context) (err error) {
		info, err = p.client.GetPluginInfo(ctx, &emptypb.Empty{})
		return err
	})
	switch {
	case err == nil:
		p.version = info.GetVersion()
	case !errors.Is(err, providers.ErrNotImplemented):
		return fmt.Errorf("start plugin %s: %w", p.name, err)
	}
	return nil
}

// Name returns the plugin's package name.
func (p *Provider) Name() string { return p.name }

// Version returns the version the plugin reported, "" if it reported none.
func (p *Provider) Version() string { return p.version }

func (p *Provider) setAccepts(secrets, resources, outputs bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.acceptSecrets, p.acceptResources, p.acceptOutputs = secrets, resources, outputs
}

// sendOptions says how to marshal what is sent to the plugin: only what it
// accepts is kept.
func (p *Provider) sendOptions() wire.Options {
	p.mu.Lock()
	defer p.mu.Unlock()
	return wire.Options{KeepUnknowns: true, KeepSecrets: p.acceptSecrets, KeepResources: p.acceptResources}
}

// recvOptions says how to unmarshal what the plugin sends: everything is
// kept, since the engine understands every kind of value.
func recvOptions() wire.Options { return wire.KeepAll() }

// call runs one RPC with a context that also ends if the plugin process
// dies, and turns its error into one that names the plugin (see rpcError).
func (p *Provider) call(ctx context.Context, method string, urn resource.URN, rpc func(ctx context.Context) error) error {
	if err := ctx.Err(); err != nil {
		return p.errorf(method, urn, "%w", context.Cause(ctx))
	}
	if err := p.unusable(method, urn); err != nil {
		return err
	}
	rctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	if p.proc != nil {
		stop := context.AfterFunc(p.proc.lifetime, func() { cancel(errExited) })
		defer stop()
	}
	err := rpc(rctx)
	if err == nil {
		return nil
	}
	return p.rpcError(ctx, rctx, method, urn, err)
}

// unusable returns why no call can be made: the provider is closed or its
// process has died.
func (p *Provider) unusable(method string, urn resource.URN) error {
	p.mu.Lock()
	closed := p.closed
	p.mu.Unlock()
	if closed {
		return p.errorf(method, urn, "%w", providers.ErrClosed)
	}
	if p.proc != nil {
		if e := p.proc.exited(); e != nil {
			return p.errorf(method, urn, "%w", e)
		}
	}
	return nil
}

// exitWait bounds how long a failed call waits to learn whether the plugin
// process died: the connection breaks a moment before the process is reaped.
const exitWait = 3 * time.Second

// rpcError explains a failed RPC: the caller's context ended; the plugin
// died (an *ExitError quoting its stderr); the method is not implemented
// (providers.ErrNotImplemented); a partial failure (*providers.InitError);
// or else a *CallError with the plugin's message.
//
// ctx is the caller's context, rctx the call's (which ends with errExited
// when the process dies).
func (p *Provider) rpcError(ctx, rctx context.Context, method string, urn resource.URN, err error) error {
	st := status.Convert(err)
	if ctx.Err() != nil {
		// A partial failure the plugin answered as the context ended
		// says that the resource exists: it is kept.
		if ie, derr := wire.InitErrorFromStatus(st, recvOptions()); derr == nil && ie != nil {
			return p.errorf(method, urn, "%w", ie)
		}
		return p.errorf(method, urn, "%w", context.Cause(ctx))
	}
	if p.proc != nil && (st.Code() == codes.Unavailable || errors.Is(context.Cause(rctx), errExited)) {
		select {
		case <-p.proc.done:
		case <-time.After(exitWait):
		}
		if e := p.proc.exited(); e != nil {
			return &CallLostError{Plugin: p.name, Method: method, URN: urn, Err: e}
		}
	}
	if u := p.unusable(method, urn); u != nil {
		return u
	}
	switch st.Code() {
	case codes.Unimplemented:
		return p.errorf(method, urn, "%w (%s)", providers.ErrNotImplemented, st.Message())
	}
	ie, derr := wire.InitErrorFromStatus(st, recvOptions())
	if derr != nil {
		return p.errorf(method, urn, "the plugin reported a partial failure that cannot be read (%v): %s", derr, st.Message())
	}
	if ie != nil {
		return p.errorf(method, urn, "%w", ie)
	}
	return &CallError{Plugin: p.name, Method: method, URN: urn, Code: st.Code(), Message: st.Message(), status: st}
}

func (p *Provider) errorf(method string, urn resource.URN, format string, args ...any) error {
	prefix := "plugin " + p.name + ": " + method
	if urn != "" {
		prefix += " " + string(urn)
	}
	return fmt.Errorf(prefix+": "+format, args...)
}

// CallError is an error the plugin answered a call with.
type CallError struct {
	Plugin, Method string
	// URN is the resource the call was about, if any.
	URN     resource.URN
	Code    codes.Code
	Message string
	status  *status.Status
}

// Error names the plugin, the call and the resource, and gives the
// plugin's message.
func (e *CallError) Error() string {
	s := "plugin " + e.Plugin + ": " + e.Method
	if e.URN != "" {
		s += " " + string(e.URN)
	}
	return s + ": " + e.Message
}

// GRPCStatus returns the status the plugin answered, so status.FromError
// sees through the wrapping.
func (e *CallError) GRPCStatus() *status.Status { return e.status }

// Unwrap returns context.Canceled or context.DeadlineExceeded for a plugin
// that answered that its work was cancelled or timed out.
func (e *CallError) Unwrap() error {
	switch e.Code {
	case codes.Canceled:
		return context.Canceled
	case codes.DeadlineExceeded:
		return context.DeadlineExceeded
	}
	return nil
}

// CallLostError is a call whose plugin process died before it answered:
// whether what the call asked for (a create, an update, a delete) happened
// is unknown.
type CallLostError struct {
	Plugin, Method string
	// URN is the resource the call was about, if any.
	URN resource.URN
	Err *ExitError
}

// Error names the plugin, the call and the resource, and says how the
// plugin ended.
func (e *CallLostError) Error() string {
	s := "plugin " + e.Plugin + ": " + e.Method
	if e.URN != "" {
		s += " " + string(e.URN)
	}
	return s + ": " + e.Err.Error()
}

// Unwrap returns the *ExitError.
func (e *CallLostError) Unwrap() error { return e.Err }

// OutcomeUnknown reports that the call's outcome is unknown: the engine
// keeps a step whose call was lost recorded as a pending operation.
func (e *CallLostError) OutcomeUnknown() bool { return true }

// Close shuts the plugin down: it closes the connection, which ends the
// calls in flight, then sends the plugin's process group SIGTERM, and
// kills what is left of it after Options.GracePeriod or when ctx ends.
// Close returns once the processes and every goroutine watching them have
// ended. Later calls fail
// with an error wrapping providers.ErrClosed. Closing twice is a no-op.
func (p *Provider) Close(ctx context.Context) error {
	var err error
	p.closeOnce.Do(func() {
		p.mu.Lock()
		p.closed = true
		p.mu.Unlock()
		err = p.conn.Close()
		if p.proc != nil {
			p.proc.stop(ctx)
		}
	})
	if err != nil {
		return fmt.Errorf("close plugin %s: %w", p.name, err)
	}
	return nil
}
