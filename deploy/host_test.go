package deploy_test

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/groundwork-iac/groundwork/deploy"
	"github.com/groundwork-iac/groundwork/monitor"
	"github.com/groundwork-iac/groundwork/providers"
	"github.com/groundwork-iac/groundwork/resource"
	"github.com/groundwork-iac/groundwork/stepgen"
)

// observer is a deploy.Observer that notes each step's start and end by
// the name of its resource.
type observer struct {
	mu      sync.Mutex
	started []string
	ended   map[string][]error // the outcome of each end, in order
}

func (o *observer) StepStarted(s *stepgen.Step) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.started = append(o.started, s.URN().Name())
}

func (o *observer) StepEnded(out stepgen.Outcome, _ time.Duration) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.ended[out.Step.URN().Name()] = append(o.ended[out.Step.URN().Name()], out.Err)
}

func (o *observer) Warn(resource.URN, string)   {}
func (o *observer) Inform(resource.URN, string) {}
func (o *observer) Refused(resource.URN, error) {}

// TestHost runs two registrations through a Host, the monitor in front of
// it and a provider registry behind it, as an operation does without a
// journal: b needs a, and its create fails. Each step starts and ends
// once, the Observer hears of both, a's registration gets its ID, b's its
// failure naming b, Wait reports that failure, and a registration after
// CloseRegistrations is refused.
func TestHost(t *testing.T) {
	ctx := context.Background()
	boom := errors.New("quota exceeded")
	reg := providers.NewRegistry()
	if err := reg.RegisterFactory("demo", "1.0.0", func(context.Context) (providers.Provider, error) {
		return &providers.Func{CreateF: func(_ context.Context, req providers.CreateRequest) (providers.CreateResponse, error) {
			if req.URN.Name() == "b" {
				return providers.CreateResponse{}, boom
			}
			return providers.CreateResponse{ID: resource.ID("id-" + req.URN.Name()), Outputs: req.Inputs}, nil
		}}, nil
	}); err != nil {
		t.Fatal(err)
	}
	gen, err := stepgen.New(stepgen.Config{Stack: "dev", Project: "demo"})
	if err != nil {
		t.Fatal(err)
	}
	obs := &observer{ended: map[string][]error{}}
	h := deploy.New(deploy.Config{Generator: gen, Source: reg, Registry: reg, Secrets: &resource.SecretFilter{},
		Observer: obs, Start: time.Now(), Parallelism: 4})
	h.Start(ctx)
	mon := monitor.New(monitor.Config{Deployer: h, Providers: reg})

	a, errA := mon.RegisterResource(ctx, resource.Goal{Type: "demo:index:Thing", Name: "a", Custom: true})
	if errA != nil || a.ID != "id-a" {
		t.Fatalf("a: got ID %q and error %v, want ID id-a and no error", a.ID, errA)
	}
	_, errB := mon.RegisterResource(ctx, resource.Goal{Type: "demo:index:Thing", Name: "b", Custom: true,
		Dependencies: []resource.URN{a.URN}})
	var reported *monitor.ReportedError
	if !errors.As(errB, &reported) || reported.URN.Name() != "b" || !errors.Is(errB, boom) {
		t.Errorf("b: got error %v, want a *monitor.ReportedError naming b and wrapping the provider's error", errB)
	}
	h.CloseRegistrations()
	if _, err := mon.RegisterResource(ctx, resource.Goal{Type: "demo:index:Thing", Name: "c", Custom: true}); err == nil {
		t.Error("a registration after CloseRegistrations succeeded, want it refused")
	}
	if err := h.Settle(ctx); err != nil {
		t.Fatal(err)
	}
	h.Stop()
	waitErr := h.Wait()
	var se *deploy.StepError
	if !errors.As(waitErr, &se) || se.URN.Name() != "b" || !errors.Is(waitErr, boom) {
		t.Errorf("Wait: got %v, want a *deploy.StepError naming b and wrapping the provider's error", waitErr)
	}
	if h.Healthy() {
		t.Error("Healthy after a failed step, want false")
	}

	obs.mu.Lock()
	defer obs.mu.Unlock()
	slices.Sort(obs.started)
	if diff := cmp.Diff([]string{"a", "b", "default"}, obs.started); diff != "" {
		t.Errorf("steps started (-want +got):\n%s", diff)
	}
	for name, outs := range obs.ended {
		if len(outs) != 1 {
			t.Errorf("the step of %s ended %d times, want once", name, len(outs))
		}
	}
	if outs := obs.ended["b"]; len(outs) != 1 || !errors.Is(outs[0], boom) {
		t.Errorf("b's step ended with %v, want the provider's error", outs)
	}
	if outs := obs.ended["a"]; len(outs) != 1 || outs[0] != nil {
		t.Errorf("a's step ended with %v, want success", outs)
	}
}

// TestHostAnswersEachRegistrationOnce: every registration is answered
// exactly once, whether its step ran, the generator refused it when it
// arrived (a URN registered twice), or a provider call failed it (a
// Check that fails).
func TestHostAnswersEachRegistrationOnce(t *testing.T) {
	ctx := context.Background()
	reg := providers.NewRegistry()
	if err := reg.RegisterFactory("demo", "1.0.0", func(context.Context) (providers.Provider, error) {
		return &providers.Func{
			CheckF: func(_ context.Context, req providers.CheckRequest) (providers.CheckResponse, error) {
				if req.URN.Name() == "bad" {
					return providers.CheckResponse{}, errors.New("check failed")
				}
				return providers.CheckResponse{Inputs: req.News}, nil
			},
			CreateF: func(_ context.Context, req providers.CreateRequest) (providers.CreateResponse, error) {
				return providers.CreateResponse{ID: resource.ID("id-" + req.URN.Name()), Outputs: req.Inputs}, nil
			},
		}, nil
	}); err != nil {
		t.Fatal(err)
	}
	gen, err := stepgen.New(stepgen.Config{Stack: "dev", Project: "demo"})
	if err != nil {
		t.Fatal(err)
	}
	h := deploy.New(deploy.Config{Generator: gen, Source: reg, Registry: reg, Secrets: &resource.SecretFilter{},
		Observer: &observer{ended: map[string][]error{}}, Start: time.Now()})
	h.Start(ctx)
	mon := monitor.New(monitor.Config{Deployer: h, Providers: reg})
	// The default provider is registered first, so that the registrations
	// below reach the host in the order they are made.
	if _, err := mon.RegisterResource(ctx, resource.Goal{Type: "demo:index:Thing", Name: "first", Custom: true}); err != nil {
		t.Fatal(err)
	}

	var mu sync.Mutex
	answers := map[string][]error{}
	var all sync.WaitGroup
	register := func(key, name string) {
		all.Add(1)
		mon.RegisterResourceAsync(ctx, &resource.Goal{Type: "demo:index:Thing", Name: name, Custom: true},
			func(_ providers.RegisterResult, err error) {
				mu.Lock()
				answers[key] = append(answers[key], err)
				mu.Unlock()
				all.Done()
			})
	}
	register("a", "a")
	register("a again", "a")
	register("bad", "bad")
	all.Wait()
	if err := h.Settle(ctx); err != nil {
		t.Fatal(err)
	}
	h.Stop()
	h.Wait()

	mu.Lock()
	defer mu.Unlock()
	for key, wantErr := range map[string]bool{"a": false, "a again": true, "bad": true} {
		errs := answers[key]
		if len(errs) != 1 {
			t.Errorf("%s was answered %d times, want once", key, len(errs))
			continue
		}
		if (errs[0] != nil) != wantErr {
			t.Errorf("%s was answered with error %v, want an error: %v", key, errs[0], wantErr)
		}
	}
}
