package engine_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/groundwork-iac/groundwork/engine"
	"github.com/groundwork-iac/groundwork/enginetest"
	"github.com/groundwork-iac/groundwork/providers"
	"github.com/groundwork-iac/groundwork/resource"
	"github.com/groundwork-iac/groundwork/stepgen"
)

func newEnv(t *testing.T, c *cloud) *enginetest.Env {
	env := enginetest.New(t)
	env.Provider("test", "", c.provider())
	return env
}

func TestDestroyRespectsRetain(t *testing.T) {
	t.Run("retained resource leaves the state without a delete", func(t *testing.T) {
		c := newCloud()
		env := newEnv(t, c)
		_, err := env.Up(func(ctx *engine.Context) error {
			ctx.Register(thing, "kept", engine.Props{}, engine.RetainOnDelete())
			ctx.Register(thing, "gone", engine.Props{})
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := env.Destroy(); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff([]string{"delete gone"}, sorted(writesOf(c, "delete"))); diff != "" {
			t.Errorf("deletes (-want +got):\n%s", diff)
		}
		if len(env.Snapshot().Resources) != 0 || c.Live() != 1 {
			t.Errorf("state = %d resources, cloud = %d; want 0 and 1", len(env.Snapshot().Resources), c.Live())
		}
	})
	t.Run("deletedWith skips the delete of what goes with its target", func(t *testing.T) {
		c := newCloud()
		env := newEnv(t, c)
		_, err := env.Up(func(ctx *engine.Context) error {
			db := ctx.Register(thing, "db", engine.Props{})
			ctx.Register(thing, "table", engine.Props{}, engine.DeletedWith(db))
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := env.Destroy(); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff([]string{"delete db"}, writesOf(c, "delete")); diff != "" {
			t.Errorf("deletes (-want +got):\n%s", diff)
		}
	})
}

func writesOf(c *cloud, op string) []string {
	var out []string
	for _, w := range c.Writes() {
		if strings.HasPrefix(w, op+" ") {
			out = append(out, w)
		}
	}
	return out
}

func TestImport(t *testing.T) {
	seed := func(c *cloud) {
		c.live["existing-1"] = resource.PropertyMap{"size": resource.NewNumber(3)}
	}
	tests := []struct {
		name    string
		props   engine.Props
		wantErr string
	}{
		{"matching inputs adopt the resource", engine.Props{"size": 3}, ""},
		{"differing inputs fail and list the difference", engine.Props{"size": 4}, "differ from the existing resource in: size"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newCloud()
			seed(c)
			env := newEnv(t, c)
			_, err := env.Up(func(ctx *engine.Context) error {
				ctx.Register(thing, "imp", tt.props, engine.Import("existing-1"))
				return nil
			})
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				if env.Resource(env.URN(thing, "imp")) != nil {
					t.Error("a failed import was recorded")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			r := env.Resource(env.URN(thing, "imp"))
			if r == nil || r.ID != "existing-1" || len(c.Writes()) != 0 {
				t.Fatalf("recorded %+v, writes %v; want id existing-1 and no writes", r, c.Writes())
			}
			// Afterwards it is managed like any other resource.
			if _, err := env.Up(things(map[string]engine.Props{"imp": {"size": 5}})); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff([]string{"update imp"}, c.Writes()); diff != "" {
				t.Errorf("writes (-want +got):\n%s", diff)
			}
		})
	}
	t.Run("a missing resource is an error", func(t *testing.T) {
		c := newCloud()
		env := newEnv(t, c)
		_, err := env.Up(func(ctx *engine.Context) error {
			ctx.Register(thing, "imp", engine.Props{}, engine.Import("nope"))
			return nil
		})
		var nf *stepgen.NotFoundError
		if !errors.As(err, &nf) {
			t.Fatalf("err = %v, want NotFoundError", err)
		}
	})
	t.Run("standalone import keeps the rest of the stack", func(t *testing.T) {
		c := newCloud()
		seed(c)
		env := newEnv(t, c)
		if _, err := env.Up(things(map[string]engine.Props{"a": {}})); err != nil {
			t.Fatal(err)
		}
		_, err := env.Engine().Import(context.Background(), []engine.ImportSpec{{Type: thing, Name: "imp", ID: "existing-1"}})
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff([]string{"a", "imp"}, liveNames(env)); diff != "" {
			t.Errorf("recorded (-want +got):\n%s", diff)
		}
		if got := env.Resource(env.URN(thing, "imp")).Inputs["size"]; !got.DeepEquals(resource.NewNumber(3)) {
			t.Errorf("imported inputs size = %v, want 3 (as read)", got)
		}
	})
}

func TestRefresh(t *testing.T) {
	c := newCloud()
	env := newEnv(t, c)
	if _, err := env.Up(things(map[string]engine.Props{"a": {"size": 1}, "b": {"size": 2}})); err != nil {
		t.Fatal(err)
	}
	a, b := env.Resource(env.URN(thing, "a")), env.Resource(env.URN(thing, "b"))
	// Out of band: b is deleted and a drifts.
	c.mu.Lock()
	delete(c.live, b.ID)
	c.live[a.ID] = resource.PropertyMap{"size": resource.NewNumber(9), "id": resource.NewString(string(a.ID))}
	c.mu.Unlock()

	if _, err := env.Engine().PreviewRefresh(context.Background()); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"a", "b"}, liveNames(env)); diff != "" {
		t.Errorf("a refresh preview changed the state (-want +got):\n%s", diff)
	}
	if _, err := env.Engine().Refresh(context.Background()); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"a"}, liveNames(env)); diff != "" {
		t.Errorf("after refresh (-want +got):\n%s", diff)
	}
	if got := env.Resource(env.URN(thing, "a")).Outputs["size"]; !got.DeepEquals(resource.NewNumber(9)) {
		t.Errorf("a.size after refresh = %v, want the drifted 9", got)
	}
	if len(c.Writes()) != 2 {
		t.Errorf("refresh wrote: %v", c.Writes()[2:])
	}
}

func TestTargets(t *testing.T) {
	program := func(v int) engine.Program {
		return func(ctx *engine.Context) error {
			a := ctx.Register(thing, "a", engine.Props{"v": v})
			ctx.Register(thing, "b", engine.Props{"v": v, "a": a.Output("v")})
			ctx.Register(thing, "c", engine.Props{"v": v})
			return nil
		}
	}
	tests := []struct {
		name string
		opts []engine.Option
		want []string
	}{
		{"target only", []engine.Option{engine.Targets("urn:pulumi:dev::test::test:index:Thing::a")}, []string{"update a"}},
		{"target with dependents", []engine.Option{engine.Targets("urn:pulumi:dev::test::test:index:Thing::a"), engine.TargetDependents()},
			[]string{"update a", "update b"}},
		{"exclude", []engine.Option{engine.Excludes("urn:pulumi:dev::test::test:index:Thing::c")}, []string{"update a", "update b"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newCloud()
			env := newEnv(t, c)
			if _, err := env.Up(program(1)); err != nil {
				t.Fatal(err)
			}
			cBefore := env.Resource(env.URN(thing, "c"))
			before := len(c.Writes())
			if _, err := env.Up(program(2), tt.opts...); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, sorted(c.Writes()[before:])); diff != "" {
				t.Errorf("writes (-want +got):\n%s", diff)
			}
			if got := env.Resource(env.URN(thing, "c")); !got.Inputs.DeepEquals(cBefore.Inputs) {
				t.Errorf("untargeted c changed: %v → %v", cBefore.Inputs, got.Inputs)
			}
		})
	}
	t.Run("destroy of a target with a dependent outside the targets fails", func(t *testing.T) {
		c := newCloud()
		env := newEnv(t, c)
		if _, err := env.Up(program(1)); err != nil {
			t.Fatal(err)
		}
		a := env.URN(thing, "a")
		_, err := env.Destroy(engine.Targets(a))
		var de *stepgen.DanglingDependentError
		if !errors.As(err, &de) {
			t.Fatalf("err = %v, want DanglingDependentError", err)
		}
		if _, err := env.Destroy(engine.Targets(a), engine.TargetDependents()); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff([]string{"delete b", "delete a"}, writesOf(c, "delete")); diff != "" {
			t.Errorf("deletes (-want +got):\n%s", diff)
		}
		if diff := cmp.Diff([]string{"c"}, liveNames(env)); diff != "" {
			t.Errorf("recorded (-want +got):\n%s", diff)
		}
	})
	t.Run("a targeted resource needing an untargeted new one's output fails", func(t *testing.T) {
		c := newCloud()
		env := newEnv(t, c)
		_, err := env.Up(func(ctx *engine.Context) error {
			n := ctx.Register(thing, "new", engine.Props{})
			ctx.Register(thing, "user", engine.Props{"id": n.ID()})
			return nil
		}, engine.Targets(env.URN(thing, "user")))
		if err == nil || !strings.Contains(err.Error(), "unknown outside a preview") {
			t.Fatalf("err = %v", err)
		}
		if len(c.Writes()) != 0 {
			t.Errorf("writes: %v", c.Writes())
		}
	})
}

func TestExternalReadIsNeverDeleted(t *testing.T) {
	c := newCloud()
	c.live["ext-1"] = resource.PropertyMap{"size": resource.NewNumber(7)}
	env := newEnv(t, c)
	var size resource.PropertyValue
	_, err := env.Up(func(ctx *engine.Context) error {
		r := ctx.Read(thing, "ext", "ext-1", nil)
		v, err := r.Output("size").Await(ctx.Context())
		size = v
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if !size.DeepEquals(resource.NewNumber(7)) {
		t.Errorf("read size = %v", size)
	}
	if r := env.Resource(env.URN(thing, "ext")); r == nil || !r.External {
		t.Fatalf("recorded %+v, want an external resource", r)
	}
	if _, err := env.Destroy(); err != nil {
		t.Fatal(err)
	}
	if c.Live() != 1 || len(c.Writes()) != 0 {
		t.Errorf("destroy touched the external resource: writes %v", c.Writes())
	}
}

// policy is an analyzer built from a function.
type policy struct {
	resource func(r *resource.State) []engine.PolicyFinding
	stack    func(rs []*resource.State) []engine.PolicyFinding
}

func (p policy) Analyze(ctx context.Context, r *resource.State) ([]engine.PolicyFinding, error) {
	if p.resource == nil {
		return nil, nil
	}
	return p.resource(r), nil
}

func (p policy) AnalyzeStack(ctx context.Context, rs []*resource.State) ([]engine.PolicyFinding, error) {
	if p.stack == nil {
		return nil, nil
	}
	return p.stack(rs), nil
}

func TestAnalyzers(t *testing.T) {
	noBig := policy{resource: func(r *resource.State) []engine.PolicyFinding {
		if r.Inputs["size"].NumberValue() > 10 {
			return []engine.PolicyFinding{{Policy: "no-big", Message: "too big", Mandatory: true}}
		}
		if r.Inputs["size"].NumberValue() > 5 {
			return []engine.PolicyFinding{{Policy: "prefer-small", Message: "rather big"}}
		}
		return nil
	}}
	c := newCloud()
	env := newEnv(t, c)
	// With continue-on-error the refused resource does not stop the
	// others (TestMandatoryPolicyViolationIsAFailedStep covers the rest).
	_, err := env.Up(things(map[string]engine.Props{"ok": {"size": 1}, "warn": {"size": 7}, "big": {"size": 50}}),
		engine.Analyzers(noBig), engine.ContinueOnError())
	if err == nil || !strings.Contains(err.Error(), "no-big") {
		t.Fatalf("err = %v, want the mandatory violation", err)
	}
	if diff := cmp.Diff([]string{"create ok", "create warn"}, sorted(c.Writes())); diff != "" {
		t.Errorf("writes (-want +got):\n%s", diff)
	}
	var warned bool
	for _, ev := range env.Events() {
		if d, ok := ev.(engine.DiagnosticEvent); ok && d.Severity == engine.SeverityWarning && strings.Contains(d.Message, "prefer-small") {
			warned = d.URN.Name() == "warn"
		}
	}
	if !warned {
		t.Error("no advisory warning for warn")
	}
	stackRule := policy{stack: func(rs []*resource.State) []engine.PolicyFinding {
		return []engine.PolicyFinding{{Policy: "stack", Message: "always fails", Mandatory: true}}
	}}
	if _, err := env.Up(things(map[string]engine.Props{"ok": {"size": 1}}), engine.Analyzers(stackRule)); err == nil || !strings.Contains(err.Error(), "always fails") {
		t.Errorf("stack policy: err = %v", err)
	}
}

func TestTransformsRewriteRegistrations(t *testing.T) {
	c := newCloud()
	env := newEnv(t, c)
	tag := func(ctx context.Context, g *resource.Goal) error {
		if g.Custom && !resource.IsProviderType(g.Type) {
			g.Inputs = g.Inputs.Copy()
			g.Inputs["owner"] = resource.NewString("platform")
		}
		return nil
	}
	_, err := env.Up(func(ctx *engine.Context) error {
		ctx.RegisterTransform(func(_ context.Context, g *resource.Goal) error {
			g.Protect = true
			return nil
		})
		ctx.Register(thing, "a", engine.Props{})
		return nil
	}, engine.Transforms(tag))
	if err != nil {
		t.Fatal(err)
	}
	a := env.Resource(env.URN(thing, "a"))
	if a.Inputs["owner"].StringValue() != "platform" || !a.Protect {
		t.Errorf("a = inputs %v, protect %v; want both transforms applied", a.Inputs, a.Protect)
	}
}

func TestInvokeAndRemoteComponents(t *testing.T) {
	c := newCloud()
	f := c.provider()
	f.InvokeF = func(ctx context.Context, req providers.InvokeRequest) (providers.InvokeResponse, error) {
		return providers.InvokeResponse{Return: resource.PropertyMap{"echo": req.Args["x"]}}, nil
	}
	f.ConstructF = func(ctx context.Context, req providers.ConstructRequest) (providers.ConstructResponse, error) {
		comp, err := req.Host.RegisterResource(ctx, resource.Goal{Type: req.Type, Name: req.Name, Parent: req.Parent})
		if err != nil {
			return providers.ConstructResponse{}, err
		}
		child, err := req.Host.RegisterResource(ctx, resource.Goal{Type: thing, Name: req.Name + "-child", Custom: true, Parent: comp.URN, Inputs: req.Inputs})
		if err != nil {
			return providers.ConstructResponse{}, err
		}
		outs := resource.PropertyMap{"childID": resource.NewString(string(child.ID))}
		if err := req.Host.RegisterResourceOutputs(ctx, comp.URN, outs); err != nil {
			return providers.ConstructResponse{}, err
		}
		return providers.ConstructResponse{URN: comp.URN, Outputs: outs}, nil
	}
	env := enginetest.New(t)
	env.Provider("test", "", f)
	var echo resource.PropertyValue
	_, err := env.Up(func(ctx *engine.Context) error {
		ret, err := ctx.Invoke("test:index:echo", engine.Props{"x": "hi"})
		if err != nil {
			return err
		}
		echo = ret["echo"]
		if _, err := ctx.Invoke("test:index:echo", engine.Props{"x": resource.NewSecret(resource.NewString("s"))}); err == nil {
			return errors.New("an invoke with a secret argument was accepted")
		}
		ctx.Register("test:index:Component", "comp", engine.Props{"size": 1}, engine.Remote())
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if echo.StringValue() != "hi" {
		t.Errorf("invoke returned %v", echo)
	}
	compURN := env.URN("test:index:Component", "comp")
	child := env.Resource(resource.NewURN("dev", "test", "test:index:Component", thing, "comp-child"))
	if child == nil || child.Parent != compURN {
		t.Fatalf("child = %+v, want a child of %s", child, compURN)
	}
	if comp := env.Resource(compURN); comp == nil || comp.Outputs["childID"].StringValue() != string(child.ID) {
		t.Errorf("component = %+v", comp)
	}
}

// A pending operation an interrupted run left is reported by every
// operation. A refresh resolves those it can look up; a create interrupted
// before its provider returned an ID it cannot, so that one stays recorded,
// each operation warning with its type and inputs so that the resource can
// be found and imported, until a refresh discards it on purpose.
func TestPendingOperationsAreReportedAndResolvedByRefresh(t *testing.T) {
	c := newCloud()
	env := newEnv(t, c)
	if _, err := env.Up(things(map[string]engine.Props{"a": {}})); err != nil {
		t.Fatal(err)
	}
	// Simulate a crash: a begun create that never ended, and an update of
	// a that never ended.
	snap := env.Snapshot()
	a := env.Resource(env.URN(thing, "a"))
	ghost := &resource.State{Type: thing, URN: env.URN(thing, "ghost"), Custom: true, Provider: a.Provider,
		Inputs: resource.PropertyMap{"size": resource.NewNumber(42), "password": resource.NewSecret(resource.NewString("hunter2"))}}
	snap.PendingOperations = append(snap.PendingOperations,
		resource.Operation{Kind: resource.OperationCreating, Resource: ghost},
		resource.Operation{Kind: resource.OperationUpdating, Resource: a})
	if err := env.Store.Save(context.Background(), env.StackID(), snap); err != nil {
		t.Fatal(err)
	}
	if _, err := env.Up(things(map[string]engine.Props{"a": {}})); err != nil {
		t.Fatal(err)
	}
	if !hasWarning(env.Events(), "ghost") || !hasWarning(env.Events(), "a") {
		t.Error("the pending operations were not reported")
	}
	if n := len(env.Snapshot().PendingOperations); n != 2 {
		t.Fatalf("pending operations after an update = %d, want 2 (kept until a refresh)", n)
	}

	for range 2 {
		if _, err := env.Engine().Refresh(context.Background()); err != nil {
			t.Fatal(err)
		}
		pending := env.Snapshot().PendingOperations
		if len(pending) != 1 || pending[0].Resource.URN != ghost.URN {
			t.Fatalf("pending operations after a refresh = %v; want the create of ghost alone", pending)
		}
		msg := warningOf(env.Events(), "ghost")
		for _, part := range []string{thing, "size", "42", "gw import " + thing + " ghost", "DiscardPendingCreates"} {
			if !strings.Contains(msg, part) {
				t.Errorf("the refresh's warning about ghost does not say %q: %s", part, msg)
			}
		}
		if strings.Contains(msg, "hunter2") {
			t.Errorf("the warning shows a secret input: %s", msg)
		}
	}
	if _, err := env.Up(things(map[string]engine.Props{"a": {}})); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(warningOf(env.Events(), "ghost"), "gw import") {
		t.Error("Up does not keep warning of the unresolved pending create")
	}

	if _, err := env.Engine().Refresh(context.Background(), engine.DiscardPendingCreates()); err != nil {
		t.Fatal(err)
	}
	if n := len(env.Snapshot().PendingOperations); n != 0 {
		t.Errorf("pending operations after a refresh that discards them = %d, want 0", n)
	}
	if !strings.Contains(warningOf(env.Events(), "ghost"), "discarded") {
		t.Error("discarding the pending create was not reported")
	}
}

// warningOf returns the warnings about the resource named name, joined.
func warningOf(events []engine.Event, name string) string {
	var out []string
	for _, ev := range events {
		if d, ok := ev.(engine.DiagnosticEvent); ok && d.Severity == engine.SeverityWarning && d.URN.Name() == name {
			out = append(out, d.Message)
		}
	}
	return strings.Join(out, "\n")
}

func hasWarning(events []engine.Event, name string) bool {
	for _, ev := range events {
		if d, ok := ev.(engine.DiagnosticEvent); ok && d.Severity == engine.SeverityWarning && d.URN.Name() == name {
			return true
		}
	}
	return false
}

func TestCallTimeoutsAndSecretOutputs(t *testing.T) {
	c := newCloud()
	f := c.provider()
	create := f.CreateF
	var timeout time.Duration
	f.CreateF = func(ctx context.Context, req providers.CreateRequest) (providers.CreateResponse, error) {
		if req.URN.Name() == "timed" {
			timeout = req.Timeout
		}
		return create(ctx, req)
	}
	var self resource.URN
	f.CallF = func(ctx context.Context, req providers.CallRequest) (providers.CallResponse, error) {
		self = req.Args["__self__"].ResourceReferenceValue().URN
		return providers.CallResponse{Return: resource.PropertyMap{"sum": resource.NewNumber(req.Args["a"].NumberValue() + 1)}}, nil
	}
	env := enginetest.New(t)
	env.Provider("test", "", f)
	var sum resource.PropertyValue
	_, err := env.Up(func(ctx *engine.Context) error {
		ctx.Register(thing, "timed", engine.Props{}, engine.CustomTimeouts(resource.CustomTimeouts{Create: 90 * time.Second}))
		ctx.Register(thing, "hush", engine.Props{"token": "abc"}, engine.AdditionalSecretOutputs("token"))
		comp := ctx.Component("test:index:Widget", "w")
		ret, err := ctx.Call("test:index:Widget/add", comp, engine.Props{"a": 41})
		sum = ret["sum"]
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if timeout != 90*time.Second {
		t.Errorf("create timeout = %v, want 90s", timeout)
	}
	if !env.Resource(env.URN(thing, "hush")).Outputs["token"].IsSecret() {
		t.Error("the additional secret output is not secret")
	}
	if sum.NumberValue() != 42 || self != env.URN("test:index:Widget", "w") {
		t.Errorf("call returned %v with self %s", sum, self)
	}
}

// TestPreviewWithRefreshFirst previews against the refreshed stack: a
// resource deleted out of band is to be created again, which a plain
// preview cannot know; and nothing is written.
func TestPreviewWithRefreshFirst(t *testing.T) {
	c := newCloud()
	env := newEnv(t, c)
	program := things(map[string]engine.Props{"a": {"size": 1}, "b": {"size": 2}})
	if _, err := env.Up(program); err != nil {
		t.Fatal(err)
	}
	b := env.Resource(env.URN(thing, "b"))
	c.mu.Lock()
	delete(c.live, b.ID)
	c.mu.Unlock()
	before := c.Writes()

	plain, err := env.Preview(program)
	if err != nil {
		t.Fatal(err)
	}
	if got := enginetest.Ops(plain, thing); slices.Contains(got, "create b") {
		t.Errorf("a plain preview knows b is gone: %v", got)
	}
	refreshed, err := env.Preview(program, engine.RefreshFirst())
	if err != nil {
		t.Fatal(err)
	}
	if got := enginetest.Ops(refreshed, thing); !slices.Contains(got, "create b") {
		t.Errorf("the preview after a refresh = %v; want b created again", got)
	}
	for _, ev := range env.Events() {
		if st, ok := ev.(engine.OperationStartEvent); ok && !st.Preview {
			t.Errorf("an operation of the refreshed preview is not marked a preview: %+v", st)
		}
	}
	if diff := cmp.Diff([]string{"a", "b"}, liveNames(env)); diff != "" {
		t.Errorf("the preview changed the stored state (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(before, c.Writes()); diff != "" {
		t.Errorf("the preview changed the cloud (-want +got):\n%s", diff)
	}
}
