package engine_test

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/groundwork-iac/groundwork/engine"
	"github.com/groundwork-iac/groundwork/enginetest"
)

// TestProgramErrorJoiningAStepFailure checks that a program returning a
// failed resource's error together with causes of its own fails the
// operation with each once: the step's failure as the step reports it,
// and the program's other causes, which are not dropped as an echo of
// the step's.
func TestProgramErrorJoiningAStepFailure(t *testing.T) {
	errOwn := errors.New("the program's own check failed")
	errMore := errors.New("and a second cause")
	tests := []struct {
		name string
		// ret is what the program returns, given what web's Wait
		// returned.
		ret func(waitErr error) error
		// own are the program's causes besides the step's failure.
		own []error
		// said is how many times the error says the step's failure: once,
		// unless the program wrapped it with other causes into one text,
		// which is kept whole (its other causes matter more).
		said int
	}{
		{name: "the failure alone", ret: func(w error) error { return w }},
		{name: "the failure joined alone", ret: func(w error) error { return errors.Join(w) }},
		{name: "joined with another cause", own: []error{errOwn},
			ret: func(w error) error { return errors.Join(w, errOwn) }},
		{name: "another cause joined first", own: []error{errOwn},
			ret: func(w error) error { return errors.Join(errOwn, w) }},
		{name: "joined and wrapped", own: []error{errOwn},
			ret: func(w error) error { return fmt.Errorf("deploying web: %w", errors.Join(w, errOwn)) }},
		{name: "nested joins", own: []error{errOwn, errMore},
			ret: func(w error) error { return errors.Join(errors.Join(w, errOwn), errMore) }},
		{name: "wrapped with another cause into one text", own: []error{errOwn}, said: 2,
			ret: func(w error) error { return fmt.Errorf("web: %w; also %w", w, errOwn) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := enginetest.New(t)
			env.Provider("test", "", failing("create"))
			res, err := env.Up(func(ctx *engine.Context) error {
				return tt.ret(ctx.Register(thing, "web", engine.Props{}).Wait())
			})
			if err == nil {
				t.Fatal("the update succeeded; want the create's failure")
			}
			msg := err.Error()
			said := max(tt.said, 1)
			if n := strings.Count(msg, errQuota.Error()); n != said {
				t.Errorf("the error says the step's failure %d times, want %d:\n%s", n, said, msg)
			}
			if !errors.Is(err, errQuota) {
				t.Errorf("errors.Is(err, errQuota) = false: %v", err)
			}
			for _, own := range tt.own {
				if n := strings.Count(msg, own.Error()); n != 1 {
					t.Errorf("the error says %q %d times, want once:\n%s", own, n, msg)
				}
				if !errors.Is(err, own) {
					t.Errorf("errors.Is(err, %q) = false: %v", own, err)
				}
			}
			if len(tt.own) == 0 && strings.Contains(msg, "the program failed") {
				t.Errorf("the error repeats the step's failure as the program's:\n%s", msg)
			}
			web := env.URN(thing, "web")
			if res == nil || !slices.ContainsFunc(res.Steps, func(s engine.StepRecord) bool {
				return s.URN == web && s.Op == engine.StepCreate && errors.Is(s.Err, errQuota)
			}) {
				t.Errorf("result = %+v; want web's failed create recorded", res)
			}
		})
	}
}
