package engine_test

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/groundwork-iac/groundwork/engine"
	"github.com/groundwork-iac/groundwork/enginetest"
	"github.com/groundwork-iac/groundwork/plan"
	"github.com/groundwork-iac/groundwork/resource"
	"github.com/groundwork-iac/groundwork/state"
	"github.com/groundwork-iac/groundwork/state/filestore"
	"github.com/groundwork-iac/groundwork/state/memstore"
)

// previewPlan previews program with GeneratePlan and returns the plan after
// a trip through its JSON, as a host that saves it to a file would see it,
// and the preview's steps.
func previewPlan(t *testing.T, env *enginetest.Env, program engine.Program) (*plan.Plan, []string) {
	t.Helper()
	res, err := env.Preview(program, engine.GeneratePlan())
	if err != nil {
		t.Fatalf("preview: %v", err)
	}
	if res.Plan == nil {
		t.Fatal("the preview returned no plan")
	}
	ctx := context.Background()
	data, err := env.Engine().MarshalPlan(ctx, res.Plan)
	if err != nil {
		t.Fatalf("saving the plan: %v", err)
	}
	p, err := env.Engine().UnmarshalPlan(ctx, data)
	if err != nil {
		t.Fatalf("reading the plan back: %v", err)
	}
	return p, sorted(enginetest.Ops(res))
}

// violation returns the *plan.ViolationError in err, failing the test if
// there is none.
func violation(t *testing.T, err error) *plan.ViolationError {
	t.Helper()
	var v *plan.ViolationError
	if !errors.As(err, &v) {
		t.Fatalf("err = %v, want a *plan.ViolationError", err)
	}
	return v
}

func TestPlanAppliedUnchanged(t *testing.T) {
	c := newCloud("zone")
	env := newEnv(t, c)
	if _, err := env.Up(things(map[string]engine.Props{
		"kept": {"size": 1}, "grown": {"size": 1}, "moved": {"zone": "a"}, "dropped": {"size": 1},
	})); err != nil {
		t.Fatal(err)
	}
	next := things(map[string]engine.Props{
		"kept": {"size": 1}, "grown": {"size": 2}, "moved": {"zone": "b"}, "added": {"size": 1},
	})
	p, previewed := previewPlan(t, env, next)
	before := len(c.Writes())

	res, err := env.Up(next, engine.UsePlan(p))
	if err != nil {
		t.Fatalf("up with the plan: %v", err)
	}
	want := []string{"create added", "create-replacement moved", "delete dropped", "delete-replaced moved", "replace moved", "same kept", "update grown"}
	if diff := cmp.Diff(want, previewed); diff != "" {
		t.Errorf("previewed steps (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(previewed, sorted(enginetest.Ops(res))); diff != "" {
		t.Errorf("steps of the up differ from the plan's (-planned +taken):\n%s", diff)
	}
	wantWrites := []string{"create added", "create moved", "delete dropped", "delete moved", "update grown"}
	if diff := cmp.Diff(wantWrites, sorted(c.Writes()[before:])); diff != "" {
		t.Errorf("provider writes (-want +got):\n%s", diff)
	}
}

func TestPlanAppliesDeleteBeforeReplace(t *testing.T) {
	c := newCloud("zone")
	env := newEnv(t, c)
	program := func(zone string) engine.Program {
		return func(ctx *engine.Context) error {
			ctx.Register(thing, "db", engine.Props{"zone": zone}, engine.DeleteBeforeReplace())
			return nil
		}
	}
	if _, err := env.Up(program("a")); err != nil {
		t.Fatal(err)
	}
	p, previewed := previewPlan(t, env, program("b"))
	if diff := cmp.Diff([]string{"create db", "delete-replaced db"}, previewed); diff != "" {
		t.Errorf("previewed steps (-want +got):\n%s", diff)
	}
	before := len(c.Writes())
	res, err := env.Up(program("b"), engine.UsePlan(p))
	if err != nil {
		t.Fatalf("up with the plan: %v", err)
	}
	if diff := cmp.Diff(previewed, sorted(enginetest.Ops(res))); diff != "" {
		t.Errorf("steps of the up differ from the plan's (-planned +taken):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"delete db", "create db"}, c.Writes()[before:]); diff != "" {
		t.Errorf("provider writes (-want +got):\n%s", diff)
	}
}

func TestPlanRefusesDriftedOutput(t *testing.T) {
	env := newEnv(t, newCloud())
	exporting := func(v string) engine.Program {
		return func(ctx *engine.Context) error {
			ctx.Register(thing, "a", engine.Props{})
			ctx.Export("region", v)
			return nil
		}
	}
	p, _ := previewPlan(t, env, exporting("eu"))
	_, err := env.Up(exporting("us"), engine.UsePlan(p))
	v := violation(t, err)
	if v.URN.Type() != resource.RootStackType || len(v.Properties) != 1 || v.Properties[0].Key != "region" || !v.Properties[0].Output {
		t.Fatalf("violation = %+v, want the stack's output region named", v)
	}
	if !strings.Contains(err.Error(), `output "region" was planned to be set to "eu" but is newly set to "us"`) {
		t.Errorf("error = %q", err)
	}
}

func TestPlanRefusesDriftedInput(t *testing.T) {
	c := newCloud()
	env := newEnv(t, c)
	if _, err := env.Up(things(map[string]engine.Props{"web": {"size": 1, "name": "web"}})); err != nil {
		t.Fatal(err)
	}
	p, _ := previewPlan(t, env, things(map[string]engine.Props{"web": {"size": 2, "name": "web"}}))
	before := len(c.Writes())

	_, err := env.Up(things(map[string]engine.Props{"web": {"size": 3, "name": "web"}}), engine.UsePlan(p))
	v := violation(t, err)
	if v.URN != env.URN(thing, "web") || len(v.Properties) != 1 || v.Properties[0].Key != "size" {
		t.Fatalf("violation = %+v, want one naming input size of web", v)
	}
	msg := err.Error()
	if !containsAll(msg, string(v.URN), `input "size" was planned to change to 2 but changes to 3`, "preview again") {
		t.Errorf("error = %q, want it to name the resource, the input, the planned and the actual value, and what to do", msg)
	}
	if got := c.Writes()[before:]; len(got) != 0 {
		t.Errorf("provider writes = %v, want none: the refused update must not run", got)
	}
	if got := env.Resource(env.URN(thing, "web")).Inputs["size"]; !got.DeepEquals(resource.NewNumber(1)) {
		t.Errorf("recorded size = %v, want 1 (unchanged)", got)
	}
}

func TestPlanRefusesExtraResource(t *testing.T) {
	c := newCloud()
	env := newEnv(t, c)
	p, _ := previewPlan(t, env, things(map[string]engine.Props{"a": {"size": 1}}))

	_, err := env.Up(things(map[string]engine.Props{"a": {"size": 1}, "b": {"size": 1}}), engine.UsePlan(p))
	v := violation(t, err)
	if v.URN != env.URN(thing, "b") || v.Op != plan.OpCreate || v.Planned != "" {
		t.Fatalf("violation = %+v, want b's create refused as unplanned", v)
	}
	if !strings.Contains(err.Error(), "the plan holds no create step for it") {
		t.Errorf("error = %q, want it to say the plan holds no create for b", err)
	}
	if diff := cmp.Diff([]string{"create a"}, c.Writes()); diff != "" {
		t.Errorf("provider writes (-want +got):\n%s", diff)
	}
}

func TestPlanRefusesMissingStep(t *testing.T) {
	c := newCloud()
	env := newEnv(t, c)
	p, _ := previewPlan(t, env, things(map[string]engine.Props{"a": {"size": 1}, "b": {"size": 1}}))

	_, err := env.Up(things(map[string]engine.Props{"a": {"size": 1}}), engine.UsePlan(p))
	v := violation(t, err)
	if v.URN != env.URN(thing, "b") || v.Op != plan.OpCreate || !v.NotTaken {
		t.Fatalf("violation = %+v, want b's planned create reported as not taken", v)
	}
}

func TestPlanRefusesChangedOption(t *testing.T) {
	c := newCloud()
	env := newEnv(t, c)
	p, _ := previewPlan(t, env, things(map[string]engine.Props{"a": {"size": 1}}))

	_, err := env.Up(func(ctx *engine.Context) error {
		ctx.Register(thing, "a", engine.Props{"size": 1}, engine.Protect())
		return nil
	}, engine.UsePlan(p))
	if v := violation(t, err); v.Option != "protect" {
		t.Fatalf("violation = %+v, want protect named", v)
	}
	if !strings.Contains(err.Error(), "protect was planned as false but is true") {
		t.Errorf("error = %q, want it to say how protect changed", err)
	}
	if len(c.Writes()) != 0 {
		t.Errorf("provider writes = %v, want none", c.Writes())
	}
}

func TestPlanAcceptsResolvedUnknown(t *testing.T) {
	c := newCloud()
	env := newEnv(t, c)
	program := chain("first", "second")
	p, _ := previewPlan(t, env, program)
	planned := p.Resources[env.URN(thing, "second")].Goal.Inputs.Adds["after"]
	if !planned.IsUnknown() {
		t.Fatalf("planned input after = %v, want unknown: the preview cannot know first's ID", planned)
	}

	if _, err := env.Up(program, engine.UsePlan(p)); err != nil {
		t.Fatalf("up with the plan: %v", err)
	}
	first := env.Resource(env.URN(thing, "first"))
	second := env.Resource(env.URN(thing, "second"))
	if got := second.Inputs["after"]; !got.DeepEquals(resource.NewString(string(first.ID))) {
		t.Errorf("second's after = %v, want first's ID %q", got, first.ID)
	}
}

func TestPlanUnknownAllowsNoValue(t *testing.T) {
	// A value unknown when the plan was made may come out as none: second
	// was planned with an unknown "after", and is registered without it.
	c := newCloud()
	env := newEnv(t, c)
	p, _ := previewPlan(t, env, chain("first", "second"))
	_, err := env.Up(func(ctx *engine.Context) error {
		first := ctx.Register(thing, "first", engine.Props{"name": "first"})
		ctx.Register(thing, "second", engine.Props{"name": "second"}, engine.DependsOn(first))
		return nil
	}, engine.UsePlan(p))
	if err != nil {
		t.Fatalf("up with the plan: %v", err)
	}
	if got, ok := env.Resource(env.URN(thing, "second")).Inputs["after"]; ok {
		t.Errorf("second's after = %v, want none", got)
	}
}

func TestPlanSecretsAreSealed(t *testing.T) {
	const secret = "correct-horse-battery-staple"
	dir := t.TempDir()
	open := func() state.Store {
		s, err := filestore.New(dir, state.WithSecrets(state.PassphraseSecrets("plan passphrase")))
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	program := things(map[string]engine.Props{"db": {"password": resource.NewSecret(resource.NewString(secret))}})
	c := newCloud()

	// One engine previews and saves the plan...
	saver := enginetest.New(t)
	saver.Store = open()
	saver.Provider("test", "", c.provider())
	res, err := saver.Preview(program, engine.GeneratePlan())
	if err != nil {
		t.Fatal(err)
	}
	data, err := saver.Engine().MarshalPlan(context.Background(), res.Plan)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(data, []byte(secret)) {
		t.Fatalf("the saved plan holds the secret in plaintext:\n%s", data)
	}
	if !bytes.Contains(data, []byte(`"$secret"`)) {
		t.Fatalf("the saved plan holds no sealed secret:\n%s", data)
	}

	// ...and another, over a store of its own, applies it.
	applier := enginetest.New(t)
	applier.Store = open()
	applier.Provider("test", "", c.provider())
	p, err := applier.Engine().UnmarshalPlan(context.Background(), data)
	if err != nil {
		t.Fatal(err)
	}
	got := p.Resources[applier.URN(thing, "db")].Goal.Inputs.Adds["password"]
	if !got.DeepEquals(resource.NewSecret(resource.NewString(secret))) {
		t.Fatalf("password read back from the plan = %v, want the secret", got)
	}
	if _, err := applier.Up(program, engine.UsePlan(p)); err != nil {
		t.Fatalf("up with the plan: %v", err)
	}

	// A plain value where a secret was planned is refused.
	wrong, err := applier.Engine().UnmarshalPlan(context.Background(), data)
	if err != nil {
		t.Fatal(err)
	}
	other := enginetest.New(t)
	other.Provider("test", "", newCloud().provider())
	other.Store = memstore.New()
	_, err = other.Up(things(map[string]engine.Props{"db": {"password": secret}}), engine.UsePlan(wrong))
	if v := violation(t, err); len(v.Properties) != 1 || v.Properties[0].Key != "password" {
		t.Fatalf("violation = %+v, want password named", v)
	}
	if strings.Contains(err.Error(), secret) {
		t.Errorf("the error shows the secret: %v", err)
	}
}

func TestPlanForAnotherStackIsRefused(t *testing.T) {
	env := newEnv(t, newCloud())
	p, _ := previewPlan(t, env, things(map[string]engine.Props{"a": {}}))
	p.Stack = "prod"
	_, err := env.Up(things(map[string]engine.Props{"a": {}}), engine.UsePlan(p))
	if err == nil || !strings.Contains(err.Error(), `the plan was made for stack "prod"`) {
		t.Fatalf("err = %v, want the plan refused for another stack", err)
	}
}
