package engine_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/groundwork-iac/groundwork/engine"
	"github.com/groundwork-iac/groundwork/enginetest"
	"github.com/groundwork-iac/groundwork/providers"
	"github.com/groundwork-iac/groundwork/resource"
)

// strictCloud is the cloud of lifecycle tests whose Check requires the
// input "x" of every resource named in requires, and records the inputs it
// was given, by name.
type strictCloud struct {
	*cloud
	requires []string

	mu      sync.Mutex
	checked map[string]resource.PropertyMap
}

func newStrictCloud(requires ...string) *strictCloud {
	return &strictCloud{cloud: newCloud("size"), requires: requires, checked: map[string]resource.PropertyMap{}}
}

func (s *strictCloud) provider() *providers.Func {
	p := s.cloud.provider()
	check := p.CheckF
	p.CheckF = func(ctx context.Context, req providers.CheckRequest) (providers.CheckResponse, error) {
		name := req.URN.Name()
		s.mu.Lock()
		s.checked[name] = req.News.Copy()
		s.mu.Unlock()
		for _, r := range s.requires {
			if r == name && req.News["x"].IsNull() {
				return providers.CheckResponse{Failures: []providers.CheckFailure{{Property: "x", Reason: "x is required"}}}, nil
			}
		}
		return check(ctx, req)
	}
	return p
}

// Checked returns the inputs the last Check of name was given.
func (s *strictCloud) Checked(name string) resource.PropertyMap {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.checked[name]
}

// computedThing is a test:index:Thing declared with NewResource.
type computedThing struct {
	*engine.Resource
	X engine.Output[string] `prop:"x"`
}

type computedArgs struct {
	Size engine.Output[int]    `prop:"size"`
	X    engine.Output[string] `prop:"x"`
}

// Issue 29: an input computed by a function of outputs from a resource
// whose outputs are not known yet (one not created yet, or one being
// replaced) reaches the provider's Check as unknown in a preview; it used
// to be dropped, and a Check that requires it failed the preview.
func TestPreviewSendsComputedInputsAsUnknown(t *testing.T) {
	later := func(a engine.Handle) engine.Output[string] { return engine.OutputOf[string](a, "later") }
	computed := []struct {
		name string
		of   func(a engine.Handle) engine.Output[string]
	}{
		{"Apply", func(a engine.Handle) engine.Output[string] {
			return engine.Apply(later(a), strings.ToUpper)
		}},
		{"ApplyErr", func(a engine.Handle) engine.Output[string] {
			return engine.ApplyErr(later(a), func(s string) (string, error) { return s + "!", nil })
		}},
		{"Apply2", func(a engine.Handle) engine.Output[string] {
			return engine.Apply2(later(a), engine.Val(2), func(s string, n int) string { return strings.Repeat(s, n) })
		}},
		{"Apply3", func(a engine.Handle) engine.Output[string] {
			return engine.Apply3(engine.Val("<"), later(a), engine.Val(">"), func(l, s, r string) string { return l + s + r })
		}},
		{"All", func(a engine.Handle) engine.Output[string] {
			return engine.Apply(engine.All(engine.Val("a"), later(a)), func(v []string) string { return strings.Join(v, ",") })
		}},
		{"Sprintf", func(a engine.Handle) engine.Output[string] {
			return engine.Sprintf("<h1>%s</h1>", later(a))
		}},
	}
	declare := []struct {
		name string
		with func(ctx *engine.Context, x engine.Output[string])
	}{
		{"typed", func(ctx *engine.Context, x engine.Output[string]) {
			engine.NewResource[computedThing](ctx, thing, "b", computedArgs{X: x})
		}},
		{"Props", func(ctx *engine.Context, x engine.Output[string]) {
			ctx.Register(thing, "b", engine.Props{"x": x})
		}},
	}
	sources := []struct {
		name  string
		prior bool // a exists, and the program replaces it
	}{
		{"not created yet", false},
		{"being replaced", true},
	}
	for _, src := range sources {
		for _, fn := range computed {
			for _, d := range declare {
				t.Run(fmt.Sprintf("%s/%s/%s", src.name, fn.name, d.name), func(t *testing.T) {
					c := newStrictCloud("b")
					env := enginetest.New(t)
					env.Provider("test", "", c.provider())
					if src.prior {
						if _, err := env.Up(func(ctx *engine.Context) error {
							a := ctx.Register(thing, "a", engine.Props{"size": 1, "later": "known"})
							d.with(ctx, fn.of(a))
							return nil
						}); err != nil {
							t.Fatalf("the first update: %v", err)
						}
					}
					res, err := env.Preview(func(ctx *engine.Context) error {
						a := ctx.Register(thing, "a", engine.Props{"size": 2})
						d.with(ctx, fn.of(a))
						return nil
					})
					if err != nil {
						t.Fatalf("preview: %v", err)
					}
					if x := c.Checked("b")["x"]; !x.IsUnknown() {
						t.Errorf("Check of b got x = %v, want unknown", x)
					}
					if !res.HasChanges() {
						t.Errorf("the preview predicts no change: %v", res.Counts)
					}
				})
			}
		}
	}
}
