package server

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/signal"
	"strings"
	"sync"
	"syscall"
	"time"

	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/groundwork-iac/groundwork/plugin/wire"
	"github.com/groundwork-iac/groundwork/providers"
)

// Options describe the plugin a server serves.
type Options struct {
	// Name is the plugin's package name, used in errors and diagnostics.
	Name string
	// Version is the version GetPluginInfo reports ("" for none).
	Version string
	// StopTimeout bounds how long a stopping server waits for calls in
	// flight to finish before it cancels them, and then how long it waits
	// for them to return before it gives up on them; and the same again
	// for the provider's Close (default ten seconds).
	StopTimeout time.Duration
}

// maxMessageSize matches the client's limit.
const maxMessageSize = 400 << 20

// Main is the whole main function of a plugin binary serving p: it listens
// on a free port of 127.0.0.1, prints the port on stdout (the first line
// the engine reads), and serves until the engine calls Cancel or the
// process gets SIGTERM or SIGINT. Its arguments (flags, and the engine's
// address last) are ignored. Main never returns: it exits with status 0
// after a clean shutdown and 1 after printing an error to stderr.
func Main(p providers.Provider, opts Options) {
	if err := run(p, opts); err != nil {
		fmt.Fprintf(os.Stderr, "plugin %s: %v\n", opts.Name, err)
		os.Exit(1)
	}
	os.Exit(0)
}

func run(p providers.Provider, opts Options) error {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	if _, err := fmt.Fprintf(os.Stdout, "%d\n", lis.Addr().(*net.TCPAddr).Port); err != nil {
		lis.Close()
		return err
	}
	return Serve(ctx, lis, p, opts)
}

// Serve serves p as a provider plugin on lis until ctx ends or the engine
// calls Cancel. It then stops taking calls, lets those in flight finish
// within Options.StopTimeout, closes p if it is a providers.Closer (again
// within Options.StopTimeout), and returns. Tests use it to serve a
// provider in-process.
//
// Serve returns within twice the stop timeout of its context ending even
// if calls or Close ignore their contexts: it then stops waiting for them
// and returns an error saying what it left running (a *StuckError). Main
// exits then, which ends them; a test serving in-process leaves them to
// return on their own.
func Serve(ctx context.Context, lis net.Listener, p providers.Provider, opts Options) error {
	ctx, shutdown := context.WithCancel(ctx)
	defer shutdown()
	gs := grpc.NewServer(grpc.MaxRecvMsgSize(maxMessageSize), grpc.MaxSendMsgSize(maxMessageSize))
	s := newServer(p, opts, shutdown)
	pulumirpc.RegisterResourceProviderServer(gs, s)

	served := make(chan error, 1)
	go func() { served <- gs.Serve(lis) }()
	var serveErr error
	select {
	case serveErr = <-served:
	case <-ctx.Done():
	}
	timeout := opts.StopTimeout
	if timeout <= 0 {
		timeout = 10 * time.Second
	}
	var stuck []string
	switch {
	case !stopServer(gs, timeout):
		// gs.Serve returns only once the server has stopped.
		stuck = append(stuck, "calls in flight")
	case serveErr == nil:
		serveErr = <-served
	}
	if errors.Is(serveErr, grpc.ErrServerStopped) {
		serveErr = nil
	}
	closeErr, closed := closeProvider(s.p, timeout)
	if !closed {
		stuck = append(stuck, "Close")
	}
	var stuckErr error
	if len(stuck) > 0 {
		stuckErr = &StuckError{Plugin: s.name(), Stuck: stuck, Timeout: timeout}
	}
	return errors.Join(serveErr, closeErr, stuckErr)
}

// StuckError reports a server that stopped waiting, after its stop
// timeout, for calls or for its provider's Close: they ignored their
// contexts.
type StuckError struct {
	Plugin string
	// Stuck says what was still running: "calls in flight", "Close".
	Stuck   []string
	Timeout time.Duration
}

// Error names the plugin and what was left running.
func (e *StuckError) Error() string {
	return fmt.Sprintf("plugin %s stopped without waiting for %s, still running %v after being asked to stop",
		e.Plugin, strings.Join(e.Stuck, " and "), e.Timeout)
}

// stopServer stops gs gracefully, and forcibly once timeout has passed.
// It reports whether every handler returned: a handler stuck past the
// forced stop is not waited for, nor are the goroutines stopping the
// server, which end when the handler returns.
func stopServer(gs *grpc.Server, timeout time.Duration) bool {
	stopped := make(chan struct{})
	go func() { gs.GracefulStop(); close(stopped) }()
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	select {
	case <-stopped:
		return true
	case <-timer.C:
	}
	// Stop closes the connections, which cancels the calls' contexts. The
	// graceful stop still waits for their handlers to return, and Stop may
	// wait behind it.
	go gs.Stop()
	grace := time.NewTimer(timeout)
	defer grace.Stop()
	select {
	case <-stopped:
		return true
	case <-grace.C:
		return false
	}
}

// closeProvider closes p with a context that ends after timeout, and
// stops waiting for a Close that ignores it once the timeout has passed
// twice (closed is false then).
func closeProvider(p providers.Provider, timeout time.Duration) (err error, closed bool) {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- providers.Close(ctx, p) }()
	select {
	case err := <-done:
		return err, true
	case <-ctx.Done():
	}
	grace := time.NewTimer(timeout)
	defer grace.Stop()
	select {
	case err := <-done:
		return err, true
	case <-grace.C:
		return nil, false
	}
}

// server adapts a providers.Provider to the protocol's ResourceProvider
// service. It converts with package wire and detects abilities with the
// providers package functions, which apply each ability's fallback.
type server struct {
	pulumirpc.UnimplementedResourceProviderServer
	p        providers.Provider
	opts     Options
	shutdown func()

	mu            sync.Mutex
	keepSecrets   bool // the engine accepts secrets in answers
	keepResources bool // the engine accepts resource references
}

func newServer(p providers.Provider, opts Options, shutdown func()) *server {
	s := &server{opts: opts, shutdown: shutdown, keepSecrets: true, keepResources: true}
	s.p = providers.Recover(s.name(), p)
	return s
}

// name is the plugin's name for errors: Options.Name, or "plugin".
func (s *server) name() string {
	if s.opts.Name == "" {
		return "plugin"
	}
	return s.opts.Name
}

// recvOptions: the engine sends only what this side accepts, and the
// provider behind it takes every kind of value.
func recvOptions() wire.Options { return wire.KeepAll() }

// sendOptions keeps what the engine said it accepts in Configure (before
// Configure, everything).
func (s *server) sendOptions() wire.Options {
	s.mu.Lock()
	defer s.mu.Unlock()
	return wire.Options{KeepUnknowns: true, KeepSecrets: s.keepSecrets, KeepResources: s.keepResources}
}

// toStatus turns a provider's error into the status the protocol expects:
// a partial failure carries an ErrorResourceInitFailed detail; a missing
// ability is Unimplemented; a cancelled or timed-out context keeps its
// code; anything else is Unknown with the error's message.
func (s *server) toStatus(err error) error {
	if err == nil {
		return nil
	}
	var ie *providers.InitError
	if errors.As(err, &ie) {
		st, merr := wire.InitErrorStatus(ie, s.sendOptions())
		if merr == nil {
			return st.Err()
		}
		err = fmt.Errorf("%w (its partial state cannot be sent: %v)", err, merr)
	}
	switch {
	case errors.Is(err, providers.ErrNotImplemented):
		return status.Error(codes.Unimplemented, err.Error())
	case errors.Is(err, context.Canceled):
		return status.Error(codes.Canceled, err.Error())
	case errors.Is(err, context.DeadlineExceeded):
		return status.Error(codes.DeadlineExceeded, err.Error())
	}
	if st, ok := status.FromError(err); ok {
		return st.Err()
	}
	return status.Error(codes.Unknown, err.Error())
}

// badRequest reports a request whose values cannot be read.
func badRequest(err error) error { return status.Error(codes.InvalidArgument, err.Error()) }
