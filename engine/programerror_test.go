package engine_test

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/groundwork-iac/groundwork/deploy"
	"github.com/groundwork-iac/groundwork/engine"
	"github.com/groundwork-iac/groundwork/enginetest"
)

// TestProgramErrorJoiningAStepFailure checks that a program returning a
// failed resource's error together with causes of its own fails the
// operation with each once: the step's failure as the step reports it,
// and the program's other causes, which are not dropped as an echo of
// the step's. A program error that wraps the failure with other causes
// into one text (fmt.Errorf with several %w) cannot read without it: it
// tells the failure, and the step's own listing is left out, its
// *deploy.StepError still found by errors.As.
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
		// db registers a second resource, whose create fails too and
		// which the program does not return.
		db bool
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
		{name: "wrapped with another cause into one text", own: []error{errOwn},
			ret: func(w error) error { return fmt.Errorf("web: %w; also %w", w, errOwn) }},
		{name: "wrapped into one text beside another failure", own: []error{errOwn}, db: true,
			ret: func(w error) error { return fmt.Errorf("web: %w; also %w", w, errOwn) }},
		{name: "joined beside another failure", own: []error{errOwn}, db: true,
			ret: func(w error) error { return errors.Join(w, errOwn) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := enginetest.New(t)
			env.Provider("test", "", failing("create"))
			res, err := env.Up(func(ctx *engine.Context) error {
				web := ctx.Register(thing, "web", engine.Props{})
				if tt.db {
					ctx.Register(thing, "db", engine.Props{})
				}
				return tt.ret(web.Wait())
			})
			if err == nil {
				t.Fatal("the update succeeded; want the create's failure")
			}
			msg := err.Error()
			said := 1
			if tt.db {
				said = 2
			}
			if n := strings.Count(msg, errQuota.Error()); n != said {
				t.Errorf("the error says the steps' failures %d times, want %d:\n%s", n, said, msg)
			}
			for _, name := range []string{"web", "db"}[:said] {
				urn := env.URN(thing, name)
				if n := strings.Count(msg, string(urn)); n != 1 {
					t.Errorf("the error names %s %d times, want once:\n%s", name, n, msg)
				}
				if !slices.ContainsFunc(stepErrors(err), func(se *deploy.StepError) bool { return se.URN == urn }) {
					t.Errorf("errors.As finds no *deploy.StepError for %s in %#v", name, err)
				}
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

// stepErrors returns every *deploy.StepError err wraps.
func stepErrors(err error) []*deploy.StepError {
	var out []*deploy.StepError
	var walk func(error)
	walk = func(err error) {
		if se, ok := err.(*deploy.StepError); ok {
			out = append(out, se)
		}
		switch u := err.(type) {
		case interface{ Unwrap() error }:
			if c := u.Unwrap(); c != nil {
				walk(c)
			}
		case interface{ Unwrap() []error }:
			for _, c := range u.Unwrap() {
				walk(c)
			}
		}
	}
	walk(err)
	return out
}
