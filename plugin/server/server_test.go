package server_test

import (
	"context"
	"errors"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/emptypb"

	"github.com/groundwork-iac/groundwork/plugin"
	"github.com/groundwork-iac/groundwork/plugin/server"
	"github.com/groundwork-iac/groundwork/plugin/wire"
	"github.com/groundwork-iac/groundwork/providers"
	"github.com/groundwork-iac/groundwork/resource"
)

// served is the outcome of Serve: done is closed when it returns err.
type served struct {
	done chan struct{}
	err  error
}

// serve serves p in-process and returns its address.
func serve(t *testing.T, p providers.Provider) (string, *served) {
	t.Helper()
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	res := &served{done: make(chan struct{})}
	go func() {
		res.err = server.Serve(ctx, lis, p, server.Options{Name: "inproc", Version: "0.1.0"})
		close(res.done)
	}()
	t.Cleanup(func() {
		cancel()
		select {
		case <-res.done:
		case <-time.After(10 * time.Second):
			t.Error("Serve did not return after its context ended")
		}
	})
	return lis.Addr().String(), res
}

func connect(t *testing.T, addr string) *plugin.Provider {
	t.Helper()
	p, err := plugin.Connect(t.Context(), "inproc", addr, plugin.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close(context.Background()) })
	return p
}

func rawClient(t *testing.T, addr string) pulumirpc.ResourceProviderClient {
	t.Helper()
	conn, err := grpc.NewClient(addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return pulumirpc.NewResourceProviderClient(conn)
}

// Cancel signals the provider, stops the server, and closes the provider.
func TestCancelStopsTheServer(t *testing.T) {
	var signalled, closed bool
	var mu sync.Mutex
	addr, done := serve(t, &providers.Func{
		SignalCancellationF: func(context.Context) error { mu.Lock(); signalled = true; mu.Unlock(); return nil },
		CloseF:              func(context.Context) error { mu.Lock(); closed = true; mu.Unlock(); return nil },
	})
	p := connect(t, addr)
	if p.Version() != "0.1.0" {
		t.Errorf("Version() = %q", p.Version())
	}
	if err := p.SignalCancellation(t.Context()); err != nil {
		t.Fatal(err)
	}
	select {
	case <-done.done:
		if done.err != nil {
			t.Errorf("Serve = %v", done.err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Serve did not return after Cancel")
	}
	mu.Lock()
	defer mu.Unlock()
	if !signalled || !closed {
		t.Errorf("signalled=%v closed=%v; want both", signalled, closed)
	}
}

// An engine that sends only the legacy variables is understood.
func TestConfigureFromVariables(t *testing.T) {
	var got resource.PropertyMap
	addr, _ := serve(t, &providers.Func{ConfigureF: func(_ context.Context, req providers.ConfigureRequest) (providers.ConfigureResponse, error) {
		got = req.Inputs
		return providers.ConfigureResponse{AcceptSecrets: true}, nil
	}})
	resp, err := rawClient(t, addr).Configure(t.Context(), &pulumirpc.ConfigureRequest{Variables: map[string]string{
		"pkg:config:region": "eu", "pkg:config:count": "2", "pkg:later": wire.UnknownStringValue,
	}})
	if err != nil {
		t.Fatal(err)
	}
	want := resource.PropertyMap{"region": resource.NewString("eu"), "count": resource.NewNumber(2), "later": resource.NewUnknown()}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("configuration (-want +got):\n%s", diff)
	}
	if !resp.GetAcceptSecrets() || resp.GetAcceptOutputs() {
		t.Errorf("Configure answered %v, want the provider's own answer", resp)
	}
}

// Errors keep their meaning across the wire.
func TestErrorMapping(t *testing.T) {
	addr, _ := serve(t, &providers.Func{
		CreateF: func(ctx context.Context, req providers.CreateRequest) (providers.CreateResponse, error) {
			switch req.URN.Name() {
			case "cancelled":
				return providers.CreateResponse{}, context.Canceled
			case "panics":
				panic("boom")
			case "grpc":
				return providers.CreateResponse{}, status.Error(codes.PermissionDenied, "no")
			}
			return providers.CreateResponse{}, errors.New("plain failure")
		},
	})
	raw := rawClient(t, addr)
	for name, want := range map[string]codes.Code{"cancelled": codes.Canceled, "panics": codes.Unknown, "grpc": codes.PermissionDenied, "plain": codes.Unknown} {
		_, err := raw.Create(t.Context(), &pulumirpc.CreateRequest{Urn: string(resource.NewURN("s", "p", "", "a:b:C", name))})
		if status.Code(err) != want {
			t.Errorf("Create %s = %v, want code %v", name, err, want)
		}
	}
	if _, err := raw.GetSchema(t.Context(), &pulumirpc.GetSchemaRequest{}); status.Code(err) != codes.Unimplemented {
		t.Errorf("GetSchema of a provider without one = %v, want Unimplemented", err)
	}
	if _, err := raw.Handshake(t.Context(), &pulumirpc.ProviderHandshakeRequest{}); err != nil {
		t.Errorf("Handshake: %v", err)
	}
	if _, err := raw.Attach(t.Context(), &pulumirpc.PluginAttach{Address: "x"}); err != nil {
		t.Errorf("Attach: %v", err)
	}
	p := connect(t, addr)
	_, err := p.Create(t.Context(), providers.CreateRequest{URN: resource.NewURN("s", "p", "", "a:b:C", "plain")})
	var ce *plugin.CallError
	if !errors.As(err, &ce) || ce.Message != "plain failure" {
		t.Errorf("client Create = %v, want a *plugin.CallError with the provider's message", err)
	}
	if _, err := raw.Cancel(t.Context(), &emptypb.Empty{}); err != nil {
		t.Errorf("Cancel: %v", err)
	}
}

// A plugin that predates Handshake and GetPluginInfo is still usable.
func TestClientOfAnOldPlugin(t *testing.T) {
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	gs := grpc.NewServer()
	pulumirpc.RegisterResourceProviderServer(gs, struct {
		pulumirpc.UnimplementedResourceProviderServer
	}{})
	go gs.Serve(lis)
	defer gs.Stop()
	p := connect(t, lis.Addr().String())
	if p.Version() != "" {
		t.Errorf("Version() = %q, want none", p.Version())
	}
	if _, err := p.Check(t.Context(), providers.CheckRequest{URN: resource.NewURN("s", "p", "", "a:b:C", "n")}); !errors.Is(err, providers.ErrNotImplemented) {
		t.Errorf("Check = %v, want ErrNotImplemented", err)
	}
}

// Serve returns within its stop timeout (twice: once for the calls in
// flight, once for Close) even when a call and Close ignore their
// contexts and never return.
func TestStopTimeoutBoundsStuckCalls(t *testing.T) {
	release := make(chan struct{})
	defer close(release)
	entered := make(chan struct{})
	p := &providers.Func{
		CreateF: func(context.Context, providers.CreateRequest) (providers.CreateResponse, error) {
			close(entered)
			<-release
			return providers.CreateResponse{}, nil
		},
		CloseF: func(context.Context) error {
			<-release
			return nil
		},
	}
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	const stopTimeout = 300 * time.Millisecond
	done := make(chan error, 1)
	go func() { done <- server.Serve(ctx, lis, p, server.Options{Name: "stuck", StopTimeout: stopTimeout}) }()
	client := connect(t, lis.Addr().String())
	created := make(chan error, 1)
	go func() {
		_, err := client.Create(context.Background(), providers.CreateRequest{URN: "urn:pulumi:s::p::t:m:r::a"})
		created <- err
	}()
	select {
	case <-entered:
	case <-time.After(10 * time.Second):
		t.Fatal("Create never reached the provider")
	}
	start := time.Now()
	cancel()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "stuck") {
			t.Errorf("Serve = %v; want an error saying what was left stuck", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatalf("Serve has not returned %v after its context ended, with a stop timeout of %v", time.Since(start), stopTimeout)
	}
	// The server closed the connection: the call fails.
	select {
	case err := <-created:
		if err == nil {
			t.Error("Create succeeded on a server that gave up on it")
		}
	case <-time.After(10 * time.Second):
		t.Error("Create has not returned although the server closed its connection")
	}
}
