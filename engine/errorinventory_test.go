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
	"github.com/groundwork-iac/groundwork/plan"
	"github.com/groundwork-iac/groundwork/providers"
	"github.com/groundwork-iac/groundwork/resource"
)

var errQuota = errors.New("quota exceeded for thing")

// secretText is the plaintext of a secret input; a provider that fails
// quotes it back, and no message may show it.
const secretText = "s3cr3t-pl4intext"

// failing is a provider whose method fail ("check", "checkfail" for a
// Check with reasons, "diff", "create", "update", "delete", "read") fails
// with errQuota.
func failing(fail string) *providers.Func {
	return &providers.Func{
		CheckF: func(_ context.Context, req providers.CheckRequest) (providers.CheckResponse, error) {
			switch fail {
			case "check":
				return providers.CheckResponse{}, errQuota
			case "checkfail":
				return providers.CheckResponse{Failures: []providers.CheckFailure{{Property: "size", Reason: "too big"}}}, nil
			}
			return providers.CheckResponse{Inputs: req.News}, nil
		},
		DiffF: func(_ context.Context, req providers.DiffRequest) (providers.DiffResponse, error) {
			if fail == "diff" {
				return providers.DiffResponse{}, errQuota
			}
			return providers.DiffInputs(req.OldInputs, req.NewInputs), nil
		},
		CreateF: func(_ context.Context, req providers.CreateRequest) (providers.CreateResponse, error) {
			if fail == "create" {
				return providers.CreateResponse{}, errQuota
			}
			return providers.CreateResponse{ID: "id-1", Outputs: req.Inputs}, nil
		},
		UpdateF: func(_ context.Context, req providers.UpdateRequest) (providers.UpdateResponse, error) {
			if fail == "update" {
				return providers.UpdateResponse{}, errQuota
			}
			return providers.UpdateResponse{Outputs: req.NewInputs}, nil
		},
		DeleteF: func(context.Context, providers.DeleteRequest) (providers.DeleteResponse, error) {
			if fail == "delete" {
				return providers.DeleteResponse{}, errQuota
			}
			return providers.DeleteResponse{}, nil
		},
		ReadF: func(_ context.Context, req providers.ReadRequest) (providers.ReadResponse, error) {
			if fail == "read" {
				return providers.ReadResponse{}, errQuota
			}
			return providers.ReadResponse{ID: req.ID, Inputs: req.Inputs, Outputs: req.State}, nil
		},
	}
}

// sized registers the resource web with the input size.
func sized(size int, opts ...engine.ResourceOption) engine.Program {
	return func(ctx *engine.Context) error {
		ctx.Register(thing, "web", engine.Props{"size": size}, opts...)
		return nil
	}
}

// deployed returns an Env whose stack holds web (size 1), deployed with
// a provider that works, and whose provider is now p.
func deployed(t *testing.T, p providers.Provider, opts ...engine.ResourceOption) *enginetest.Env {
	t.Helper()
	first := enginetest.New(t)
	first.Provider("test", "", failing(""))
	if _, err := first.Up(sized(1, opts...)); err != nil {
		t.Fatal(err)
	}
	env := enginetest.New(t)
	env.Store = first.Store
	env.Provider("test", "", p)
	return env
}

// internalNames are the names of the engine's packages, which no message
// for a user carries.
var internalNames = []string{"stepgen", "engine.", "deploy.", "dag", "providers.", "monitor.", "stepError", "*engine"}

// TestErrorInventory: every kind of failure a user meets through the
// public API names its resource once — by its URN or by its type and
// name, never both or twice — in the error the operation returns, in the
// events (StepFailedEvent, DiagnosticEvent, SummaryEvent) and in the plain
// display; it keeps its cause for errors.Is and errors.As; and no message
// names an internal package, says a clause twice or shows a secret's
// plaintext.
func TestErrorInventory(t *testing.T) {
	errOwn := errors.New("web needs a size")
	errConfig := errors.New(`missing required configuration key "test:region"; set it with gw config set test:region <value>`)
	tests := []struct {
		name string
		// run runs the failing operation on a fresh Env.
		run func(t *testing.T) (*enginetest.Env, error)
		// urn names the failing resource; "" for web.
		urn func(env *enginetest.Env) resource.URN
		// is is the cause errors.Is finds; as, the typed error errors.As
		// finds (both optional).
		is error
		as func(error) bool
		// say is what the operation's error says besides the resource.
		say []string
		// skipped names a resource whose step is skipped because web's
		// failed.
		skipped string
		// own is set when the error names the resource only in the
		// program's own words (its panic, its error), which need not
		// hold its URN: the error then need only hold its name.
		own bool
	}{
		{name: "a failed create", is: errQuota, say: []string{"create failed", "quota exceeded"},
			run: func(t *testing.T) (*enginetest.Env, error) {
				env := enginetest.New(t)
				env.Provider("test", "", failing("create"))
				_, err := env.Up(sized(1))
				return env, err
			}},
		{name: "a create that fails after the resource came to exist", say: []string{"partially failed", "failed to initialize: not ready"},
			as: func(err error) bool {
				var pe *engine.PartialError
				var ie *providers.InitError
				return errors.As(err, &pe) && errors.As(err, &ie)
			},
			run: func(t *testing.T) (*enginetest.Env, error) {
				env := enginetest.New(t)
				p := failing("")
				p.CreateF = func(context.Context, providers.CreateRequest) (providers.CreateResponse, error) {
					return providers.CreateResponse{}, &providers.InitError{ID: "id-1", Reasons: []string{"not ready"}}
				}
				env.Provider("test", "", p)
				_, err := env.Up(sized(1))
				return env, err
			}},
		{name: "a failed update", is: errQuota, say: []string{"update failed", "quota exceeded"},
			run: func(t *testing.T) (*enginetest.Env, error) {
				env := deployed(t, failing("update"))
				_, err := env.Up(sized(2))
				return env, err
			}},
		{name: "a failed delete", is: errQuota, say: []string{"delete", "failed", "quota exceeded"},
			run: func(t *testing.T) (*enginetest.Env, error) {
				env := deployed(t, failing("delete"))
				_, err := env.Destroy()
				return env, err
			}},
		{name: "a delete skipped after a failed delete", is: errQuota, say: []string{"delete", "failed", "quota exceeded"}, skipped: "base",
			run: func(t *testing.T) (*enginetest.Env, error) {
				first := enginetest.New(t)
				first.Provider("test", "", failing(""))
				if _, err := first.Up(func(ctx *engine.Context) error {
					ctx.Register(thing, "web", engine.Props{}, engine.DependsOn(ctx.Register(thing, "base", engine.Props{})))
					return nil
				}); err != nil {
					t.Fatal(err)
				}
				env := enginetest.New(t)
				env.Store = first.Store
				p := failing("")
				p.DeleteF = func(_ context.Context, req providers.DeleteRequest) (providers.DeleteResponse, error) {
					if req.URN.Name() == "web" {
						return providers.DeleteResponse{}, errQuota
					}
					return providers.DeleteResponse{}, nil
				}
				env.Provider("test", "", p)
				_, err := env.Destroy(engine.ContinueOnError())
				return env, err
			}},
		{name: "an import of a resource that does not exist", say: []string{"no physical resource", `"i-404"`},
			as: func(err error) bool { var e *engine.NotFoundError; return errors.As(err, &e) },
			run: func(t *testing.T) (*enginetest.Env, error) {
				env := enginetest.New(t)
				p := failing("")
				p.ReadF = func(context.Context, providers.ReadRequest) (providers.ReadResponse, error) {
					return providers.ReadResponse{}, nil
				}
				env.Provider("test", "", p)
				_, err := env.Engine().Import(context.Background(), []engine.ImportSpec{{Type: thing, Name: "web", ID: "i-404"}})
				return env, err
			}},
		{name: "a failed read in a refresh", is: errQuota, say: []string{"read failed", "quota exceeded"},
			run: func(t *testing.T) (*enginetest.Env, error) {
				env := deployed(t, failing("read"))
				_, err := env.Engine().Refresh(context.Background())
				return env, err
			}},
		{name: "a failed check", is: errQuota, say: []string{"checking", "quota exceeded"},
			run: func(t *testing.T) (*enginetest.Env, error) {
				env := enginetest.New(t)
				env.Provider("test", "", failing("check"))
				_, err := env.Up(sized(1))
				return env, err
			}},
		{name: "a check with reasons", say: []string{"invalid inputs", "size: too big"},
			as: func(err error) bool { var e *engine.CheckFailedError; return errors.As(err, &e) },
			run: func(t *testing.T) (*enginetest.Env, error) {
				env := enginetest.New(t)
				env.Provider("test", "", failing("checkfail"))
				_, err := env.Preview(sized(1))
				return env, err
			}},
		{name: "a failed diff", is: errQuota, say: []string{"diffing", "quota exceeded"},
			run: func(t *testing.T) (*enginetest.Env, error) {
				env := deployed(t, failing("diff"))
				_, err := env.Up(sized(2))
				return env, err
			}},
		{name: "a package with no provider", say: []string{"check provider", `no provider for package "nope"`},
			as: func(err error) bool {
				var e *providers.NoFactoryError
				return errors.As(err, &e) && e.Package == "nope"
			},
			urn: func(env *enginetest.Env) resource.URN { return env.URN("pulumi:providers:nope", "default") },
			run: func(t *testing.T) (*enginetest.Env, error) {
				env := enginetest.New(t)
				_, err := env.Up(func(ctx *engine.Context) error {
					ctx.Register("nope:index:Thing", "web", engine.Props{})
					return nil
				})
				return env, err
			}},
		{name: "the program returns what a failed resource told it", is: errQuota, say: []string{"create failed", "quota exceeded"},
			run: func(t *testing.T) (*enginetest.Env, error) {
				env := enginetest.New(t)
				env.Provider("test", "", failing("create"))
				_, err := env.Up(func(ctx *engine.Context) error {
					return ctx.Register(thing, "web", engine.Props{}).Wait()
				})
				return env, err
			}},
		{name: "an Apply function that fails", is: errQuota, say: []string{"Apply", "quota exceeded"},
			run: func(t *testing.T) (*enginetest.Env, error) {
				env := enginetest.New(t)
				env.Provider("test", "", failing(""))
				_, err := env.Up(func(ctx *engine.Context) error {
					r := ctx.Register(thing, "web", engine.Props{})
					engine.ApplyErr(r.ID(), func(resource.ID) (int, error) { return 0, errQuota })
					return nil
				})
				return env, err
			}},
		{name: "an Apply function that panics", say: []string{"Apply", "panicked: boom"},
			as: func(err error) bool { var e *engine.PanicError; return errors.As(err, &e) },
			run: func(t *testing.T) (*enginetest.Env, error) {
				env := enginetest.New(t)
				env.Provider("test", "", failing(""))
				_, err := env.Up(func(ctx *engine.Context) error {
					r := ctx.Register(thing, "web", engine.Props{})
					engine.Apply(r.ID(), func(resource.ID) int { panic("boom") })
					return nil
				})
				return env, err
			}},
		{name: "a refused plan", say: []string{"does not keep to the plan", "preview again"},
			as: func(err error) bool { var e *plan.ViolationError; return errors.As(err, &e) },
			run: func(t *testing.T) (*enginetest.Env, error) {
				env := deployed(t, failing(""))
				res, err := env.Preview(sized(2), engine.GeneratePlan())
				if err != nil {
					t.Fatal(err)
				}
				_, err = env.Up(sized(3), engine.UsePlan(res.Plan))
				return env, err
			}},
		{name: "a protected resource", say: []string{"protected", "cannot be deleted"},
			as: func(err error) bool { var e *engine.ProtectedError; return errors.As(err, &e) },
			run: func(t *testing.T) (*enginetest.Env, error) {
				env := deployed(t, failing(""), engine.Protect())
				_, err := env.Destroy()
				return env, err
			}},
		{name: "a change an operation that expects none would make", say: []string{"would update", "expects no changes"},
			as: func(err error) bool { var e *engine.ChangesError; return errors.As(err, &e) },
			run: func(t *testing.T) (*enginetest.Env, error) {
				env := deployed(t, failing(""))
				_, err := env.Up(sized(2), engine.ExpectNoChanges())
				return env, err
			}},
		{name: "a failed hook", is: errQuota, say: []string{`beforeCreate hook "h" failed`, "quota exceeded"},
			as: func(err error) bool { var e *engine.HookError; return errors.As(err, &e) },
			run: func(t *testing.T) (*enginetest.Env, error) {
				env := enginetest.New(t)
				env.Provider("test", "", failing(""))
				h := &engine.Hook{Name: "h", Run: func(context.Context, resource.HookArgs) error { return errQuota }}
				_, err := env.Up(sized(1, engine.ResourceHooks(resource.HookBeforeCreate, h)))
				return env, err
			}},
		{name: "a create past its custom timeout", say: []string{"create failed", "custom timeout of 50ms", "pending operation"},
			as: func(err error) bool {
				var e *engine.UnansweredError
				var te *engine.TimeoutError
				return errors.As(err, &e) && errors.As(err, &te) && errors.Is(err, context.DeadlineExceeded)
			},
			run: func(t *testing.T) (*enginetest.Env, error) {
				env := enginetest.New(t)
				p := failing("")
				p.CreateF = func(ctx context.Context, _ providers.CreateRequest) (providers.CreateResponse, error) {
					<-ctx.Done()
					return providers.CreateResponse{}, ctx.Err()
				}
				env.Provider("test", "", p)
				_, err := env.Up(sized(1, engine.CustomTimeouts(resource.CustomTimeouts{Create: 50 * time.Millisecond})),
					engine.GracePeriod(50*time.Millisecond))
				return env, err
			}},
		{name: "a create unanswered after a cancel", say: []string{"cancelled (interrupted)", "pending operation"},
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
					<-release // answers only once the test is over
					return providers.CreateResponse{ID: "id-1"}, nil
				}
				env.Provider("test", "", p)
				_, err := env.Engine().Up(ctx, sized(1), engine.GracePeriod(50*time.Millisecond))
				return env, err
			}},
		{name: "a check with reasons in an update", say: []string{"invalid inputs", "size: too big"},
			as: func(err error) bool { var e *engine.CheckFailedError; return errors.As(err, &e) },
			run: func(t *testing.T) (*enginetest.Env, error) {
				env := enginetest.New(t)
				env.Provider("test", "", failing("checkfail"))
				_, err := env.Up(sized(1))
				return env, err
			}},
		{name: "a program panic naming a resource", own: true, say: []string{"web has no size"},
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
		{name: "a program returning an error", own: true, is: errOwn,
			run: func(t *testing.T) (*enginetest.Env, error) {
				env := enginetest.New(t)
				env.Provider("test", "", failing(""))
				_, err := env.Up(func(ctx *engine.Context) error {
					ctx.Register(thing, "web", engine.Props{})
					return errOwn
				})
				return env, err
			}},
		{name: "a duplicate URN", say: []string{"registered twice"},
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
		{name: "missing provider configuration", is: errConfig,
			urn: func(env *enginetest.Env) resource.URN { return env.URN("pulumi:providers:test", "default") },
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
				_, err := env.Up(sized(1, engine.DependsOn(stale)))
				return env, err
			}},
		{name: "a dependency on a zero Resource",
			as: func(err error) bool { var e *engine.ArgumentError; return errors.As(err, &e) },
			run: func(t *testing.T) (*enginetest.Env, error) {
				env := enginetest.New(t)
				env.Provider("test", "", failing(""))
				ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
				defer cancel()
				_, err := env.Engine().Up(ctx, sized(1, engine.DependsOn(&engine.Resource{})))
				if ctx.Err() != nil {
					t.Fatalf("the update did not end before its deadline: %v", err)
				}
				return env, err
			}},
		{name: "a provider error quoting a secret input", say: []string{"create failed", "rejected"},
			run: func(t *testing.T) (*enginetest.Env, error) {
				env := enginetest.New(t)
				p := failing("")
				p.CreateF = func(_ context.Context, req providers.CreateRequest) (providers.CreateResponse, error) {
					return providers.CreateResponse{}, fmt.Errorf("password %q rejected", plainText(req.Inputs["password"]))
				}
				env.Provider("test", "", p)
				_, err := env.Up(func(ctx *engine.Context) error {
					ctx.Register(thing, "web", engine.Props{"password": resource.NewSecret(resource.NewString(secretText))})
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
			urn := env.URN(thing, "web")
			if tt.urn != nil {
				urn = tt.urn(env)
			}
			if tt.is != nil && !errors.Is(err, tt.is) {
				t.Errorf("errors.Is(err, %v) = false; err = %v", tt.is, err)
			}
			if tt.as != nil && !tt.as(err) {
				t.Errorf("errors.As does not find the typed error in %#v", err)
			}
			for _, w := range tt.say {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error = %q; want it to say %q", err, w)
				}
			}
			if tt.own {
				if !strings.Contains(err.Error(), urn.Name()) {
					t.Errorf("the error does not name %s: %q", urn.Name(), err)
				}
				checkText(t, "the error", err.Error(), urn, 0)
			} else {
				checkText(t, "the error", err.Error(), urn, 1)
			}
			var b strings.Builder
			r := display.New(&b, display.Options{Mode: display.ModePlain, Color: display.ColorNever})
			summarized, sawSkip := false, false
			for _, ev := range env.Events() {
				r.Event(ev)
				switch ev := ev.(type) {
				case engine.StepFailedEvent:
					switch {
					case ev.Skipped && tt.skipped != "":
						if ev.URN.Name() == tt.skipped {
							sawSkip = true
						}
						checkText(t, "the skipped StepFailedEvent's message", ev.Message, ev.URN, 0)
						if strings.Contains(ev.Message, errQuota.Error()) {
							t.Errorf("the skipped step's message repeats the failure it waited for: %q", ev.Message)
						}
					case ev.URN != urn:
						t.Errorf("a step of %s failed: %s", ev.URN, ev.Message)
					}
					checkText(t, "the StepFailedEvent's message", ev.Message, urn, 0)
				case engine.DiagnosticEvent:
					checkText(t, "a DiagnosticEvent's message", ev.Message, urn, 0)
				case engine.SummaryEvent:
					summarized = true
					if ev.Error != err.Error() {
						t.Errorf("SummaryEvent.Error = %q; want the operation's error %q", ev.Error, err)
					}
				}
				if s := fmt.Sprintf("%+v", ev); strings.Contains(s, secretText) {
					t.Errorf("an event holds the secret's plaintext: %s", s)
				}
			}
			if err := r.Close(); err != nil {
				t.Fatal(err)
			}
			if !summarized {
				t.Error("no SummaryEvent")
			}
			if tt.skipped != "" && !sawSkip {
				t.Errorf("no skipped step of %s", tt.skipped)
			}
			skipLine := false
			for _, line := range strings.Split(b.String(), "\n") {
				switch {
				case tt.own && strings.HasPrefix(line, "error: ") && !strings.Contains(line, urn.Name()):
					t.Errorf("the display's line does not name %s: %q", urn.Name(), line)
				case !tt.own && (strings.Contains(line, "failed") && !strings.HasPrefix(line, "Resources: ") || strings.HasPrefix(line, "error: ")):
					checkText(t, "the display's line", line, urn, 1)
				default:
					checkText(t, "the display's line", line, urn, 0)
				}
				if tt.skipped != "" && strings.Contains(line, "  "+tt.skipped+"  skipped: ") {
					skipLine = true
					checkText(t, "the display's line", line, urn, 1)
				}
			}
			if tt.skipped != "" && !skipLine {
				t.Errorf("the display shows no skipped delete of %s by its type and name:\n%s", tt.skipped, b.String())
			}
		})
	}
}

// clauseSep splits a message into its clauses.
var clauseSep = regexp.MustCompile(`: |; |\n\s*(- )?|, `)

// checkText checks that msg names the resource urn — by its URN or by its
// type and name — at most once (exactly once when once is 1; a
// StepFailedEvent names it with its URN field, and its message may leave
// it out), names no internal package, holds no secret's plaintext, says
// no clause twice and opens no two clauses in a row with the same word.
func checkText(t *testing.T, what, msg string, urn resource.URN, once int) {
	t.Helper()
	n := strings.Count(msg, string(urn))
	rest := strings.ReplaceAll(msg, string(urn), "")
	n += strings.Count(rest, urn.Type()+` "`+urn.Name()+`"`) + strings.Count(rest, urn.Type()+"  "+urn.Name())
	switch {
	case once == 1 && n != 1, n > 1:
		t.Errorf("%s names %s %d times: %q", what, urn.Name(), n, msg)
	}
	for _, name := range internalNames {
		if strings.Contains(msg, name) {
			t.Errorf("%s names %q: %q", what, name, msg)
		}
	}
	if strings.Contains(msg, secretText) {
		t.Errorf("%s holds the secret's plaintext: %q", what, msg)
	}
	seen := map[string]bool{}
	lastWord := ""
	for _, c := range clauseSep.Split(msg, -1) {
		c = strings.TrimSpace(c)
		// A clause that opens with the word the one before it opened
		// with says again what that one did ("create failed: create
		// provider ...").
		word, _, _ := strings.Cut(c, " ")
		if len(word) > 3 && word == lastWord {
			t.Errorf("%s opens two clauses in a row with %q: %q", what, word, msg)
		}
		lastWord = word
		if len(c) >= 8 && seen[c] {
			t.Errorf("%s says %q twice: %q", what, c, msg)
		}
		seen[c] = true
	}
}
