package reliability_test

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/groundwork-iac/groundwork/dag"
	"github.com/groundwork-iac/groundwork/engine"
	"github.com/groundwork-iac/groundwork/resource"
)

// TestStress deploys GROUNDWORK_STRESS_RESOURCES resources (default
// 5,000; a fifth of them roots, the others each taking the ID of an
// earlier one) with unbounded parallelism and continue-on-error, against a
// provider whose creates fail 5% of the time. Every success must be
// recorded, every failure reported (and only the resources that depend on
// a failure left out), the state must load, and the next run must finish
// the job: create exactly what is missing, and nothing twice. Then the
// same with every resource updated and one in ten deleted, 5% of those
// calls failing.
func TestStress(t *testing.T) {
	n := envInt(t, "GROUNDWORK_STRESS_RESOURCES", 5000)
	if testing.Short() {
		n = 500
	}
	r := rand.New(rand.NewPCG(uint64(n), 42))
	parent := make([]int, n)
	fail := map[string]failMode{}
	for i := range n {
		parent[i] = -1
		if i >= n/5 {
			parent[i] = r.IntN(i)
		}
		if r.IntN(100) < 5 {
			fail[fmt.Sprintf("create r%d", i)] = failPlain
		}
	}
	program := func(ctx *engine.Context) error {
		hs := make([]*engine.Resource, n)
		for i := range n {
			props := engine.Props{"n": i}
			if parent[i] >= 0 {
				props["ref"] = hs[parent[i]].ID()
			}
			hs[i] = ctx.Register(thing, fmt.Sprintf("r%d", i), props)
		}
		return nil
	}
	c := newCloud()
	c.Fail(fail)
	env := newEnv(t, c)
	start := time.Now()
	out := bounded(t, 2*time.Minute, "the first Up", func() upResult {
		res, err := env.Up(program, engine.ContinueOnError())
		return upResult{res, err}
	})
	t.Logf("first Up of %d resources (%d creates failing) took %v", n, len(fail), time.Since(start))
	if out.err == nil {
		t.Fatal("the first Up reported no error, though creates failed")
	}

	// Which resources cannot exist: a failed one, and everything that
	// needs one.
	doomed := make([]bool, n)
	wantFailed := 0 // failures whose create was reached
	for i := range n {
		_, failed := fail[fmt.Sprintf("create r%d", i)]
		blocked := parent[i] >= 0 && doomed[parent[i]]
		doomed[i] = failed || blocked
		if failed && !blocked {
			wantFailed++
		}
	}
	var failedSteps, skippedSteps, created int
	for _, s := range out.res.Steps {
		if s.URN.Type() != thing {
			continue
		}
		var skip *dag.SkippedError
		var dep *engine.DependencyError
		switch {
		case s.Err == nil && s.Op == engine.StepCreate:
			created++
		case errors.As(s.Err, &skip) || errors.As(s.Err, &dep):
			skippedSteps++
		case s.Err != nil:
			failedSteps++
			if _, ok := fail["create "+s.URN.Name()]; !ok {
				t.Errorf("%s failed without an injected failure: %v", s.URN.Name(), s.Err)
			}
		}
	}
	if failedSteps != wantFailed {
		t.Errorf("%d steps failed, want %d (one per injected failure reached)", failedSteps, wantFailed)
	}
	wantLive := 0
	for i := range n {
		if !doomed[i] {
			wantLive++
		}
	}
	// Every success is recorded, with what the world holds.
	snap := env.Snapshot()
	recorded := map[resource.ID]*resource.State{}
	for _, rs := range snap.Resources {
		if rs.Type == thing {
			recorded[rs.ID] = rs
		}
	}
	live := c.Live()
	if len(live) != wantLive || created != wantLive || len(recorded) != wantLive {
		t.Errorf("%d resources exist, %d creates succeeded, %d are recorded; want %d of each", len(live), created, len(recorded), wantLive)
	}
	for id, ph := range live {
		if rs := recorded[id]; rs == nil || !rs.Inputs.DeepEquals(ph.Inputs) {
			t.Errorf("%s (%s) exists but is not recorded as it is", id, ph.URN.Name())
		}
	}
	t.Logf("%d created, %d failed, %d skipped, %d not registered (they need a failed one)", created, failedSteps, skippedSteps, n-created-failedSteps-skippedSteps)

	// The next run, with a healthy provider, finishes the job.
	c.Fail(nil)
	start = time.Now()
	out = bounded(t, 2*time.Minute, "the second Up", func() upResult {
		res, err := env.Up(program, engine.ContinueOnError())
		return upResult{res, err}
	})
	t.Logf("second Up took %v", time.Since(start))
	if out.err != nil {
		t.Fatalf("the second Up: %v", out.err)
	}
	creates := 0
	for _, s := range out.res.Steps {
		if s.URN.Type() == thing && s.Op != engine.StepSame {
			if s.Op != engine.StepCreate {
				t.Errorf("the second Up did %s %s; want only the missing creates", s.Op, s.URN.Name())
			}
			creates++
		}
	}
	if creates != n-wantLive {
		t.Errorf("the second Up created %d resources, want the %d missing", creates, n-wantLive)
	}
	if live := len(c.Live()); live != n {
		t.Errorf("%d resources exist after the second Up, want %d", live, n)
	}
	if got := len(env.Snapshot().Resources); got != n+2 { // the stack, its default provider, n things
		t.Errorf("%d records after the second Up, want %d", got, n+2)
	}

	// Then the same with updates and deletes: every resource changes,
	// the leaves of one in ten go, and 5% of the calls fail.
	keep := make([]bool, n)
	hasChild := make([]bool, n)
	for i := range n {
		if parent[i] >= 0 {
			hasChild[parent[i]] = true
		}
	}
	fail = map[string]failMode{}
	for i := range n {
		keep[i] = hasChild[i] || r.IntN(10) != 0
		op := "update"
		if !keep[i] {
			op = "delete"
		}
		if r.IntN(100) < 5 {
			fail[fmt.Sprintf("%s r%d", op, i)] = failPlain
		}
	}
	changed := func(ctx *engine.Context) error {
		hs := make([]*engine.Resource, n)
		for i := range n {
			if !keep[i] {
				continue
			}
			props := engine.Props{"n": i + n}
			if parent[i] >= 0 {
				props["ref"] = hs[parent[i]].ID()
			}
			hs[i] = ctx.Register(thing, fmt.Sprintf("r%d", i), props)
		}
		return nil
	}
	c.Fail(fail)
	out = bounded(t, 2*time.Minute, "the third Up", func() upResult {
		res, err := env.Up(changed, engine.ContinueOnError())
		return upResult{res, err}
	})
	if out.err == nil {
		t.Fatal("the third Up reported no error, though updates and deletes failed")
	}
	// Updates run parents first: a failed update stops its descendants
	// from registering. Deletes do not run once something failed (a
	// resource whose registration failed must not be taken for one the
	// program dropped); the next run does them.
	failedSteps, wantFailed = 0, 0
	blocked := make([]bool, n)
	for i := range n {
		if !keep[i] {
			continue
		}
		_, failed := fail[fmt.Sprintf("update r%d", i)]
		up := parent[i] >= 0 && blocked[parent[i]]
		blocked[i] = failed || up
		if failed && !up {
			wantFailed++
		}
	}
	for _, s := range out.res.Steps {
		if s.URN.Type() == thing && s.Err != nil {
			failedSteps++
		}
	}
	if failedSteps != wantFailed {
		t.Errorf("%d steps failed in the third Up, want %d", failedSteps, wantFailed)
	}
	updated := out.res.Counts[engine.StepUpdate]
	checkRecordedAsIs(t, env.Snapshot().Resources, c.Live())
	// The fourth Up finishes the updates and runs the deletes, of which
	// the ones set to fail do; the fifth finishes the job.
	deleteFails := map[string]failMode{}
	for k, v := range fail {
		if strings.HasPrefix(k, "delete ") {
			deleteFails[k] = v
		}
	}
	c.Fail(deleteFails)
	out = bounded(t, 2*time.Minute, "the fourth Up", func() upResult {
		res, err := env.Up(changed, engine.ContinueOnError())
		return upResult{res, err}
	})
	failedSteps = 0
	for _, s := range out.res.Steps {
		if s.URN.Type() == thing && s.Err != nil {
			failedSteps++
		}
	}
	if (out.err == nil) != (len(deleteFails) == 0) || failedSteps != len(deleteFails) {
		t.Errorf("the fourth Up: %d steps failed, want %d; err = %v", failedSteps, len(deleteFails), out.err)
	}
	updated += out.res.Counts[engine.StepUpdate]
	deleted := out.res.Counts[engine.StepDelete]
	checkRecordedAsIs(t, env.Snapshot().Resources, c.Live())
	c.Fail(nil)
	out = bounded(t, 2*time.Minute, "the fifth Up", func() upResult {
		res, err := env.Up(changed, engine.ContinueOnError())
		return upResult{res, err}
	})
	if out.err != nil {
		t.Fatalf("the fifth Up: %v", out.err)
	}
	live = c.Live()
	checkRecordedAsIs(t, env.Snapshot().Resources, live)
	kept := 0
	for i := range n {
		if keep[i] {
			kept++
		}
	}
	if len(live) != kept {
		t.Errorf("%d resources exist after the fourth Up, want %d", len(live), kept)
	}
	if u, d := out.res.Counts[engine.StepUpdate], out.res.Counts[engine.StepDelete]; u != kept-updated || d != n-kept-deleted {
		t.Errorf("the fifth Up made %d updates and %d deletes; want the %d and %d left to do", u, d, kept-updated, n-kept-deleted)
	}
	checkNoLeaks(t)
}

// checkRecordedAsIs checks that the records of things and the world agree
// exactly: nothing forgotten, nothing that does not exist, same inputs.
func checkRecordedAsIs(t *testing.T, records []*resource.State, live map[resource.ID]phys) {
	t.Helper()
	seen := 0
	for _, rs := range records {
		if rs.Type != thing {
			continue
		}
		seen++
		if ph, ok := live[rs.ID]; !ok || !ph.Inputs.DeepEquals(rs.Inputs) {
			t.Errorf("%s is recorded with %v but the world holds %v (exists: %v)", rs.URN.Name(), rs.Inputs, ph.Inputs, ok)
		}
	}
	if seen != len(live) {
		t.Errorf("%d things are recorded but %d exist", seen, len(live))
	}
}
