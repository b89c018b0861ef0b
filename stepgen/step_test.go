package stepgen_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/groundwork-iac/groundwork/deploy"
	"github.com/groundwork-iac/groundwork/providers"
	"github.com/groundwork-iac/groundwork/resource"
	"github.com/groundwork-iac/groundwork/stepgen"
)

// TestApplyCreate: a create calls the provider with the checked inputs and
// the create timeout, and records the ID and outputs it returns, stamped
// with the clock.
func TestApplyCreate(t *testing.T) {
	var got providers.CreateRequest
	prov := &providers.Func{CreateF: func(_ context.Context, req providers.CreateRequest) (providers.CreateResponse, error) {
		got = req
		return providers.CreateResponse{ID: "i-1", Outputs: props(map[string]any{"x": 1, "arn": "arn:1"})}, nil
	}}
	h := newHost(t, stepgen.Config{}, prov)
	s := onlyStep(t, h.mustRegister(goal("a", map[string]any{"x": 1}, func(g *resource.Goal) { g.CustomTimeouts.Create = time.Minute })))
	if s.Local() {
		t.Error("the create of a custom resource claims to call no provider")
	}
	before := *s.New
	o := h.applyOne(s)
	if o.Err != nil {
		t.Fatal(o.Err)
	}
	if diff := cmp.Diff(providers.CreateRequest{URN: urn("a"), Inputs: props(map[string]any{"x": 1}), Timeout: time.Minute}, got); diff != "" {
		t.Errorf("create request (-want +got):\n%s", diff)
	}
	n := o.New
	if o.Step != s || n.ID != "i-1" || !n.Created.Equal(fixedNow) || !n.Modified.Equal(fixedNow) || n.InitErrors != nil {
		t.Errorf("created: id %q created %v modified %v init errors %v", n.ID, n.Created, n.Modified, n.InitErrors)
	}
	if diff := cmp.Diff(props(map[string]any{"x": 1, "arn": "arn:1"}), n.Outputs); diff != "" {
		t.Errorf("outputs (-want +got):\n%s", diff)
	}
	// Apply changes nothing the step holds: what it produced is in the
	// outcome.
	if n == s.New || !cmp.Equal(before, *s.New) {
		t.Errorf("Apply changed the step's New (shared %v): %+v, was %+v", n == s.New, *s.New, before)
	}
	if got := outcomeResult(o); got != "nil→new" {
		t.Errorf("the outcome records %s, want the created state", got)
	}
}

// TestApplyFailures: how provider failures surface. A partial failure (the
// resource exists but did not initialize) is a PartialError after which
// New, with the provider's ID, outputs and reasons, must still be recorded;
// any other failure leaves nothing to record.
func TestApplyFailures(t *testing.T) {
	initErr := &providers.InitError{
		ID: "i-1", Outputs: props(map[string]any{"x": 1, "token": "t0ken"}), Reasons: []string{"health check failed"},
	}
	tests := []struct {
		name string
		old  []*resource.State
		prov *providers.Func
		goal resource.Goal
		// wantPartial says the failure left a resource to record.
		wantPartial bool
		wantID      resource.ID
	}{
		{
			name: "create: partial",
			prov: &providers.Func{CreateF: func(context.Context, providers.CreateRequest) (providers.CreateResponse, error) {
				return providers.CreateResponse{}, initErr
			}},
			goal:        goal("a", map[string]any{"x": 1, "token": resource.NewSecret(resource.NewString("t0ken"))}),
			wantPartial: true, wantID: "i-1",
		},
		{
			name: "create: failed",
			prov: &providers.Func{CreateF: func(context.Context, providers.CreateRequest) (providers.CreateResponse, error) {
				return providers.CreateResponse{}, errBoom
			}},
			goal: goal("a", map[string]any{"x": 1}),
		},
		{
			name: "create: no ID",
			prov: &providers.Func{CreateF: func(context.Context, providers.CreateRequest) (providers.CreateResponse, error) {
				return providers.CreateResponse{}, nil
			}},
			goal: goal("a", map[string]any{"x": 1}),
		},
		{
			name: "update: partial",
			old:  []*resource.State{recorded("a", map[string]any{"x": 0})},
			prov: &providers.Func{UpdateF: func(context.Context, providers.UpdateRequest) (providers.UpdateResponse, error) {
				return providers.UpdateResponse{}, &providers.InitError{Outputs: props(map[string]any{"x": 1}), Reasons: []string{"half done"}}
			}},
			goal:        goal("a", map[string]any{"x": 1}),
			wantPartial: true, wantID: "id-a",
		},
		{
			name: "update: failed",
			old:  []*resource.State{recorded("a", map[string]any{"x": 0})},
			prov: &providers.Func{UpdateF: func(context.Context, providers.UpdateRequest) (providers.UpdateResponse, error) {
				return providers.UpdateResponse{}, errBoom
			}},
			goal: goal("a", map[string]any{"x": 1}),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHost(t, stepgen.Config{Old: tt.old}, tt.prov)
			s := onlyStep(t, h.mustRegister(tt.goal))
			o := h.applyOne(s)
			err := o.Err
			if err == nil {
				t.Fatal("Apply succeeded")
			}
			if got := o.Partial(); got != tt.wantPartial {
				t.Fatalf("Partial(%v) = %v, want %v", err, got, tt.wantPartial)
			}
			if old, new := o.Record(); !tt.wantPartial && (old != nil || new != nil) {
				t.Errorf("a plain failure records %v → %v, want nothing", old, new)
			}
			if !tt.wantPartial {
				return
			}
			if _, new := o.Record(); new != o.New {
				t.Errorf("a partial failure records %v, want the resource that came to exist", new)
			}
			var pe *stepgen.PartialError
			if !errors.As(err, &pe) || pe.URN != urn("a") || pe.Op != s.Op {
				t.Errorf("err = %v, want a PartialError of %s of a", err, s.Op)
			}
			if !errors.As(err, new(*providers.InitError)) {
				t.Errorf("err = %v, want it to wrap the provider's InitError", err)
			}
			if o.New.ID != tt.wantID || len(o.New.InitErrors) != 1 {
				t.Errorf("New: id %q init errors %v, want id %q and the provider's reasons", o.New.ID, o.New.InitErrors, tt.wantID)
			}
			// Outputs whose input was secret stay secret, even when
			// recorded from a failure.
			for k, v := range o.New.Outputs {
				if in, ok := o.New.Inputs[k]; ok && in.IsSecret() && !v.IsSecret() {
					t.Errorf("output %q of a secret input is recorded in the clear", k)
				}
			}
		})
	}
}

// TestInitErrorsRetried: a resource recorded with init errors (a partial
// failure last time) is updated even when nothing changed, so that the
// provider can finish initializing it; success clears the errors.
func TestInitErrorsRetried(t *testing.T) {
	old := recorded("a", map[string]any{"x": 1}, func(s *resource.State) { s.InitErrors = []string{"health check failed"} })
	updated := false
	prov := &providers.Func{UpdateF: func(_ context.Context, req providers.UpdateRequest) (providers.UpdateResponse, error) {
		updated = true
		return providers.UpdateResponse{Outputs: req.NewInputs}, nil
	}}
	h := newHost(t, stepgen.Config{Old: []*resource.State{old}}, prov)
	s := onlyStep(t, h.mustRegister(goal("a", map[string]any{"x": 1})))
	if s.Op != stepgen.OpUpdate {
		t.Fatalf("step = %s, want update", s.Op)
	}
	o := h.applyOne(s)
	if o.Err != nil {
		t.Fatal(o.Err)
	}
	if !updated || o.New.InitErrors != nil {
		t.Errorf("updated %v, init errors %v; want the provider called and the errors cleared", updated, o.New.InitErrors)
	}
}

// TestApplyPreview: in a preview no provider call changes anything. A
// create or update of a resource takes its inputs as its outputs; a
// provider resource is still created (the registry only configures an
// instance) so that what it manages can be checked and diffed.
func TestApplyPreview(t *testing.T) {
	provType := providers.ProviderType("test")
	tests := []struct {
		name string
		old  []*resource.State
		goal resource.Goal
		// wantCall is the provider method the step must call, if any.
		wantCall string
	}{
		{name: "create", goal: goal("a", map[string]any{"x": 1})},
		{name: "update", old: []*resource.State{recorded("a", map[string]any{"x": 0})}, goal: goal("a", map[string]any{"x": 1})},
		{
			name:     "create of a provider resource",
			goal:     resource.Goal{Type: provType, Name: "p", Custom: true, Inputs: props(map[string]any{"region": "r"})},
			wantCall: "create",
		},
		{
			name: "update of a provider resource",
			old: []*resource.State{{
				Type: provType, URN: resource.NewURN(testStack, testProject, "", provType, "p"), Custom: true, ID: "p1",
				Inputs: props(map[string]any{"region": "q"}),
			}},
			goal:     resource.Goal{Type: provType, Name: "p", Custom: true, Inputs: props(map[string]any{"region": "r"})},
			wantCall: "update",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var called []string
			prov := &providers.Func{
				CreateF: func(_ context.Context, req providers.CreateRequest) (providers.CreateResponse, error) {
					called = append(called, "create")
					if !req.Preview {
						t.Error("create of a provider resource in a preview without Preview set")
					}
					return providers.CreateResponse{Outputs: req.Inputs}, nil
				},
				UpdateF: func(_ context.Context, req providers.UpdateRequest) (providers.UpdateResponse, error) {
					called = append(called, "update")
					if !req.Preview {
						t.Error("update of a provider resource in a preview without Preview set")
					}
					return providers.UpdateResponse{Outputs: req.NewInputs}, nil
				},
			}
			h := newHost(t, stepgen.Config{Old: tt.old, Preview: true}, prov)
			s := onlyStep(t, h.mustRegister(tt.goal))
			if !s.Preview {
				t.Error("step of a preview is not a preview")
			}
			o := h.applyOne(s)
			if o.Err != nil {
				t.Fatal(o.Err)
			}
			if got := s.Local(); got != (tt.wantCall == "") {
				t.Errorf("Local() = %v, but the step called %v", got, called)
			}
			var want []string
			if tt.wantCall != "" {
				want = []string{tt.wantCall}
			}
			if diff := cmp.Diff(want, called); diff != "" {
				t.Errorf("provider calls (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(o.New.Inputs, o.New.Outputs); diff != "" {
				t.Errorf("outputs differ from inputs (-inputs +outputs):\n%s", diff)
			}
		})
	}
}

// TestSecureOutputs: outputs listed in AdditionalSecretOutputs, and outputs
// whose input of the same name was secret, are recorded as secrets even
// when the provider returns them in the clear; in a preview too.
func TestSecureOutputs(t *testing.T) {
	secret := func(s string) resource.PropertyValue { return resource.NewSecret(resource.NewString(s)) }
	inputs := map[string]any{"password": "hunter2", "token": secret("t0ken"), "name": "n"}
	want := props(map[string]any{
		"password": secret("hunter2"), "token": secret("t0ken"), "name": "n",
	})
	for _, preview := range []bool{false, true} {
		name := map[bool]string{false: "up", true: "preview"}[preview]
		t.Run(name, func(t *testing.T) {
			prov := &providers.Func{CreateF: func(_ context.Context, req providers.CreateRequest) (providers.CreateResponse, error) {
				return providers.CreateResponse{ID: "i-1", Outputs: req.Inputs.Unwrap()}, nil
			}}
			h := newHost(t, stepgen.Config{Preview: preview}, prov)
			s := onlyStep(t, h.mustRegister(goal("a", inputs, func(g *resource.Goal) {
				g.AdditionalSecretOutputs = []resource.PropertyKey{"password", "missing"}
			})))
			o := h.applyOne(s)
			if o.Err != nil {
				t.Fatal(o.Err)
			}
			if diff := cmp.Diff(want, o.New.Outputs); diff != "" {
				t.Errorf("outputs (-want +got):\n%s", diff)
			}
		})
	}
}

// TestApplyComponents: a component calls no provider; its registered
// outputs are kept across runs until the program registers new ones.
func TestApplyComponents(t *testing.T) {
	old := &resource.State{Type: group, URN: groupURN("g"), Inputs: props(map[string]any{"x": 1}), Outputs: props(map[string]any{"url": "u"})}
	prov := &providers.Func{CreateF: failOnCreate(t), UpdateF: failOnUpdate(t)}
	h := newHost(t, stepgen.Config{Old: []*resource.State{old}}, prov)
	s := onlyStep(t, h.mustRegister(resource.Goal{Type: group, Name: "g", Inputs: props(map[string]any{"x": 2})}))
	if s.Op != stepgen.OpUpdate || s.JournalOp() != "" || !s.Local() {
		t.Fatalf("step %s journaling %q (local %v), want an update without a provider call", s.Op, s.JournalOp(), s.Local())
	}
	o := h.applyOne(s)
	if o.Err != nil {
		t.Fatal(o.Err)
	}
	if diff := cmp.Diff(old.Outputs, o.New.Outputs); diff != "" {
		t.Errorf("outputs (-want +got):\n%s", diff)
	}
	if !o.New.Modified.Equal(fixedNow) {
		t.Errorf("modified %v, want now", o.New.Modified)
	}

	fresh := onlyStep(t, h.mustRegister(resource.Goal{Type: group, Name: "h"}))
	fo := h.applyOne(fresh)
	if fo.Err != nil {
		t.Fatal(fo.Err)
	}
	if fo.New.Outputs == nil || len(fo.New.Outputs) != 0 || fresh.JournalOp() != "" {
		t.Errorf("new component: outputs %v journal %q, want empty outputs and no provider", fo.New.Outputs, fresh.JournalOp())
	}
}

// TestApplyWithoutProvider: a step whose provider cannot be resolved fails
// with the source's error.
func TestApplyWithoutProvider(t *testing.T) {
	h := newHost(t, stepgen.Config{}, nil)
	s := onlyStep(t, h.mustRegister(goal("a", nil)))
	failing := sourceFunc(func(ref, typ string) (providers.Provider, error) { return nil, errBoom })
	if o := deploy.Apply(context.Background(), s, failing, now); !errors.Is(o.Err, errBoom) {
		t.Errorf("Apply = %v, want the source's error", o.Err)
	}
	if o := deploy.Apply(context.Background(), s, nil, now); o.Err == nil {
		t.Error("Apply without a provider source succeeded")
	}
}

type sourceFunc func(ref, typ string) (providers.Provider, error)

func (f sourceFunc) Provider(ref, typ string) (providers.Provider, error) { return f(ref, typ) }

// TestStepSourceSeesReferenceAndType: Apply asks its source for the
// resource's provider reference and type.
func TestStepSourceSeesReferenceAndType(t *testing.T) {
	var asked [][2]string
	prov := &providers.Func{CreateF: func(context.Context, providers.CreateRequest) (providers.CreateResponse, error) {
		return providers.CreateResponse{ID: "i"}, nil
	}}
	h := newHost(t, stepgen.Config{}, prov)
	s := onlyStep(t, h.mustRegister(goal("a", nil)))
	o := deploy.Apply(context.Background(), s, sourceFunc(func(ref, typ string) (providers.Provider, error) {
		asked = append(asked, [2]string{ref, typ})
		return prov, nil
	}), now)
	if o.Err != nil {
		t.Fatal(o.Err)
	}
	if diff := cmp.Diff([][2]string{{provRef, thing}}, asked); diff != "" {
		t.Errorf("source asked (-want +got):\n%s", diff)
	}
}
