package inline_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi/config"

	"github.com/groundwork-iac/groundwork/engine"
	"github.com/groundwork-iac/groundwork/enginetest"
	"github.com/groundwork-iac/groundwork/langhost/inline"
	"github.com/groundwork-iac/groundwork/providers"
	"github.com/groundwork-iac/groundwork/resource"
)

// cloud is a fake cloud of things that logs every change made to it.
type cloud struct {
	mu     sync.Mutex
	next   int
	writes []string
}

func (c *cloud) log(format string, args ...any) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.writes = append(c.writes, fmt.Sprintf(format, args...))
}

// take returns the writes since the last call, sorted.
func (c *cloud) take() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	w := c.writes
	c.writes = nil
	slices.Sort(w)
	return w
}

// provider serves "fake:index:Thing": a thing's outputs are its inputs and
// its "length", the length of its "value".
func (c *cloud) provider() providers.Provider {
	outputs := func(in resource.PropertyMap) resource.PropertyMap {
		out := in.Copy()
		if v, ok := in["value"]; ok && v.IsString() {
			out["length"] = resource.NewNumber(float64(len(v.StringValue())))
		}
		return out
	}
	return &providers.Func{
		CreateF: func(_ context.Context, req providers.CreateRequest) (providers.CreateResponse, error) {
			if req.Preview {
				return providers.CreateResponse{Outputs: req.Inputs}, nil
			}
			c.mu.Lock()
			c.next++
			id := resource.ID(fmt.Sprintf("thing-%d", c.next))
			c.mu.Unlock()
			c.log("create %s", req.URN.Name())
			return providers.CreateResponse{ID: id, Outputs: outputs(req.Inputs)}, nil
		},
		UpdateF: func(_ context.Context, req providers.UpdateRequest) (providers.UpdateResponse, error) {
			if !req.Preview {
				c.log("update %s", req.URN.Name())
			}
			return providers.UpdateResponse{Outputs: outputs(req.NewInputs)}, nil
		},
		DeleteF: func(_ context.Context, req providers.DeleteRequest) (providers.DeleteResponse, error) {
			c.log("delete %s", req.URN.Name())
			return providers.DeleteResponse{}, nil
		},
	}
}

// Thing is a fake:index:Thing as a Go SDK program declares it.
type Thing struct {
	pulumi.CustomResourceState
	Value  pulumi.StringOutput `pulumi:"value"`
	Length pulumi.IntOutput    `pulumi:"length"`
}

// Group is a component.
type Group struct {
	pulumi.ResourceState
}

// program declares a thing whose value comes from the configuration, a
// component, and a child of it whose value is the first thing's output;
// it exports the first thing's length and the secret configuration.
func program(ctx *pulumi.Context) error {
	cfg := config.New(ctx, "")
	var a Thing
	if err := ctx.RegisterResource("fake:index:Thing", "a", pulumi.Map{"value": pulumi.String(cfg.Require("value"))}, &a); err != nil {
		return err
	}
	var group Group
	if err := ctx.RegisterComponentResource("app:index:Group", "group", &group); err != nil {
		return err
	}
	var b Thing
	if err := ctx.RegisterResource("fake:index:Thing", "b", pulumi.Map{"value": a.Value.ApplyT(func(v string) string { return v + "!" })},
		&b, pulumi.Parent(&group)); err != nil {
		return err
	}
	if err := ctx.RegisterResourceOutputs(&group, pulumi.Map{"b": b.ID()}); err != nil {
		return err
	}
	ctx.Export("length", a.Length)
	ctx.Export("token", cfg.RequireSecret("token"))
	ctx.Export("dryRun", pulumi.Bool(ctx.DryRun()))
	return nil
}

// changes lists a result's steps that change something, as "op name",
// sorted, leaving out the stack and providers.
func changes(res *engine.Result) []string {
	var out []string
	for _, op := range enginetest.Ops(res) {
		if !strings.HasPrefix(op, string(engine.StepSame)+" ") {
			out = append(out, op)
		}
	}
	slices.Sort(out)
	return out
}

// stackOutputs returns the outputs recorded for env's stack.
func stackOutputs(t *testing.T, env *enginetest.Env) resource.PropertyMap {
	t.Helper()
	root := env.Resource(env.URN(resource.RootStackType, env.Project+"-"+env.Stack))
	if root == nil {
		t.Fatal("the state holds no stack resource")
	}
	return root.Outputs
}

func newEnv(t *testing.T, c *cloud, value string) *enginetest.Env {
	env := enginetest.New(t)
	env.Provider("fake", "", c.provider())
	env.Config = map[string]resource.PropertyValue{
		"test:value": resource.NewString(value),
		"test:token": resource.NewSecret(resource.NewString("t0k3n")),
	}
	return env
}

// An inline Go SDK program goes through a whole lifecycle: create, a
// rerun that changes nothing, a preview and an update after its
// configuration changed, and a destroy; each does what the program says,
// and the state holds its resources, their dependencies and its outputs.
func TestLifecycle(t *testing.T) {
	c := &cloud{}
	env := newEnv(t, c, "hello")
	prog := inline.Program(program)

	res, err := env.Up(prog)
	if err != nil {
		t.Fatalf("create: %v", err)
	}
	if diff := cmp.Diff([]string{"create a", "create b"}, c.take()); diff != "" {
		t.Errorf("create: the cloud's writes (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"create a", "create b", "create group"}, changes(res)); diff != "" {
		t.Errorf("create: steps (-want +got):\n%s", diff)
	}
	group := env.URN("app:index:Group", "group")
	b := env.Resource(resource.NewURN(env.Stack, env.Project, "app:index:Group", "fake:index:Thing", "b"))
	if b == nil {
		t.Fatal("create: the state holds no b under the group")
	}
	if b.Parent != group {
		t.Errorf("b's parent is %q; want %q", b.Parent, group)
	}
	a := env.URN("fake:index:Thing", "a")
	if !slices.Contains(b.Dependencies, a) {
		t.Errorf("b depends on %v; want a, whose output is its input", b.Dependencies)
	}
	if got := b.Inputs["value"]; !got.DeepEquals(resource.NewString("hello!")) {
		t.Errorf("b's value is %v; want hello!", got)
	}
	outputs := stackOutputs(t, env)
	if got := outputs["length"]; !got.DeepEquals(resource.NewNumber(5)) {
		t.Errorf("the stack output length is %v; want 5", got)
	}
	if tok := outputs["token"]; !tok.IsSecret() {
		t.Errorf("the stack output token is %v; want a secret", tok)
	}
	if got := outputs["dryRun"]; !got.DeepEquals(resource.NewBool(false)) {
		t.Errorf("the program saw dryRun %v in an update; want false", got)
	}

	res, err = env.Up(prog)
	if err != nil {
		t.Fatalf("no-change rerun: %v", err)
	}
	if res.HasChanges() {
		t.Errorf("no-change rerun changed %v", res.Counts)
	}
	if w := c.take(); len(w) != 0 {
		t.Errorf("no-change rerun wrote %v", w)
	}

	env.Config["test:value"] = resource.NewString("hello, world")
	res, err = env.Preview(prog)
	if err != nil {
		t.Fatalf("preview: %v", err)
	}
	if diff := cmp.Diff([]string{"update a", "update b"}, changes(res)); diff != "" {
		t.Errorf("preview: steps (-want +got):\n%s", diff)
	}
	if w := c.take(); len(w) != 0 {
		t.Errorf("preview wrote %v", w)
	}

	res, err = env.Up(prog)
	if err != nil {
		t.Fatalf("update: %v", err)
	}
	if diff := cmp.Diff([]string{"update a", "update b"}, changes(res)); diff != "" {
		t.Errorf("update: steps (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"update a", "update b"}, c.take()); diff != "" {
		t.Errorf("update: the cloud's writes (-want +got):\n%s", diff)
	}
	if got := stackOutputs(t, env)["length"]; !got.DeepEquals(resource.NewNumber(12)) {
		t.Errorf("after the update the stack output length is %v; want 12", got)
	}

	if _, err := env.Destroy(); err != nil {
		t.Fatalf("destroy: %v", err)
	}
	if diff := cmp.Diff([]string{"delete a", "delete b"}, c.take()); diff != "" {
		t.Errorf("destroy: the cloud's writes (-want +got):\n%s", diff)
	}
	if n := len(env.Snapshot().Resources); n != 0 {
		t.Errorf("destroy left %d resources in the state", n)
	}
}

// A program that fails, or panics, fails the operation with its error; what
// it registered before is kept.
func TestProgramError(t *testing.T) {
	boom := errors.New("boom")
	tests := []struct {
		name string
		fail func() error
		want string
	}{
		{"error", func() error { return boom }, "boom"},
		{"panic", func() error { panic("kaboom") }, "the program panicked: kaboom"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := &cloud{}
			env := newEnv(t, c, "v")
			_, err := env.Up(inline.Program(func(ctx *pulumi.Context) error {
				var a Thing
				if err := ctx.RegisterResource("fake:index:Thing", "a", pulumi.Map{"value": pulumi.String("x")}, &a); err != nil {
					return err
				}
				return tt.fail()
			}))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Up returned %v; want an error saying %q", err, tt.want)
			}
			if tt.name == "error" && !errors.Is(err, boom) {
				t.Errorf("Up's error %v does not wrap the program's", err)
			}
			if env.Resource(env.URN("fake:index:Thing", "a")) == nil {
				t.Error("the thing the program created before it failed is not in the state")
			}
		})
	}
}

// A resource whose inputs fail its provider's check fails the operation
// with that failure said once: the SDK's error for the registration,
// which only carries the engine's answer back, is not listed beside it.
// An error of the program's own, which the SDK leaves out of its error
// once a call failed, is kept, with the SDK's error whole beside it.
func TestFailedCheckIsSaidOnce(t *testing.T) {
	const why = "value: must not be empty"
	tests := []struct {
		name string
		// own is the program's own error ("" for none).
		own string
		// says is how many times the operation's error says the failure.
		says int
	}{
		{"the program returns nothing", "", 1},
		{"the program fails too", "the program's own trouble", 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := &cloud{}
			env := enginetest.New(t)
			p := c.provider().(*providers.Func)
			p.CheckF = func(_ context.Context, req providers.CheckRequest) (providers.CheckResponse, error) {
				if v := req.News["value"]; v.IsString() && v.StringValue() == "" {
					return providers.CheckResponse{Failures: []providers.CheckFailure{{Property: "value", Reason: "must not be empty"}}}, nil
				}
				return providers.CheckResponse{Inputs: req.News}, nil
			}
			env.Provider("fake", "", p)
			_, err := env.Up(inline.Program(func(ctx *pulumi.Context) error {
				var a Thing
				if err := ctx.RegisterResource("fake:index:Thing", "a", pulumi.Map{"value": pulumi.String("")}, &a); err != nil {
					return err
				}
				if tt.own != "" {
					return errors.New(tt.own)
				}
				return nil
			}))
			if err == nil {
				t.Fatal("Up succeeded with a resource whose inputs fail their check")
			}
			if n := strings.Count(err.Error(), why); n != tt.says {
				t.Errorf("Up's error says %q %d times; want %d:\n%v", why, n, tt.says, err)
			}
			if tt.own != "" && !strings.Contains(err.Error(), tt.own) {
				t.Errorf("Up's error %q does not keep the program's own, %q", err, tt.own)
			}
		})
	}
}
