package engine_test

import (
	"context"
	"flag"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/groundwork-iac/groundwork/engine"
	"github.com/groundwork-iac/groundwork/enginetest"
	"github.com/groundwork-iac/groundwork/internal/agreement"
	"github.com/groundwork-iac/groundwork/providers"
	"github.com/groundwork-iac/groundwork/state"
	"github.com/groundwork-iac/groundwork/state/memstore"
)

// TestPreviewPredictsTheUpdate is the agreement oracle over the typed
// program API: for programs drawn from Val, Apply, ApplyErr, Apply2,
// Apply3, All, Sprintf, Secret, OutputOf, As, StackOutput, typed
// resources and Props, components and explicit providers — run one after
// another on one stack, so that each updates, replaces and deletes what
// the last left, with outputs of resources created, updated and replaced
// in the same run — against a provider whose Check requires its inputs:
// when the update succeeds, the preview before it succeeded and predicts
// it.
//
// The update runs with the preview's plan (engine.UsePlan): any refusal
// is a disagreement, except the one a delete-before-replace cascade makes
// (agreement.IsCascadeRefusal). Beyond the plan's own rules, the oracle
// (agreement.Compare) checks that the preview and the update touch the
// same resources with the same steps, lesser ones allowed where the
// preview could not know a value and any order where a cascade reached
// the resource (agreement.CascadeReached), and that every input value the
// preview knew, as the provider's Check saw it, and every stack output it
// knew, is the update's.
//
// GROUNDWORK_AGREEMENT_CHECKS sets the number of cases (default 200;
// rapid's -rapid.checks and -rapid.seed work too).
func TestPreviewPredictsTheUpdate(t *testing.T) {
	checks := os.Getenv("GROUNDWORK_AGREEMENT_CHECKS")
	if f := flag.Lookup("rapid.checks"); checks == "" && f != nil && f.Value.String() == f.DefValue {
		checks = "200"
	}
	if checks != "" {
		if err := flag.Set("rapid.checks", checks); err != nil {
			t.Fatal(err)
		}
	}
	rapid.Check(t, agreementCase)
}

// agreementCase runs one case: up to three programs, each previewed and then
// applied with the preview's plan.
func agreementCase(t *rapid.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	w := newPTWorld()
	store := memstore.New()
	registry := func() *providers.Registry {
		r := providers.NewRegistry()
		p := w.provider()
		_ = r.RegisterFactory("pt", "1.0.0", func(context.Context) (providers.Provider, error) { return p, nil })
		return r
	}
	other, err := engine.New(engine.Config{Project: "test", Stack: "other", Store: store, Providers: registry})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := other.Up(ctx, func(c *engine.Context) error {
		c.Export("plain", "o1")
		c.Export("hidden", engine.Secret(engine.Val("s1")))
		return nil
	}); err != nil {
		t.Fatalf("the other stack: %v", err)
	}
	var mu sync.Mutex
	var events []engine.Event
	eng, err := engine.New(engine.Config{Project: "test", Stack: "dev", Store: store, Providers: registry,
		OnEvent: func(e engine.Event) {
			mu.Lock()
			events = append(events, e)
			mu.Unlock()
		}})
	if err != nil {
		t.Fatal(err)
	}
	versions := rapid.IntRange(1, 3).Draw(t, "versions")
	var prev *state.Snapshot
	for i := range versions {
		label := fmt.Sprintf("v%d", i+1)
		ds := drawProgram(t, label, 6)
		for _, d := range ds {
			t.Logf("%s: %v", label, d)
		}
		program := agreementProgram(ds, "other")

		w.begin()
		preview, previewErr := eng.Preview(ctx, program, engine.GeneratePlan())
		previewChecks := w.checks()

		w.begin()
		var opts []engine.Option
		if previewErr == nil {
			opts = append(opts, engine.UsePlan(preview.Plan))
		}
		up, upErr := eng.Up(ctx, program, opts...)
		reached := agreement.CascadeReached(prev, preview, up)
		switch {
		case previewErr != nil && upErr == nil:
			t.Fatalf("%s: the preview failed but the update succeeded: %v", label, previewErr)
		case agreement.IsCascadeRefusal(upErr, reached):
			// Whether a dependent registered before the cascade was
			// decided is the schedule's doing: a cascade took a
			// resource the preview saw stay, and the plan refused
			// that before touching it.
			t.Logf("%s: the update refused the preview's plan for a resource a delete-before-replace cascade reached: %v", label, upErr)
			return
		case agreement.IsRefusal(upErr):
			t.Fatalf("%s: the update refused the preview's plan: %v", label, upErr)
		case upErr != nil:
			t.Fatalf("%s: the update failed: %v", label, upErr)
		}
		if d := agreement.Compare(preview, up, previewChecks, w.checks(), reached); len(d) > 0 {
			t.Fatalf("%s: the preview does not predict the update:\n  %s", label, strings.Join(d, "\n  "))
		}
		prev = up.Snapshot
	}
}

// The oracle finds the bug it was written for: with the fix undone, a
// case whose input is an Apply of an output not known yet fails. This is
// the deterministic form of such a case.
func TestAgreementOfAComputedInput(t *testing.T) {
	w := newPTWorld()
	env := enginetest.New(t)
	env.Provider("pt", "", w.provider())
	ds := []*decl{
		{name: "a", kind: kindTyped, v: &expr{op: "val", s: "p"}, r: "x", provider: -1, parent: -1, dependOn: -1},
		{name: "b", kind: kindProps, v: &expr{op: "apply", args: []*expr{{op: "out", ref: 0, key: "out"}}}, r: "x", provider: -1, parent: -1, dependOn: -1},
	}
	program := agreementProgram(ds, "")
	w.begin()
	preview, err := env.Preview(program, engine.GeneratePlan())
	if err != nil {
		t.Fatalf("preview: %v", err)
	}
	previewChecks := w.checks()
	w.begin()
	up, err := env.Up(program, engine.UsePlan(preview.Plan))
	if err != nil {
		t.Fatalf("up: %v", err)
	}
	if d := agreement.Compare(preview, up, previewChecks, w.checks(), nil); len(d) > 0 {
		t.Fatal(strings.Join(d, "\n"))
	}
	if got := up.Outputs["last"].StringValue(); !strings.HasPrefix(got, "P#") {
		t.Errorf("b's out = %q", got)
	}
}
