package plan_test

import (
	"bytes"
	"context"
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/groundwork-iac/groundwork/plan"
	"github.com/groundwork-iac/groundwork/resource"
	"github.com/groundwork-iac/groundwork/state"
	"github.com/groundwork-iac/groundwork/state/secrets"
)

const urn = resource.URN("urn:pulumi:dev::site::test:index:Thing::a")

func props(kv ...any) resource.PropertyMap {
	m := resource.PropertyMap{}
	for i := 0; i < len(kv); i += 2 {
		v, ok := kv[i+1].(resource.PropertyValue)
		if !ok {
			var err error
			if v, err = resource.NewPropertyValue(kv[i+1]); err != nil {
				panic(err)
			}
		}
		m[resource.PropertyKey(kv[i].(string))] = v
	}
	return m
}

var unknown = resource.NewUnknown()

func TestAllows(t *testing.T) {
	tests := []struct {
		planned plan.Op
		allowed []plan.Op
	}{
		{plan.OpSame, []plan.Op{plan.OpSame}},
		{plan.OpCreate, []plan.Op{plan.OpCreate, plan.OpSame}},
		{plan.OpUpdate, []plan.Op{plan.OpUpdate, plan.OpSame}},
		{plan.OpCreateReplacement, []plan.Op{plan.OpCreateReplacement, plan.OpUpdate, plan.OpSame}},
		{plan.OpReplace, []plan.Op{plan.OpReplace, plan.OpUpdate, plan.OpSame}},
		{plan.OpDeleteReplaced, []plan.Op{plan.OpDeleteReplaced, plan.OpUpdate, plan.OpSame}},
		{plan.OpDelete, []plan.Op{plan.OpDelete}},
		{plan.OpRead, []plan.Op{plan.OpRead}},
		{plan.OpImport, []plan.Op{plan.OpImport}},
	}
	all := []plan.Op{plan.OpSame, plan.OpCreate, plan.OpUpdate, plan.OpDelete, plan.OpReplace,
		plan.OpCreateReplacement, plan.OpDeleteReplaced, plan.OpRead, plan.OpImport}
	for _, tt := range tests {
		var got []plan.Op
		for _, op := range all {
			if plan.Allows(tt.planned, op) {
				got = append(got, op)
			}
		}
		if diff := cmp.Diff(sortOps(tt.allowed), sortOps(got)); diff != "" {
			t.Errorf("planned %s allows (-want +got):\n%s", tt.planned, diff)
		}
	}
}

func sortOps(ops []plan.Op) []plan.Op {
	out := append([]plan.Op(nil), ops...)
	for i := range out {
		for j := i + 1; j < len(out); j++ {
			if out[j] < out[i] {
				out[i], out[j] = out[j], out[i]
			}
		}
	}
	return out
}

func TestGoalCheckInputs(t *testing.T) {
	secret := func(v any) resource.PropertyValue {
		pv, _ := resource.NewPropertyValue(v)
		return resource.NewSecret(pv)
	}
	tests := []struct {
		name    string
		olds    resource.PropertyMap // recorded when planning and now
		planned resource.PropertyMap // checked inputs when planning
		news    resource.PropertyMap // checked inputs now
		want    []resource.PropertyKey
		// fresh plans against no recorded inputs (a create).
		fresh bool
	}{
		{"unchanged", props("a", 1), props("a", 1), props("a", 1), nil, false},
		{"planned update kept", props("a", 1), props("a", 2), props("a", 2), nil, false},
		{"drifted update", props("a", 1), props("a", 2), props("a", 3), []resource.PropertyKey{"a"}, false},
		{"unplanned change", props("a", 1, "b", 1), props("a", 1, "b", 1), props("a", 1, "b", 2), []resource.PropertyKey{"b"}, false},
		{"unplanned add", props("a", 1), props("a", 1), props("a", 1, "b", 1), []resource.PropertyKey{"b"}, false},
		{"unplanned removal", props("a", 1, "b", 1), props("a", 1, "b", 1), props("a", 1), []resource.PropertyKey{"b"}, false},
		{"planned removal done", props("a", 1, "b", 1), props("a", 1), props("a", 1), nil, false},
		{"planned removal not done", props("a", 1, "b", 1), props("a", 1), props("a", 1, "b", 1), []resource.PropertyKey{"b"}, false},
		{"planned add kept", nil, props("a", 1), props("a", 1), nil, false},
		{"planned add missing", nil, props("a", 1), props(), []resource.PropertyKey{"a"}, false},
		{"unknown add resolves", nil, props("a", unknown), props("a", "x"), nil, false},
		{"unknown update resolves", props("a", 1), props("a", unknown), props("a", 5), nil, false},
		{"unknown add resolves to nothing", nil, props("a", unknown), props(), nil, false},
		{"unknown update resolves to nothing", props("a", 1), props("a", unknown), props(), nil, false},
		{"unknown member resolves", nil, props("o", props("x", 1, "y", unknown)), props("o", props("x", 1, "y", 2)), nil, false},
		{"unknown member dropped", nil, props("o", props("x", 1, "y", unknown)), props("o", props("x", 1)), nil, false},
		{"known member drifts", nil, props("o", props("x", 1, "y", unknown)), props("o", props("x", 2, "y", 2)), []resource.PropertyKey{"o"}, false},
		{"unknown element becomes null", nil, props("l", []any{unknown, 24}), props("l", []any{nil, 24}), nil, false},
		{"array length differs", nil, props("l", []any{unknown}), props("l", []any{1, 2}), []resource.PropertyKey{"l"}, false},
		{"secret kept", nil, props("p", secret("s")), props("p", secret("s")), nil, false},
		{"secret made plain", nil, props("p", secret("s")), props("p", "s"), []resource.PropertyKey{"p"}, false},
		{"unknown secret resolves", nil, props("p", resource.NewSecret(unknown)), props("p", secret("s")), nil, false},
		{"planned create, already there", props("a", 1), props("a", 1), props("a", 1), nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			from := tt.olds
			if tt.fresh {
				from = nil
			}
			g := &plan.Goal{Custom: true, Inputs: plan.NewDiff(from, tt.planned)}
			err := g.Check(urn, &plan.Goal{Custom: true}, tt.olds, tt.news)
			var got []resource.PropertyKey
			if err != nil {
				var v *plan.ViolationError
				if !errors.As(err, &v) {
					t.Fatalf("err = %v, want a *plan.ViolationError", err)
				}
				for _, p := range v.Properties {
					got = append(got, p.Key)
				}
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("properties refused (-want +got):\n%s\nerr: %v", diff, err)
			}
		})
	}
}

func TestGoalCheckOptions(t *testing.T) {
	dep := resource.URN("urn:pulumi:dev::site::test:index:Thing::dep")
	planned := &plan.Goal{Custom: true, Provider: "urn:pulumi:dev::site::pulumi:providers:test::default::04da6b54-80e4-46f7-96ec-b56ff0331ba9",
		Dependencies: []resource.URN{dep}}
	tests := []struct {
		name   string
		change func(g *plan.Goal)
		option string
	}{
		{"same options", func(*plan.Goal) {}, ""},
		{"provider created meanwhile", func(g *plan.Goal) { g.Provider = "urn:pulumi:dev::site::pulumi:providers:test::default::p1" }, ""},
		{"another provider", func(g *plan.Goal) { g.Provider = "urn:pulumi:dev::site::pulumi:providers:test::other::p1" }, "provider"},
		{"component", func(g *plan.Goal) { g.Custom = false }, "custom"},
		{"protect", func(g *plan.Goal) { g.Protect = true }, "protect"},
		{"dependency added", func(g *plan.Goal) { g.Dependencies = append(g.Dependencies, urn) }, "dependencies"},
		{"a dependency listed twice", func(g *plan.Goal) { g.Dependencies = []resource.URN{dep, dep} }, ""},
		{"ignoreChanges", func(g *plan.Goal) { g.IgnoreChanges = []string{"a"} }, "ignoreChanges"},
		{"timeouts", func(g *plan.Goal) { g.CustomTimeouts.Create = time.Minute }, "customTimeouts"},
		{"deleteBeforeReplace", func(g *plan.Goal) { g.DeleteBeforeReplace = true }, "deleteBeforeReplace"},
		{"parent", func(g *plan.Goal) { g.Parent = dep }, "parent"},
		// Beyond Pulumi's plans (COMPATIBILITY.md):
		{"replaceOnChanges", func(g *plan.Goal) { g.ReplaceOnChanges = []string{"a"} }, "replaceOnChanges"},
		{"retainOnDelete", func(g *plan.Goal) { g.RetainOnDelete = true }, "retainOnDelete"},
		{"deletedWith", func(g *plan.Goal) { g.DeletedWith = dep }, "deletedWith"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			actual := *planned
			actual.Dependencies = append([]resource.URN(nil), planned.Dependencies...)
			tt.change(&actual)
			err := planned.Check(urn, &actual, nil, nil)
			var v *plan.ViolationError
			switch {
			case tt.option == "" && err != nil:
				t.Fatalf("err = %v, want none", err)
			case tt.option != "" && (!errors.As(err, &v) || v.Option != tt.option):
				t.Fatalf("err = %v, want a violation of %s", err, tt.option)
			}
		})
	}
}

func TestCheckerSteps(t *testing.T) {
	other := resource.URN("urn:pulumi:dev::site::test:index:Thing::b")
	type step struct {
		urn resource.URN
		op  plan.Op
	}
	tests := []struct {
		name     string
		planned  map[resource.URN][]plan.Op
		steps    []step
		refused  int // index of the step refused, -1 for none
		recorded bool
		done     string // the resource Done reports, "" for none
	}{
		{"as planned", map[resource.URN][]plan.Op{urn: {plan.OpCreate}}, []step{{urn, plan.OpCreate}}, -1, false, ""},
		{"planned create already done", map[resource.URN][]plan.Op{urn: {plan.OpCreate}}, []step{{urn, plan.OpSame}}, -1, false, ""},
		{"update for a planned create", map[resource.URN][]plan.Op{urn: {plan.OpCreate}}, []step{{urn, plan.OpUpdate}}, 0, false, ""},
		{"unplanned same", nil, []step{{urn, plan.OpSame}}, -1, false, ""},
		{"unplanned create", nil, []step{{urn, plan.OpCreate}}, 0, false, ""},
		{"one step too many", map[resource.URN][]plan.Op{urn: {plan.OpUpdate}}, []step{{urn, plan.OpUpdate}, {urn, plan.OpDelete}}, 1, false, ""},
		{"replacement turned update", map[resource.URN][]plan.Op{urn: {plan.OpCreateReplacement, plan.OpReplace, plan.OpDeleteReplaced}},
			[]step{{urn, plan.OpUpdate}}, -1, true, ""},
		{"delete-before-replace turned same", map[resource.URN][]plan.Op{urn: {plan.OpDeleteReplaced, plan.OpCreate}},
			[]step{{urn, plan.OpSame}}, -1, true, ""},
		{"delete-before-replace turned same, an old copy's delete taken", map[resource.URN][]plan.Op{urn: {plan.OpDeleteReplaced, plan.OpDeleteReplaced, plan.OpCreate}},
			[]step{{urn, plan.OpSame}, {urn, plan.OpDeleteReplaced}}, -1, true, ""},
		{"delete-before-replace turned same, an old copy's delete not taken", map[resource.URN][]plan.Op{urn: {plan.OpDeleteReplaced, plan.OpDeleteReplaced, plan.OpCreate}},
			[]step{{urn, plan.OpSame}}, -1, true, string(urn)},
		{"an old copy's delete, then delete-before-replace turned same", map[resource.URN][]plan.Op{urn: {plan.OpDeleteReplaced, plan.OpDeleteReplaced, plan.OpCreate}},
			[]step{{urn, plan.OpDeleteReplaced}, {urn, plan.OpSame}}, -1, true, ""},
		{"replacement turned update, an old copy's delete taken", map[resource.URN][]plan.Op{urn: {plan.OpCreateReplacement, plan.OpReplace, plan.OpDeleteReplaced, plan.OpDeleteReplaced}},
			[]step{{urn, plan.OpUpdate}, {urn, plan.OpDeleteReplaced}}, -1, true, ""},
		{"replacement turned update, one delete too many", map[resource.URN][]plan.Op{urn: {plan.OpCreateReplacement, plan.OpReplace, plan.OpDeleteReplaced, plan.OpDeleteReplaced}},
			[]step{{urn, plan.OpUpdate}, {urn, plan.OpDeleteReplaced}, {urn, plan.OpDeleteReplaced}}, 2, true, ""},
		{"replacement in full", map[resource.URN][]plan.Op{urn: {plan.OpCreateReplacement, plan.OpReplace, plan.OpDeleteReplaced}},
			[]step{{urn, plan.OpCreateReplacement}, {urn, plan.OpReplace}, {urn, plan.OpDeleteReplaced}}, -1, true, ""},
		{"delete-before-create taken create-before-delete", map[resource.URN][]plan.Op{urn: {plan.OpDeleteReplaced, plan.OpCreate}},
			[]step{{urn, plan.OpCreateReplacement}, {urn, plan.OpReplace}, {urn, plan.OpDeleteReplaced}}, -1, true, ""},
		{"create-before-delete taken delete-before-create", map[resource.URN][]plan.Op{urn: {plan.OpCreateReplacement, plan.OpReplace, plan.OpDeleteReplaced}},
			[]step{{urn, plan.OpDeleteReplaced}, {urn, plan.OpCreate}}, -1, true, ""},
		{"create-before-delete taken delete-before-create, then too many", map[resource.URN][]plan.Op{urn: {plan.OpCreateReplacement, plan.OpReplace, plan.OpDeleteReplaced}},
			[]step{{urn, plan.OpDeleteReplaced}, {urn, plan.OpCreate}, {urn, plan.OpDeleteReplaced}}, 2, true, ""},
		{"delete-before-create not taken whole", map[resource.URN][]plan.Op{urn: {plan.OpDeleteReplaced, plan.OpCreate}},
			[]step{{urn, plan.OpCreateReplacement}, {urn, plan.OpReplace}}, -1, true, string(urn)},
		{"planned delete taken by a cascade", map[resource.URN][]plan.Op{urn: {plan.OpDelete}},
			[]step{{urn, plan.OpDeleteReplaced}, {urn, plan.OpDelete}}, -1, true, ""},
		{"cascade delete taken after the program", map[resource.URN][]plan.Op{urn: {plan.OpDeleteReplaced, plan.OpDelete}},
			[]step{{urn, plan.OpDelete}}, -1, true, ""},
		{"planned delete then a create", map[resource.URN][]plan.Op{urn: {plan.OpDelete}},
			[]step{{urn, plan.OpDelete}, {urn, plan.OpCreate}}, 1, true, ""},
		{"replace for a planned update", map[resource.URN][]plan.Op{urn: {plan.OpUpdate}}, []step{{urn, plan.OpCreateReplacement}}, 0, true, ""},
		{"planned create never taken", map[resource.URN][]plan.Op{urn: {plan.OpSame}, other: {plan.OpCreate}},
			[]step{{urn, plan.OpSame}}, -1, false, string(other)},
		{"planned delete of a resource already gone", map[resource.URN][]plan.Op{other: {plan.OpDelete}}, nil, -1, false, ""},
		{"planned delete not taken", map[resource.URN][]plan.Op{other: {plan.OpDelete}}, nil, -1, true, string(other)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := &plan.Plan{Resources: map[resource.URN]*plan.Resource{}}
			for u, ops := range tt.planned {
				p.Resources[u] = &plan.Resource{Ops: ops}
			}
			c := plan.NewChecker(p)
			refused := -1
			for i, s := range tt.steps {
				if err := c.Step(s.urn, s.op); err != nil {
					refused = i
					break
				}
			}
			if refused != tt.refused {
				t.Fatalf("refused step %d, want %d", refused, tt.refused)
			}
			if refused >= 0 {
				return
			}
			err := c.Done(func(resource.URN) bool { return tt.recorded })
			var v *plan.ViolationError
			switch {
			case tt.done == "" && err != nil:
				t.Fatalf("Done: %v, want nil", err)
			case tt.done != "" && (!errors.As(err, &v) || string(v.URN) != tt.done || !v.NotTaken):
				t.Fatalf("Done: %v, want a step of %s not taken", err, tt.done)
			}
			if p.Resources[urn] != nil && len(tt.planned[urn]) != len(p.Resources[urn].Ops) {
				t.Errorf("the checker changed the plan")
			}
		})
	}
}

func TestMarshalRoundTrip(t *testing.T) {
	ctx := context.Background()
	mgr, err := secrets.NewPassphrase("plan test", secrets.WithIterations(1000))
	if err != nil {
		t.Fatal(err)
	}
	dep := resource.URN("urn:pulumi:dev::site::test:index:Thing::dep")
	p := &plan.Plan{Project: "site", Stack: "dev", Resources: map[resource.URN]*plan.Resource{
		urn: {Ops: []plan.Op{plan.OpCreateReplacement, plan.OpReplace, plan.OpDeleteReplaced}, Goal: &plan.Goal{
			Custom: true, Parent: dep, Provider: "urn:pulumi:dev::site::pulumi:providers:test::default::p1", Protect: true,
			DeleteBeforeReplace: true, RetainOnDelete: true, DeletedWith: dep, ImportID: "i-1",
			IgnoreChanges: []string{"x"}, ReplaceOnChanges: []string{"y"}, AdditionalSecretOutputs: []resource.PropertyKey{"z"},
			Dependencies: []resource.URN{dep}, PropertyDependencies: map[resource.PropertyKey][]resource.URN{"a": {dep}},
			Aliases:        []resource.Alias{{Name: "old"}, {URN: dep}},
			CustomTimeouts: resource.CustomTimeouts{Create: time.Minute, Delete: 90 * time.Second},
			Inputs: plan.Diff{Adds: props("a", unknown, "pw", resource.NewSecret(resource.NewString("hunter2"))),
				Updates: props("n", 2.5), Deletes: []resource.PropertyKey{"gone"}},
			Outputs: plan.Diff{Adds: props("url", "http://x")},
		}},
		dep: {Ops: []plan.Op{plan.OpDelete}},
	}}
	data, err := plan.Marshal(ctx, p, mgr)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(data, []byte("hunter2")) {
		t.Fatalf("the plan holds a secret in plaintext:\n%s", data)
	}
	opened := 0
	got, err := plan.Unmarshal(ctx, data, func(ctx context.Context, rec *state.SecretsState) (secrets.Manager, error) {
		opened++
		if rec.Type != mgr.Type() {
			t.Errorf("recorded manager type %q, want %q", rec.Type, mgr.Type())
		}
		return secrets.OpenPassphrase("plan test", rec.State)
	})
	if err != nil {
		t.Fatal(err)
	}
	if opened != 1 {
		t.Errorf("the secrets manager was opened %d times, want once", opened)
	}
	if diff := cmp.Diff(p, got, cmp.Comparer(func(a, b resource.PropertyValue) bool { return a.DeepEquals(b) })); diff != "" {
		t.Errorf("plan after a round trip (-want +got):\n%s", diff)
	}

	t.Run("a newer format is refused", func(t *testing.T) {
		_, err := plan.Unmarshal(ctx, []byte(`{"version":99}`), nil)
		var fe *plan.FormatVersionError
		if !errors.As(err, &fe) || fe.Version != 99 {
			t.Fatalf("err = %v, want a FormatVersionError", err)
		}
	})
	t.Run("a secret needs a manager", func(t *testing.T) {
		if _, err := plan.Marshal(ctx, p, nil); !errors.Is(err, state.ErrNoSecretsManager) {
			t.Fatalf("err = %v, want ErrNoSecretsManager", err)
		}
	})
}
