package display

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/groundwork-iac/groundwork/engine"
	"github.com/groundwork-iac/groundwork/enginetest"
	"github.com/groundwork-iac/groundwork/providers"
	"github.com/groundwork-iac/groundwork/resource"
)

// The renderer reads the events a real engine emits: a create, an update,
// a replacement, a delete-before-replace and a delete, each one row.
func TestEngineEvents(t *testing.T) {
	env := enginetest.New(t)
	var ids atomic.Int64
	env.Provider("test", "", &providers.Func{
		CreateF: func(_ context.Context, req providers.CreateRequest) (providers.CreateResponse, error) {
			return providers.CreateResponse{ID: resource.ID(fmt.Sprint("id-", ids.Add(1))), Outputs: req.Inputs}, nil
		},
		DiffF: func(_ context.Context, req providers.DiffRequest) (providers.DiffResponse, error) {
			d := providers.DiffInputs(req.OldInputs, req.NewInputs)
			if pd, ok := d.DetailedDiff["zone"]; ok {
				d.DetailedDiff["zone"] = resource.PropertyDiff{Kind: pd.Kind.AsReplace(), InputDiff: true}
				d.ReplaceKeys = []resource.PropertyKey{"zone"}
			}
			return d, nil
		},
	})
	program := func(zone, size string, gone bool) engine.Program {
		return func(ctx *engine.Context) error {
			ctx.Register(thing, "web", engine.Props{"zone": zone, "size": size, "token": resource.NewSecret(resource.NewString("hunter2"))})
			ctx.Register(thing, "db", engine.Props{"zone": zone}, engine.DeleteBeforeReplace())
			if !gone {
				ctx.Register(thing, "tmp", engine.Props{"size": size})
			}
			return nil
		}
	}
	if _, err := env.Up(program("a", "s", false)); err != nil {
		t.Fatal(err)
	}
	if _, err := env.Up(program("a", "m", false)); err != nil {
		t.Fatal(err)
	}
	if _, err := env.Preview(program("b", "m", true)); err != nil {
		t.Fatal(err)
	}
	preview := env.Events()
	if _, err := env.Up(program("b", "m", true)); err != nil {
		t.Fatal(err)
	}
	up := env.Events()

	timing := regexp.MustCompile(`\d+(\.\d+)?(µs|ms|s)`)
	frame := finalFrame(render(t, Options{Mode: ModeInteractive, Color: ColorNever, Width: 100}, preview))
	// Independent resources finish in any order: check each row's block.
	got := timing.ReplaceAllString(strings.Join(frame, "\n"), "T") + "\n"
	for _, block := range []string{
		"Previewing update of test/dev\n    Type              Name  Status\n",
		" +- test:index:Thing  web   replace\n      ~ zone: \"a\" → \"b\" (forces replacement)\n",
		" -+ test:index:Thing  db    replace\n      ~ zone: \"a\" → \"b\" (forces replacement)\n",
		" -  test:index:Thing  tmp   delete\n",
		"\nResources: +- 2 to replace, - 1 to delete, 1 unchanged\nDuration: T\n",
	} {
		if !strings.Contains(got, block) {
			t.Errorf("preview frame lacks\n%s\nin\n%s", block, got)
		}
	}
	if len(frame) != 10 {
		t.Errorf("preview frame has %d lines, want 10:\n%s", len(frame), got)
	}

	out := timing.ReplaceAllString(render(t, Options{Mode: ModePlain}, up), "T")
	for _, line := range []string{
		"++ create-replacement  test:index:Thing  web  (T)",
		"-- delete-replaced  test:index:Thing  web  (T)",
		"-- delete-replaced  test:index:Thing  db  (T)",
		"+ create  test:index:Thing  db  (T)",
		"- delete  test:index:Thing  tmp  (T)",
		"Resources: +- 2 replaced, - 1 deleted, 1 unchanged",
	} {
		if !strings.Contains(out, line+"\n") {
			t.Errorf("plain output lacks %q:\n%s", line, out)
		}
	}
	if strings.Contains(out, "default") || strings.Contains(out, "outputs") {
		t.Errorf("plain output shows the default provider or the outputs step:\n%s", out)
	}
	for _, evs := range [][]engine.Event{preview, up} {
		for _, opts := range []Options{{Mode: ModePlain, ShowDiff: true}, {Mode: ModeJSON}} {
			if s := render(t, opts, evs); strings.Contains(s, "hunter2") {
				t.Errorf("a secret leaked:\n%s", s)
			}
		}
	}
}
