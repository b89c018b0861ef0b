package display

import (
	"strings"
	"testing"
	"time"

	"github.com/groundwork-iac/groundwork/engine"
	"github.com/groundwork-iac/groundwork/resource"
)

// TestOutputsAtTheEnd shows the stack's outputs after an update in every
// mode, secrets masked even when the event carries their plaintext.
func TestOutputsAtTheEnd(t *testing.T) {
	outputs := resource.PropertyMap{
		"page":    resource.NewString("/srv/www/index.html"),
		"token":   resource.NewSecret(resource.NewString("t0k3n")),
		"limits":  resource.NewObject(resource.PropertyMap{"replicas": resource.NewNumber(3), "key": resource.NewSecret(resource.NewString("k3y"))}),
		"pending": resource.NewUnknown(),
	}
	evs := []engine.Event{
		engine.OperationStartEvent{Operation: engine.OpUp, Project: "site", Stack: "dev"},
		engine.SummaryEvent{Operation: engine.OpUp, Counts: map[engine.StepOp]int{}, Duration: 12 * time.Millisecond, Outputs: outputs},
	}
	want := "Outputs:\n" +
		"    limits: {\"key\":\"[secret]\",\"replicas\":3}\n" +
		"    page: /srv/www/index.html\n" +
		"    pending: [unknown]\n" +
		"    token: [secret]\n" +
		"\n" +
		"Resources: none\n"
	for _, mode := range []Mode{ModePlain, ModeInteractive} {
		got := render(t, Options{Mode: mode, Color: ColorNever, Width: 100}, evs)
		got = strings.NewReplacer(clearLine, "", clearDown, "").Replace(got)
		if !strings.Contains(got, want) {
			t.Errorf("%s: the output lacks\n%s\ngot:\n%s", mode, want, got)
		}
	}
	got := render(t, Options{Mode: ModeJSON}, evs)
	wantJSON := `{"type":"outputs","outputs":{"limits":{"key":"[secret]","replicas":3},"page":"/srv/www/index.html","pending":"[unknown]","token":"[secret]"}}` + "\n" +
		`{"type":"summary",`
	if !strings.Contains(got, wantJSON) {
		t.Errorf("JSON: the output lacks\n%s\ngot:\n%s", wantJSON, got)
	}
	for _, mode := range []Mode{ModePlain, ModeInteractive, ModeJSON} {
		if got := render(t, Options{Mode: mode}, evs); strings.Contains(got, "t0k3n") || strings.Contains(got, "k3y") {
			t.Errorf("%s shows a secret:\n%s", mode, got)
		}
	}
}
