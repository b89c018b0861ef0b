package engine_test

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/groundwork-iac/groundwork/engine"
)

// TestResultRecordsEveryStep checks that Result.Steps holds every step
// once, however many more steps an operation takes than its stack
// recorded resources: a first create (none recorded) and an update that
// adds as many resources again as it had.
func TestResultRecordsEveryStep(t *testing.T) {
	env := newEnv(t, newCloud())
	program := func(n int) engine.Program {
		return func(ctx *engine.Context) error {
			for i := range n {
				ctx.Register(thing, fmt.Sprintf("r%d", i), engine.Props{"size": i})
			}
			return nil
		}
	}
	for _, tc := range []struct {
		n            int
		create, same int
	}{
		{n: 2500, create: 2500},
		{n: 5000, create: 2500, same: 2500},
	} {
		res, err := env.Up(program(tc.n))
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]int{}
		seen := map[string]bool{}
		for _, s := range res.Steps {
			if s.URN.Type() != thing {
				continue
			}
			if seen[s.URN.Name()] {
				t.Errorf("%s has two steps", s.URN.Name())
			}
			seen[s.URN.Name()] = true
			got[string(s.Op)]++
		}
		want := map[string]int{string(engine.StepCreate): tc.create}
		if tc.same > 0 {
			want[string(engine.StepSame)] = tc.same
		}
		if d := cmp.Diff(want, got); d != "" {
			t.Errorf("up of %d resources: the steps recorded, by kind (-want +got):\n%s", tc.n, d)
		}
	}
}
