package enginetest

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/groundwork-iac/groundwork/engine"
	"github.com/groundwork-iac/groundwork/providers/providertest"
	"github.com/groundwork-iac/groundwork/resource"
	"github.com/groundwork-iac/groundwork/state"
)

// CheckTwoProjects runs, against store, two projects ("alpha" and "beta")
// that each deploy a stack named "dev": each one's Up, unchanged rerun
// and Destroy must leave the other's resources (in one shared cloud) and
// recorded state as they were, and a third project's stack references
// "organization/alpha/dev" and "organization/beta/dev" must read each
// one's own outputs. Every store runs it: the stack is (project, stack).
func CheckTwoProjects(t *testing.T, store state.Store) {
	t.Helper()
	cloud := providertest.NewMemory()
	env := func(project string) *Env {
		e := New(t)
		e.Project, e.Store = project, store
		e.Provider("mem", "", cloud.Provider())
		return e
	}
	program := func(project string, names ...string) engine.Program {
		return func(c *engine.Context) error {
			for _, n := range names {
				c.Register("mem:index:Thing", n, engine.Props{"name": project + "-" + n})
			}
			c.Export("owner", project)
			return nil
		}
	}
	alpha, beta := env("alpha"), env("beta")
	alphaProgram, betaProgram := program("alpha", "a1", "a2"), program("beta", "b1")
	up := func(e *Env, p engine.Program, wantChanges bool) {
		t.Helper()
		res, err := e.Up(p)
		if err != nil {
			t.Fatalf("%s: up: %v", e.StackID(), err)
		}
		if res.HasChanges() != wantChanges {
			t.Errorf("%s: up changed %v; want changes: %v", e.StackID(), res.Counts, wantChanges)
		}
		if n := res.Counts[engine.StepDelete]; n != 0 {
			t.Errorf("%s: up deleted %d resources; want none", e.StackID(), n)
		}
	}
	// unchanged fails t if e's stack no longer holds what it held.
	unchanged := func(e *Env, before *state.Snapshot) {
		t.Helper()
		if diff := cmp.Diff(resources(before), resources(e.Snapshot())); diff != "" {
			t.Errorf("%s changed when the other project ran (-before +after):\n%s", e.StackID(), diff)
		}
	}

	up(alpha, alphaProgram, true)
	alphaState := alpha.Snapshot()
	up(beta, betaProgram, true)
	unchanged(alpha, alphaState)
	if n := cloud.Count(); n != 3 {
		t.Fatalf("the cloud holds %d things after both projects' ups; want 3", n)
	}
	betaState := beta.Snapshot()
	up(alpha, alphaProgram, false)
	up(beta, betaProgram, false)
	unchanged(alpha, alphaState)
	unchanged(beta, betaState)

	// A stack reference names the project's stack.
	gamma := env("gamma")
	res, err := gamma.Up(func(c *engine.Context) error {
		for _, p := range []string{"alpha", "beta"} {
			ref := c.StackReference(p, "organization/"+p+"/dev")
			c.Export(p, engine.StackOutput(ref, "owner"))
		}
		return nil
	})
	if err != nil {
		t.Fatalf("gamma: up with stack references: %v", err)
	}
	if diff := cmp.Diff(resource.PropertyMap{"alpha": resource.NewString("alpha"), "beta": resource.NewString("beta")}, res.Outputs); diff != "" {
		t.Errorf("outputs read by stack reference (-want +got):\n%s", diff)
	}
	if _, err := gamma.Destroy(); err != nil {
		t.Fatal(err)
	}

	if _, err := beta.Destroy(); err != nil {
		t.Fatalf("beta: destroy: %v", err)
	}
	unchanged(alpha, alphaState)
	if n := cloud.Count(); n != 2 {
		t.Errorf("the cloud holds %d things after beta's destroy; want alpha's 2", n)
	}
	up(alpha, alphaProgram, false)
	if _, err := alpha.Destroy(); err != nil {
		t.Fatalf("alpha: destroy: %v", err)
	}
	if n := cloud.Count(); n != 0 {
		t.Errorf("the cloud holds %d things after both destroys; want none", n)
	}
	for _, id := range []state.StackID{alpha.StackID(), beta.StackID()} {
		if snap, err := store.Load(context.Background(), id); err != nil || len(snap.Resources) != 0 {
			t.Errorf("%s after its destroy: %v resources, %v", id, snap, err)
		}
	}
}

// resources returns the URNs, IDs and outputs of snap's resources.
func resources(snap *state.Snapshot) map[resource.URN]string {
	out := map[resource.URN]string{}
	for _, r := range snap.Resources {
		out[r.URN] = string(r.ID) + " " + r.Outputs.String()
	}
	return out
}
