package grpcserver

import (
	"context"
	"errors"
	"fmt"
	"net"
	"sync"
	"time"

	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
	"google.golang.org/grpc"

	"github.com/groundwork-iac/groundwork/monitor"
	"github.com/groundwork-iac/groundwork/providers"
	"github.com/groundwork-iac/groundwork/resource"
)

// Monitor is what the server hands a program's requests to. A
// *monitor.Monitor implements it, so requests over gRPC take the same path
// as those of the in-process program API; a host may wrap one to see or
// answer some requests itself.
type Monitor interface {
	RegisterResource(ctx context.Context, goal resource.Goal) (providers.RegisterResult, error)
	RegisterResourceOutputs(ctx context.Context, urn resource.URN, outputs resource.PropertyMap) error
	ReadResource(ctx context.Context, goal resource.Goal, id resource.ID) (providers.RegisterResult, error)
	Invoke(ctx context.Context, req monitor.InvokeRequest) (providers.InvokeResponse, error)
	Call(ctx context.Context, req monitor.CallRequest) (providers.CallResponse, error)
}

var _ Monitor = (*monitor.Monitor)(nil)

// Packages parameterizes provider plugins for RegisterPackage. A
// *providers.Registry implements it, as does an *engine.Context.
type Packages interface {
	Parameterize(ctx context.Context, pluginPkg, pluginVersion string, req providers.ParameterizeRequest) (providers.ParameterizeResponse, error)
}

// Severity ranks a log message of the program.
type Severity string

// The severities of the Engine service's Log.
const (
	SeverityDebug   Severity = "debug"
	SeverityInfo    Severity = "info"
	SeverityWarning Severity = "warning"
	SeverityError   Severity = "error"
)

// LogMessage is one message the program logged through the Engine service.
type LogMessage struct {
	Severity Severity
	// URN is the resource the message is about; "" for none.
	URN     resource.URN
	Message string
	// Ephemeral messages are status updates that need not be kept.
	Ephemeral bool
}

// Config sets up a Server.
type Config struct {
	// Monitor receives every resource request. Required.
	Monitor Monitor
	// Log receives the program's log messages; nil drops them. It may be
	// called from many goroutines at once.
	Log func(LogMessage)
	// Packages, if set, serves RegisterPackage, and the server then
	// supports the "parameterization" feature; without it RegisterPackage
	// is Unimplemented.
	Packages Packages
	// StopTimeout bounds how long Stop waits for requests in flight before
	// it cuts them off (default five seconds).
	StopTimeout time.Duration
	// Hooks, if set, takes the resource hooks the program registers, and
	// the server then supports the "resourceHooks" feature.
	Hooks HookRegistry
	// Shutdown, if set, is called when the program says it has finished
	// registering (SignalAndWaitForShutdown); the program waits, serving
	// its callbacks, until Shutdown returns. It should return once the
	// operation's steps have all run, or when ctx ends.
	Shutdown func(ctx context.Context) error
	// ContinueOnError says the operation goes on after a step fails
	// (engine.ContinueOnError). A registration whose step failed, or was
	// skipped because a resource it needs failed, is then answered as the
	// Pulumi engine answers it, with its URN and the result FAIL or SKIP,
	// and the program goes on. Otherwise it is answered UNAVAILABLE (the
	// deployment is ending), on which the SDKs stop making requests
	// without reporting the error again: the engine has reported it.
	ContinueOnError bool
}

// maxMessageSize is the largest message the server takes or sends, the
// plugin client's limit: resource states with inline assets get big.
const maxMessageSize = 400 << 20

// Server serves the ResourceMonitor and Engine gRPC services of one
// deployment on a loopback port. It owns one goroutine, which Stop waits
// for.
type Server struct {
	gs      *grpc.Server
	addr    string
	timeout time.Duration
	served  chan error
	release func() bool
	// callbacks are the connections to the program's callback servers.
	callbacks *callbacks

	stopOnce sync.Once
	stopErr  error
}

// Start listens on a free port of 127.0.0.1 and serves until Stop. Every
// request's context ends when ctx does (and when its caller goes away), so
// that cancelling the operation ends the requests of its program.
func Start(ctx context.Context, cfg Config) (*Server, error) {
	if cfg.Monitor == nil {
		return nil, errors.New("Config.Monitor is required")
	}
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("listen on a loopback port: %w", err)
	}
	base, cancel := context.WithCancelCause(context.WithoutCancel(ctx))
	release := context.AfterFunc(ctx, func() { cancel(context.Cause(ctx)) })
	gs := grpc.NewServer(
		grpc.MaxRecvMsgSize(maxMessageSize), grpc.MaxSendMsgSize(maxMessageSize),
		grpc.ChainUnaryInterceptor(boundBy(base)),
	)
	cbs := newCallbacks()
	pulumirpc.RegisterResourceMonitorServer(gs, newResourceMonitor(cfg, cbs))
	pulumirpc.RegisterEngineServer(gs, newEngine(cfg))
	s := &Server{
		gs: gs, addr: lis.Addr().String(), timeout: cfg.StopTimeout, served: make(chan error, 1), callbacks: cbs,
		release: func() bool { cancel(errStopped); return release() },
	}
	if s.timeout <= 0 {
		s.timeout = 5 * time.Second
	}
	go func() { s.served <- gs.Serve(lis) }()
	return s, nil
}

var errStopped = errors.New("the deployment's gRPC server has stopped")

// boundBy makes every request's context end when base does.
func boundBy(base context.Context) grpc.UnaryServerInterceptor {
	return func(ctx context.Context, req any, _ *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
		ctx, cancel := context.WithCancelCause(ctx)
		defer cancel(nil)
		stop := context.AfterFunc(base, func() { cancel(context.Cause(base)) })
		defer stop()
		return handler(ctx, req)
	}
}

// Addr returns the address the server listens on ("127.0.0.1:<port>"),
// both the resource monitor's and the engine's.
func (s *Server) Addr() string { return s.addr }

// Stop stops taking requests, lets those in flight finish (within the
// configured StopTimeout, after which they are cut off), and returns once
// the serving goroutine has ended. It is idempotent.
func (s *Server) Stop() error {
	s.stopOnce.Do(func() {
		stopped := make(chan struct{})
		go func() { s.gs.GracefulStop(); close(stopped) }()
		timer := time.NewTimer(s.timeout)
		defer timer.Stop()
		select {
		case <-stopped:
		case <-timer.C:
			s.release()
			s.gs.Stop()
			<-stopped
		}
		s.release()
		if err := <-s.served; err != nil && !errors.Is(err, grpc.ErrServerStopped) {
			s.stopErr = fmt.Errorf("serving: %w", err)
		}
		if err := s.callbacks.close(); err != nil && s.stopErr == nil {
			s.stopErr = fmt.Errorf("closing the connections to the program's callbacks: %w", err)
		}
	})
	return s.stopErr
}
