package engine_test

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/groundwork-iac/groundwork/display"
	"github.com/groundwork-iac/groundwork/engine"
	"github.com/groundwork-iac/groundwork/enginetest"
	"github.com/groundwork-iac/groundwork/providers"
	"github.com/groundwork-iac/groundwork/resource"
)

// auditSecret is the plaintext of the secret input of TestErrorAudit's
// resources; a provider that fails quotes it back.
const auditSecret = "s3cr3t-pl4intext"

// TestErrorAudit provokes, through the public API, each class of error an
// operation returns and reports, and checks what every message a user
// reads of it (the operation's error, each event's message, the plain
// display) says: the failing resource by its URN or its name, no internal
// package's name, no clause twice, no secret's plaintext; and that the
// error reaches its cause and typed error with errors.Is and errors.As.
func TestErrorAudit(t *testing.T) {
	errOwn := errors.New("web needs a size")
	errConfig := errors.New(`missing required configuration key "test:region"; set it with gw config set test:region <value>`)
	tests := []struct {
		name string
		run  func(t *testing.T) (*enginetest.Env, error)
		// names is what the messages name the failing resource by: its
		// name (web unless set); the URN, or the type and name, counts.
		names string
		is    error
		as    func(error) bool
	}{
		{name: "a provider's create error", is: errQuota,
			run: func(t *testing.T) (*enginetest.Env, error) {
				env := enginetest.New(t)
				env.Provider("test", "", failing("create"))
				_, err := env.Up(sized(1))
				return env, err
			}},
		{name: "a provider's update error", is: errQuota,
			run: func(t *testing.T) (*enginetest.Env, error) {
				env := deployed(t, failing("update"))
				_, err := env.Up(sized(2))
				return env, err
			}},
		{name: "a provider's delete error", is: errQuota,
			run: func(t *testing.T) (*enginetest.Env, error) {
				env := deployed(t, failing("delete"))
				_, err := env.Destroy()
				return env, err
			}},
		{name: "a check failure",
			as: func(err error) bool { var e *engine.CheckFailedError; return errors.As(err, &e) },
			run: func(t *testing.T) (*enginetest.Env, error) {
				env := enginetest.New(t)
				env.Provider("test", "", failing("checkfail"))
				_, err := env.Up(sized(1))
				return env, err
			}},
		{name: "a check failure in a preview",
			as: func(err error) bool { var e *engine.CheckFailedError; return errors.As(err, &e) },
			run: func(t *testing.T) (*enginetest.Env, error) {
				env := enginetest.New(t)
				env.Provider("test", "", failing("checkfail"))
				_, err := env.Preview(sized(1))
				return env, err
			}},
		{name: "a provider's read error in a refresh", is: errQuota,
			run: func(t *testing.T) (*enginetest.Env, error) {
				env := deployed(t, failing("read"))
				_, err := env.Engine().Refresh(context.Background())
				return env, err
			}},
		{name: "a diff error", is: errQuota,
			run: func(t *testing.T) (*enginetest.Env, error) {
				env := deployed(t, failing("diff"))
				_, err := env.Up(sized(2))
				return env, err
			}},
		{name: "a program panic in a resource's Apply",
			as: func(err error) bool { var e *engine.PanicError; return errors.As(err, &e) },
			run: func(t *testing.T) (*enginetest.Env, error) {
				env := enginetest.New(t)
				env.Provider("test", "", failing(""))
				_, err := env.Up(func(ctx *engine.Context) error {
					r := ctx.Register(thing, "web", engine.Props{})
					engine.Apply(r.ID(), func(resource.ID) int { panic("no size") })
					return nil
				})
				return env, err
			}},
		{name: "a program panic naming a resource",
			as: func(err error) bool { var e *engine.PanicError; return errors.As(err, &e) },
			run: func(t *testing.T) (*enginetest.Env, error) {
				env := enginetest.New(t)
				env.Provider("test", "", failing(""))
				_, err := env.Up(func(ctx *engine.Context) error {
					ctx.Register(thing, "web", engine.Props{})
					panic("web has no size")
				})
				return env, err
			}},
		{name: "a program returning an error", is: errOwn,
			run: func(t *testing.T) (*enginetest.Env, error) {
				env := enginetest.New(t)
				env.Provider("test", "", failing(""))
				_, err := env.Up(func(ctx *engine.Context) error {
					ctx.Register(thing, "web", engine.Props{})
					return errOwn
				})
				return env, err
			}},
		{name: "an unknown provider", names: "default",
			as: func(err error) bool {
				var e *providers.NoFactoryError
				return errors.As(err, &e) && e.Package == "nope"
			},
			run: func(t *testing.T) (*enginetest.Env, error) {
				env := enginetest.New(t)
				_, err := env.Up(func(ctx *engine.Context) error {
					ctx.Register("nope:index:Thing", "web", engine.Props{})
					return nil
				})
				return env, err
			}},
		{name: "a duplicate URN",
			as: func(err error) bool { var e *engine.DuplicateURNError; return errors.As(err, &e) },
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
		{name: "missing provider configuration", names: "default", is: errConfig,
			run: func(t *testing.T) (*enginetest.Env, error) {
				env := enginetest.New(t)
				p := failing("")
				p.ConfigureF = func(context.Context, providers.ConfigureRequest) (providers.ConfigureResponse, error) {
					return providers.ConfigureResponse{}, errConfig
				}
				env.Provider("test", "", p)
				_, err := env.Up(sized(1))
				return env, err
			}},
		{name: "a dependency on a resource of another operation",
			as: func(err error) bool { var e *engine.ArgumentError; return errors.As(err, &e) },
			run: func(t *testing.T) (*enginetest.Env, error) {
				var stale *engine.Resource
				first := enginetest.New(t)
				first.Provider("test", "", failing(""))
				if _, err := first.Up(func(ctx *engine.Context) error {
					stale = ctx.Register(thing, "old", engine.Props{})
					return nil
				}); err != nil {
					t.Fatal(err)
				}
				env := enginetest.New(t)
				env.Provider("test", "", failing(""))
				_, err := env.Up(func(ctx *engine.Context) error {
					ctx.Register(thing, "web", engine.Props{}, engine.DependsOn(stale))
					return nil
				})
				return env, err
			}},
		{name: "a dependency on a zero Resource",
			as: func(err error) bool { var e *engine.ArgumentError; return errors.As(err, &e) },
			run: func(t *testing.T) (*enginetest.Env, error) {
				env := enginetest.New(t)
				env.Provider("test", "", failing(""))
				ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
				defer cancel()
				_, err := env.Engine().Up(ctx, func(ctx *engine.Context) error {
					ctx.Register(thing, "web", engine.Props{}, engine.DependsOn(&engine.Resource{}))
					return nil
				})
				if ctx.Err() != nil {
					t.Fatalf("the update did not end before its deadline: %v", err)
				}
				return env, err
			}},
		{name: "a cancelled operation",
			as: func(err error) bool { var e *engine.CancelledError; return errors.As(err, &e) && len(e.Pending) == 1 },
			run: func(t *testing.T) (*enginetest.Env, error) {
				env := enginetest.New(t)
				ctx, cancel := context.WithCancelCause(context.Background())
				defer cancel(nil)
				release := make(chan struct{})
				t.Cleanup(func() { close(release) })
				p := failing("")
				p.CreateF = func(context.Context, providers.CreateRequest) (providers.CreateResponse, error) {
					cancel(errors.New("interrupted"))
					<-release
					return providers.CreateResponse{ID: "id-1"}, nil
				}
				env.Provider("test", "", p)
				_, err := env.Engine().Up(ctx, sized(1), engine.GracePeriod(50*time.Millisecond))
				return env, err
			}},
		{name: "a provider error quoting a secret input",
			run: func(t *testing.T) (*enginetest.Env, error) {
				env := enginetest.New(t)
				p := failing("")
				p.CreateF = func(_ context.Context, req providers.CreateRequest) (providers.CreateResponse, error) {
					return providers.CreateResponse{}, fmt.Errorf("password %q rejected", plainText(req.Inputs["password"]))
				}
				env.Provider("test", "", p)
				_, err := env.Up(func(ctx *engine.Context) error {
					ctx.Register(thing, "web", engine.Props{"password": resource.NewSecret(resource.NewString(auditSecret))})
					return nil
				})
				return env, err
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env, err := tt.run(t)
			if err == nil {
				t.Fatal("the operation succeeded")
			}
			if tt.is != nil && !errors.Is(err, tt.is) {
				t.Errorf("errors.Is(err, %v) = false; err = %v", tt.is, err)
			}
			if tt.as != nil && !tt.as(err) {
				t.Errorf("errors.As does not find the typed error in %#v", err)
			}
			name := tt.names
			if name == "" {
				name = "web"
			}
			auditText(t, "the error", err.Error(), name, true)
			var b strings.Builder
			r := display.New(&b, display.Options{Mode: display.ModePlain, Color: display.ColorNever})
			for _, ev := range env.Events() {
				r.Event(ev)
				switch ev := ev.(type) {
				case engine.StepFailedEvent:
					auditText(t, "a StepFailedEvent's message", ev.Message, name, false)
				case engine.DiagnosticEvent:
					auditText(t, "a DiagnosticEvent's message", ev.Message, name, false)
				case engine.SummaryEvent:
					auditText(t, "the SummaryEvent's error", ev.Error, name, true)
				}
				if s := fmt.Sprintf("%+v", ev); strings.Contains(s, auditSecret) {
					t.Errorf("an event holds the secret's plaintext: %s", s)
				}
			}
			if err := r.Close(); err != nil {
				t.Fatal(err)
			}
			for _, line := range strings.Split(b.String(), "\n") {
				if strings.HasPrefix(line, "error: ") {
					auditText(t, "the display's line", line, name, true)
				}
				if strings.Contains(line, auditSecret) {
					t.Errorf("the display shows the secret's plaintext: %q", line)
				}
			}
		})
	}
}

// clauseSep splits a message into its clauses.
var clauseSep = regexp.MustCompile(`: |; |\n\s*(- )?|, `)

// auditText checks one message a user reads: it names the resource name
// (by its URN, by type and name, or by the name alone) when named is
// set, names no internal package, says no clause twice, and holds no
// secret's plaintext.
func auditText(t *testing.T, what, msg, name string, named bool) {
	t.Helper()
	if named && !strings.Contains(msg, name) {
		t.Errorf("%s does not name %s: %q", what, name, msg)
	}
	for _, pkg := range append(internalNames, "deploy.", "dag", "stepgen") {
		if strings.Contains(msg, pkg) {
			t.Errorf("%s names %q: %q", what, pkg, msg)
		}
	}
	if strings.Contains(msg, auditSecret) {
		t.Errorf("%s holds the secret's plaintext: %q", what, msg)
	}
	seen := map[string]bool{}
	lastVerb := ""
	for _, c := range clauseSep.Split(msg, -1) {
		c = strings.TrimSpace(c)
		// A clause that opens with the word the one before it opened
		// with says again what that one did ("create failed: create
		// provider ...").
		verb, _, _ := strings.Cut(c, " ")
		if len(verb) > 3 && verb == lastVerb {
			t.Errorf("%s opens two clauses in a row with %q: %q", what, verb, msg)
		}
		lastVerb = verb
		if len(c) < 8 {
			continue
		}
		if seen[c] {
			t.Errorf("%s says %q twice: %q", what, c, msg)
		}
		seen[c] = true
	}
}
