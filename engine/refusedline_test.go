package engine_test

import (
	"strings"
	"testing"

	"github.com/groundwork-iac/groundwork/display"
	"github.com/groundwork-iac/groundwork/engine"
	"github.com/groundwork-iac/groundwork/enginetest"
)

// TestRegistrationFailureNamesItsResource: a resource whose registration
// fails before it has a step (its provider's Check rejects its inputs or
// fails, its Diff fails, the plan refuses it, its URN is taken), and one
// whose planned step the update did not take, is
// reported as it happens, as a failed step is, by an error
// DiagnosticEvent naming the resource (Pulumi's error diagnostic with the
// resource's URN); the display shows that line before the summary.
func TestRegistrationFailureNamesItsResource(t *testing.T) {
	tests := []struct {
		name string
		run  func(t *testing.T) (*enginetest.Env, error)
		say  string
		// typ and res name the resource reported, when it is not web.
		typ, res string
	}{
		{name: "a check with reasons", say: "size: too big",
			run: func(t *testing.T) (*enginetest.Env, error) {
				env := enginetest.New(t)
				env.Provider("test", "", failing("checkfail"))
				_, err := env.Up(sized(1))
				return env, err
			}},
		{name: "a check that fails", say: "quota exceeded",
			run: func(t *testing.T) (*enginetest.Env, error) {
				env := enginetest.New(t)
				env.Provider("test", "", failing("check"))
				_, err := env.Preview(sized(1))
				return env, err
			}},
		{name: "a diff that fails", say: "quota exceeded",
			run: func(t *testing.T) (*enginetest.Env, error) {
				env := deployed(t, failing("diff"))
				_, err := env.Up(sized(2))
				return env, err
			}},
		{name: "a plan refusal", say: "does not keep to the plan",
			run: func(t *testing.T) (*enginetest.Env, error) {
				env := deployed(t, failing(""))
				res, err := env.Preview(sized(2), engine.GeneratePlan())
				if err != nil {
					t.Fatal(err)
				}
				_, err = env.Up(sized(3), engine.UsePlan(res.Plan))
				return env, err
			}},
		{name: "a planned step not taken", say: "does not keep to the plan", typ: "pulumi:providers:test", res: "default",
			run: func(t *testing.T) (*enginetest.Env, error) {
				env := enginetest.New(t)
				env.Provider("test", "", failing(""))
				res, err := env.Preview(sized(1), engine.GeneratePlan())
				if err != nil {
					t.Fatal(err)
				}
				_, err = env.Up(func(*engine.Context) error { return nil }, engine.UsePlan(res.Plan))
				return env, err
			}},
		{name: "a URN registered twice", say: "registered twice",
			run: func(t *testing.T) (*enginetest.Env, error) {
				env := enginetest.New(t)
				env.Provider("test", "", failing(""))
				_, err := env.Up(func(ctx *engine.Context) error {
					ctx.Register(thing, "web", engine.Props{})
					ctx.Register(thing, "web", engine.Props{})
					return nil
				})
				return env, err
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env, err := tt.run(t)
			if err == nil || !strings.Contains(err.Error(), tt.say) {
				t.Fatalf("error = %v; want one saying %q", err, tt.say)
			}
			web := env.URN(thing, "web")
			if tt.typ != "" {
				web = env.URN(tt.typ, tt.res)
			}
			var b strings.Builder
			r := display.New(&b, display.Options{Mode: display.ModePlain, Color: display.ColorNever})
			n := 0
			for _, ev := range env.Events() {
				r.Event(ev)
				d, ok := ev.(engine.DiagnosticEvent)
				if !ok || d.Severity != engine.SeverityError {
					continue
				}
				n++
				if d.URN != web || !strings.Contains(d.Message, tt.say) {
					t.Errorf("error diagnostic %+v; want one about %s saying %q", d, web, tt.say)
				}
			}
			if n != 1 {
				t.Errorf("%d error diagnostics; want 1 about %s", n, web)
			}
			if err := r.Close(); err != nil {
				t.Fatal(err)
			}
			out, _, _ := strings.Cut(b.String(), "\nResources:")
			if !strings.Contains(out, "error: ") || !strings.Contains(out, tt.say) {
				t.Errorf("the display says nothing of %s before its summary:\n%s", web, b.String())
			}
		})
	}
}
