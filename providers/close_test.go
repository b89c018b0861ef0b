package providers_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/groundwork-iac/groundwork/providers"
	"github.com/groundwork-iac/groundwork/resource"
)

func TestCloseSignalsAllBeforeClosingAny(t *testing.T) {
	rec := &recorder{}
	r := newCloudRegistry(t, rec)
	ctx := t.Context()
	var refs []providers.Reference
	for _, name := range []string{"a", "b", "c"} {
		ref, _ := createProvider(t, r, providerURN("cloud", name), resource.PropertyMap{"region": str(name)}, false)
		refs = append(refs, ref)
	}
	// A loaded provider that was never used is never started, so there is
	// nothing to signal or close.
	lazy := &resource.State{Type: providers.ProviderType("cloud"), URN: providerURN("cloud", "lazy"), ID: "l", Inputs: resource.PropertyMap{"region": str("x")}}
	if err := r.Load(ctx, []*resource.State{lazy}); err != nil {
		t.Fatal(err)
	}

	if err := r.Close(ctx); err != nil {
		t.Fatalf("Close: %v", err)
	}
	events := rec.list()
	lastSignal, firstClose := -1, len(events)
	for i, e := range events {
		if strings.HasPrefix(e, "signal") {
			lastSignal = i
		}
		if strings.HasPrefix(e, "close") && i < firstClose {
			firstClose = i
		}
	}
	// p1 is the configuration checker; p2..p4 serve a, b, c.
	if n, m := len(rec.having("signal")), len(rec.having("close")); n != 4 || m != 4 {
		t.Errorf("%d signals and %d closes, want 4 of each: %v", n, m, events)
	}
	if lastSignal > firstClose {
		t.Errorf("a provider was closed before every provider was signalled: %v", events)
	}

	// After Close: instances refuse calls, the registry refuses work, and a
	// second Close is a no-op.
	_, err := mustGet(t, r, refs[0]).Create(ctx, providers.CreateRequest{URN: bucketURN})
	var le *providers.LifecycleError
	if !errors.As(err, &le) || !errors.Is(err, providers.ErrClosed) || !strings.Contains(err.Error(), refs[0].String()) {
		t.Errorf("Create after Close = %v; want a *LifecycleError (ErrClosed) naming the provider", err)
	}
	if _, err := r.Check(ctx, providers.CheckRequest{URN: providerURN("cloud", "d"), News: resource.PropertyMap{"region": str("d")}}); !errors.Is(err, providers.ErrRegistryClosed) {
		t.Errorf("Check after Close = %v, want ErrRegistryClosed", err)
	}
	if _, err := r.Create(ctx, providers.CreateRequest{URN: providerURN("cloud", "d"), Inputs: resource.PropertyMap{"region": str("d")}}); !errors.Is(err, providers.ErrRegistryClosed) {
		t.Errorf("Create after Close = %v, want ErrRegistryClosed", err)
	}
	if err := r.Close(ctx); err != nil {
		t.Errorf("a second Close = %v, want nil", err)
	}
}

func TestCloseCollectsErrors(t *testing.T) {
	r := providers.NewRegistry(providers.WithIDs(counterIDs()))
	_ = r.RegisterFactory("flaky", "1.0.0", func(context.Context) (providers.Provider, error) {
		return &providers.Func{
			ConfigureF: func(_ context.Context, req providers.ConfigureRequest) (providers.ConfigureResponse, error) {
				return providers.ConfigureResponse{}, nil
			},
			SignalCancellationF: func(context.Context) error { return errors.New("signal refused") },
			CloseF:              func(context.Context) error { return errors.New("close refused") },
		}, nil
	})
	a, _ := createProvider(t, r, providerURN("flaky", "a"), resource.PropertyMap{}, false)
	b, _ := createProvider(t, r, providerURN("flaky", "b"), resource.PropertyMap{}, false)
	err := r.Close(t.Context())
	if err == nil {
		t.Fatal("Close succeeded; want the providers' errors")
	}
	// Two instances and the configuration checker, each failing twice.
	if got := strings.Count(err.Error(), "signal refused"); got != 3 {
		t.Errorf("%d signal errors in %q, want 3", got, err)
	}
	if got := strings.Count(err.Error(), "close refused"); got != 3 {
		t.Errorf("%d close errors in %q, want 3", got, err)
	}
	for _, ref := range []providers.Reference{a, b} {
		if !strings.Contains(err.Error(), ref.String()) {
			t.Errorf("Close error does not name %s: %v", ref, err)
		}
	}
}

func TestCloseWaitsForCallsInFlight(t *testing.T) {
	rec := &recorder{}
	started, cancelled := make(chan struct{}), make(chan struct{})
	var once sync.Once
	r := providers.NewRegistry()
	_ = r.RegisterFactory("slow", "1.0.0", func(context.Context) (providers.Provider, error) {
		return &providers.Func{
			CreateF: func(ctx context.Context, req providers.CreateRequest) (providers.CreateResponse, error) {
				close(started)
				<-cancelled // a well-behaved provider stops when signalled
				rec.add("create returns")
				return providers.CreateResponse{}, errors.New("cancelled")
			},
			SignalCancellationF: func(context.Context) error {
				rec.add("signal")
				once.Do(func() { close(cancelled) })
				return nil
			},
			CloseF: func(context.Context) error { rec.add("close"); return nil },
		}, nil
	})
	ref, _ := createProvider(t, r, providerURN("slow", "p"), resource.PropertyMap{}, false)
	p := mustGet(t, r, ref)
	done := make(chan error)
	go func() {
		_, err := p.Create(context.Background(), providers.CreateRequest{URN: bucketURN})
		done <- err
	}()
	<-started
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	if err := r.Close(ctx); err != nil {
		t.Fatalf("Close: %v", err)
	}
	<-done
	// Every signal (the instance's and the configuration checker's) comes
	// before any close, and so does the return of the call in flight.
	got := rec.list()
	firstClose := slices.Index(got, "close")
	returned := slices.Index(got, "create returns")
	if firstClose < 0 || returned < 0 || returned > firstClose || slices.Contains(got[firstClose:], "signal") {
		t.Errorf("events = %v; want the signals and the call in flight returning before any close", got)
	}
	if len(got) != 5 {
		t.Errorf("events = %v; want 2 signals, 1 return, 2 closes", got)
	}
}

// TestCloseRacesCalls closes a provider while goroutines keep calling it:
// every call is either refused with ErrClosed or runs to its end before
// the provider's Close, never after it.
func TestCloseRacesCalls(t *testing.T) {
	for round := range 20 {
		var mu sync.Mutex
		closed, late := false, 0
		r := providers.NewRegistry()
		_ = r.RegisterFactory("busy", "1.0.0", func(context.Context) (providers.Provider, error) {
			return &providers.Func{
				CheckF: func(_ context.Context, req providers.CheckRequest) (providers.CheckResponse, error) {
					mu.Lock()
					if closed {
						late++
					}
					mu.Unlock()
					return providers.CheckResponse{Inputs: req.News}, nil
				},
				CloseF: func(context.Context) error {
					mu.Lock()
					closed = true
					mu.Unlock()
					return nil
				},
			}, nil
		})
		ref, _ := createProvider(t, r, providerURN("busy", "p"), resource.PropertyMap{}, false)
		p := mustGet(t, r, ref)
		var wg sync.WaitGroup
		var answered atomic.Int64
		for range 8 {
			wg.Go(func() {
				for range 200 {
					_, err := p.Check(context.Background(), providers.CheckRequest{URN: bucketURN, News: resource.PropertyMap{}})
					switch {
					case err == nil, errors.Is(err, providers.ErrClosed):
						answered.Add(1)
					default:
						t.Errorf("Check = %v; want success or ErrClosed", err)
					}
				}
			})
		}
		if err := r.Close(t.Context()); err != nil {
			t.Fatalf("Close: %v", err)
		}
		wg.Wait()
		if late != 0 {
			t.Fatalf("round %d: %d calls reached the provider after its Close", round, late)
		}
		if n := answered.Load(); n != 1600 {
			t.Fatalf("round %d: %d of 1,600 calls were served or refused", round, n)
		}
		if _, err := p.Check(context.Background(), providers.CheckRequest{URN: bucketURN}); !errors.Is(err, providers.ErrClosed) {
			t.Fatalf("Check after Close = %v; want ErrClosed", err)
		}
	}
}
