// Command testplugin is the provider plugin that the plugin packages'
// tests launch: a providertest.Memory served by server.Main, with a few
// switches for failure cases.
//
// Inputs of Create: "started" names a file written as the create begins;
// "sleepMs" makes it take that long first (ending early, with its
// context's error, if its context ends); then "crash" exits the process
// mid-call; "leak" and "leakIn" have a call quote a secret (see leaksIn),
// as does a "leak" key of the configuration in Configure; "partial" fails
// with a partial failure (providers.InitError). Functions: "test:index:count"
// returns how many resources exist, "test:index:config" the configuration
// Configure received, "test:index:echo" its arguments.
//
// The environment variable TESTPLUGIN_MODE selects how the process behaves:
// "stubborn" ignores SIGTERM, "noport" exits before printing its port,
// "chatty" prints other lines on stdout before its port.
package main

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"

	"github.com/groundwork-iac/groundwork/plugin/server"
	"github.com/groundwork-iac/groundwork/providers"
	"github.com/groundwork-iac/groundwork/providers/providertest"
	"github.com/groundwork-iac/groundwork/resource"
)

func main() {
	fmt.Fprintf(os.Stderr, "testplugin: pid=%d\n", os.Getpid())
	opts := server.Options{Name: "gwtest", Version: "1.2.3"}
	p := provider()
	switch os.Getenv("TESTPLUGIN_MODE") {
	case "noport":
		fmt.Fprintln(os.Stderr, "testplugin: refusing to start")
		os.Exit(2)
	case "chatty":
		fmt.Println("starting up")
		fmt.Println("port coming next")
	case "stubborn":
		stubborn(p, opts)
		return
	}
	server.Main(p, opts)
}

// stubborn serves without ever exiting on SIGTERM.
func stubborn(p providers.Provider, opts server.Options) {
	signal.Ignore(syscall.SIGTERM)
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Printf("%d\n", lis.Addr().(*net.TCPAddr).Port)
	_ = server.Serve(context.Background(), lis, p, opts)
	select {} // even after Cancel, keep running until killed
}

func provider() *providers.Func {
	mem := providertest.NewMemory("name")
	p := mem.Provider()
	var (
		mu     sync.Mutex
		config resource.PropertyMap
	)
	create := p.CreateF
	p.CreateF = func(ctx context.Context, req providers.CreateRequest) (providers.CreateResponse, error) {
		if err := slowly(ctx, req.Inputs); err != nil {
			return providers.CreateResponse{}, err
		}
		switch {
		case leaksIn(req.Inputs, "stderr"):
			fmt.Fprintln(os.Stderr, "testplugin: given", leaked(req.Inputs))
			os.Exit(3)
		case leaksIn(req.Inputs, "create"):
			return providers.CreateResponse{}, fmt.Errorf("cannot create with %s", leaked(req.Inputs))
		case leaksIn(req.Inputs, "initError"):
			return providers.CreateResponse{}, &providers.InitError{
				ID: "leaky-1", Inputs: req.Inputs, Outputs: req.Inputs,
				Reasons: []string{"it came up but refused " + leaked(req.Inputs)},
			}
		case req.Inputs["crash"].BoolValue():
			fmt.Fprintln(os.Stderr, "testplugin: about to crash in Create")
			os.Exit(3)
		case req.Inputs["partial"].BoolValue():
			return providers.CreateResponse{}, &providers.InitError{
				ID:      "partial-1",
				Inputs:  req.Inputs,
				Outputs: resource.PropertyMap{"half": resource.NewBool(true), "secret": resource.NewSecret(resource.NewString("s"))},
				Reasons: []string{"the thing was created but did not come up", "health check failed"},
			}
		}
		return create(ctx, req)
	}
	p.CheckF = func(ctx context.Context, req providers.CheckRequest) (providers.CheckResponse, error) {
		if leaksIn(req.News, "check") {
			return providers.CheckResponse{Failures: []providers.CheckFailure{{Property: "leak", Reason: "refused " + leaked(req.News)}}}, nil
		}
		return providers.CheckResponse{Inputs: req.News}, nil
	}
	diff := p.DiffF
	p.DiffF = func(ctx context.Context, req providers.DiffRequest) (providers.DiffResponse, error) {
		if leaksIn(req.NewInputs, "diff") {
			return providers.DiffResponse{}, fmt.Errorf("cannot compare %s", leaked(req.OldInputs))
		}
		return diff(ctx, req)
	}
	p.ConfigureF = func(ctx context.Context, req providers.ConfigureRequest) (providers.ConfigureResponse, error) {
		if v, ok := req.Inputs["leak"]; ok {
			return providers.ConfigureResponse{}, fmt.Errorf("the configuration %s is refused", plain(v))
		}
		mu.Lock()
		defer mu.Unlock()
		config = req.Inputs
		return providers.ConfigureResponse{AcceptSecrets: true, AcceptResources: true, SupportsPreview: true}, nil
	}
	p.InvokeF = func(ctx context.Context, req providers.InvokeRequest) (providers.InvokeResponse, error) {
		switch req.Token {
		case "test:index:count":
			return providers.InvokeResponse{Return: resource.PropertyMap{"count": resource.NewNumber(float64(mem.Count()))}}, nil
		case "test:index:config":
			mu.Lock()
			defer mu.Unlock()
			return providers.InvokeResponse{Return: config}, nil
		case "test:index:echo":
			return providers.InvokeResponse{Return: req.Args}, nil
		}
		return providers.InvokeResponse{Failures: []providers.CheckFailure{{Reason: "no function " + req.Token}}}, nil
	}
	return p
}

// slowly is the start of a create: it writes the file named by "started",
// then takes "sleepMs" milliseconds, or until ctx ends.
func slowly(ctx context.Context, inputs resource.PropertyMap) error {
	if path := inputs["started"].StringValue(); path != "" {
		if err := os.WriteFile(path, []byte("started\n"), 0o644); err != nil {
			return err
		}
	}
	ms := inputs["sleepMs"].NumberValue()
	if ms <= 0 {
		return nil
	}
	t := time.NewTimer(time.Duration(ms) * time.Millisecond)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		fmt.Fprintln(os.Stderr, "testplugin: create stopped by its context")
		return ctx.Err()
	}
}

// leaksIn reports whether inputs ask for their "leak" to be quoted where
// "leakIn" says: "check" (a check failure), "diff" (a Diff error, quoting
// the old "leak"), "create" (a Create error), "initError" (the reason of
// a partial failure), "stderr" (a line on stderr before exiting).
func leaksIn(inputs resource.PropertyMap, where string) bool {
	v := inputs["leakIn"]
	return v.IsString() && v.StringValue() == where
}

// leaked is the plaintext of the "leak" input.
func leaked(inputs resource.PropertyMap) string { return plain(inputs["leak"]) }

// plain is the plaintext of a string, secret or not.
func plain(v resource.PropertyValue) string {
	if v.IsSecret() {
		v = v.SecretElement()
	}
	if !v.IsString() {
		return v.String()
	}
	return v.StringValue()
}
