package display

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"

	"github.com/groundwork-iac/groundwork/engine"
	"github.com/groundwork-iac/groundwork/resource"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// golden compares got with testdata/name, or rewrites the file with -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if diff := cmp.Diff(string(want), got); diff != "" {
		t.Errorf("%s differs (-want +got); run go test -update if the change is intended:\n%s", name, diff)
	}
}

// render feeds events to a Renderer writing to a buffer and returns what
// it wrote.
func render(t *testing.T, opts Options, evs []engine.Event) string {
	t.Helper()
	var buf bytes.Buffer
	r := New(&buf, opts)
	r.now = func() time.Time { return time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC) }
	for _, e := range evs {
		r.Event(e)
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.String()
}

func TestGolden(t *testing.T) {
	for _, tc := range []struct {
		file    string
		opts    Options
		preview bool
	}{
		{"plain_update.golden", Options{Mode: ModePlain}, false},
		{"plain_update_diff.golden", Options{Mode: ModePlain, ShowDiff: true, ShowSames: true, ShowDebug: true}, false},
		{"plain_preview.golden", Options{Mode: ModePlain}, true},
		{"json_update.golden", Options{Mode: ModeJSON}, false},
		{"json_preview.golden", Options{Mode: ModeJSON}, true},
		{"interactive_update.golden", Options{Mode: ModeInteractive, Width: 72, Color: ColorNever}, false},
		{"interactive_preview.golden", Options{Mode: ModeInteractive, Width: 72, Color: ColorNever}, true},
	} {
		t.Run(tc.file, func(t *testing.T) {
			out := render(t, tc.opts, script(tc.preview))
			if tc.opts.Mode == ModeInteractive {
				out = strings.Join(finalFrame(out), "\n") + "\n"
			}
			golden(t, tc.file, out)
		})
	}
}

var escape = regexp.MustCompile(`\x1b\[[0-9;]*[A-Za-z]`)
var cursorUpSeq = regexp.MustCompile(`\x1b\[\d+A`)

// finalFrame returns the lines of the last frame an interactive renderer
// drew, escape codes removed.
func finalFrame(out string) []string {
	if locs := cursorUpSeq.FindAllStringIndex(out, -1); len(locs) > 0 {
		out = out[locs[len(locs)-1][1]:]
	}
	out = strings.ReplaceAll(escape.ReplaceAllString(out, ""), "\r", "")
	return strings.Split(strings.TrimSuffix(out, "\n"), "\n")
}

// The renderer masks secrets the engine left in plaintext, in every mode,
// in inputs, outputs and diffs.
func TestNoSecretPlaintext(t *testing.T) {
	for _, opts := range []Options{
		{Mode: ModePlain, ShowDiff: true, ShowSames: true},
		{Mode: ModeJSON},
		{Mode: ModeInteractive, ShowDiff: true, ShowSames: true, Width: 500},
	} {
		for _, preview := range []bool{false, true} {
			out := render(t, opts, script(preview))
			if strings.Contains(out, "hunter") {
				t.Errorf("mode %v, preview %v: a secret's plaintext was written:\n%s", opts.Mode, preview, out)
			}
			if !strings.Contains(out, "[secret]") {
				t.Errorf("mode %v, preview %v: no masked secret shown:\n%s", opts.Mode, preview, out)
			}
		}
	}
}

func TestInteractiveCutsToWidth(t *testing.T) {
	out := render(t, Options{Mode: ModeInteractive, Width: 30, ShowDiff: true}, script(false))
	for _, l := range finalFrame(out) {
		if n := utf8.RuneCountInString(l); n > 30 && !strings.HasPrefix(l, "Resources:") && !strings.HasPrefix(l, "error:") {
			t.Errorf("line of %d runes in a 30-column frame: %q", n, l)
		}
	}
}

// A running step shows a spinner and its elapsed time, counted with the
// renderer's clock.
func TestInteractiveRunningRow(t *testing.T) {
	var buf bytes.Buffer
	r := New(&buf, Options{Mode: ModeInteractive, Width: 80, Color: ColorNever})
	defer r.Close()
	start := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
	clock := start
	r.now = func() time.Time { return clock }
	r.Event(engine.OperationStartEvent{Operation: engine.OpUp, Project: "web", Stack: "dev"})
	r.Event(engine.StepStartEvent{StepEvent: step(engine.StepCreate, thing, "slow", false, nil, nil)})
	clock = start.Add(2500 * time.Millisecond)

	r.mu.Lock()
	got := r.frameLines(80)
	r.mu.Unlock()
	want := []string{
		"Updating web/dev",
		"    Type              Name  Status      Time",
		" +  test:index:Thing  slow  " + spinner[clock.UnixNano()/int64(redrawInterval)%int64(len(spinner))] + " creating  2.5s",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("frame (-want +got):\n%s", diff)
	}
}

// One renderer follows operation after operation; each has its own
// redraw goroutine, stopped by its summary.
func TestInteractiveSeveralOperations(t *testing.T) {
	var buf bytes.Buffer
	r := New(&buf, Options{Mode: ModeInteractive, Width: 80, Color: ColorNever})
	for _, name := range []string{"one", "two"} {
		r.Event(engine.OperationStartEvent{Operation: engine.OpUp, Project: "web", Stack: "dev"})
		for _, e := range ran(step(engine.StepCreate, thing, name, false, nil, nil), time.Millisecond, nil) {
			r.Event(e)
		}
		r.Event(engine.SummaryEvent{Operation: engine.OpUp, Duration: time.Second, Counts: map[engine.StepOp]int{engine.StepCreate: 1}})
		r.mu.Lock()
		live := r.live
		r.mu.Unlock()
		if live != nil {
			t.Fatalf("operation %s: the redraw goroutine still runs after the summary", name)
		}
	}
	r.Close()
	r.Event(engine.OperationStartEvent{Operation: engine.OpUp}) // ignored after Close
	out := escape.ReplaceAllString(buf.String(), "")
	for _, want := range []string{"one   created", "two   created", "Resources: + 1 created"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if r.live != nil {
		t.Error("an event after Close started a redraw goroutine")
	}
}

// Close during an operation draws the table a last time and stops the
// redraw goroutine.
func TestInteractiveCloseMidOperation(t *testing.T) {
	var buf bytes.Buffer
	r := New(&buf, Options{Mode: ModeInteractive, Width: 80, Color: ColorNever})
	r.Event(engine.OperationStartEvent{Operation: engine.OpDestroy, Project: "web", Stack: "dev"})
	r.Event(engine.StepStartEvent{StepEvent: step(engine.StepDelete, thing, "x", false, nil, nil)})
	r.Close()
	r.Close()
	got := finalFrame(buf.String())
	if len(got) != 3 || got[0] != "Destroying web/dev" || !strings.Contains(got[2], "deleting") {
		t.Errorf("final frame = %q", got)
	}
}

func TestAutoMode(t *testing.T) {
	if m := New(&bytes.Buffer{}, Options{}).Mode(); m != ModePlain {
		t.Errorf("a buffer renders in %v, want plain", m)
	}
	f, err := os.CreateTemp(t.TempDir(), "out")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if m := New(f, Options{}).Mode(); m != ModePlain {
		t.Errorf("a file renders in %v, want plain", m)
	}
	if m := New(f, Options{Mode: ModeJSON}).Mode(); m != ModeJSON {
		t.Errorf("an explicit mode became %v", m)
	}
}

func TestColor(t *testing.T) {
	plain := render(t, Options{Mode: ModePlain}, script(false))
	if strings.Contains(plain, "\x1b") {
		t.Error("plain output holds escape codes")
	}
	colored := render(t, Options{Mode: ModePlain, Color: ColorAlways}, script(false))
	if !strings.Contains(colored, "\x1b[32m+ create") {
		t.Error("ColorAlways did not color a create")
	}
	if escape.ReplaceAllString(colored, "") != plain {
		t.Error("color changed more than the escape codes")
	}
}

func TestValueJSON(t *testing.T) {
	v := resource.NewObject(resource.PropertyMap{
		"out":     resource.NewOutput(resource.Output{Element: str("x"), Known: true}),
		"hidden":  resource.NewOutput(resource.Output{Element: str("hunter2"), Known: true, Secret: true}),
		"pending": resource.NewOutput(resource.Output{}),
		"ref":     resource.NewResourceReference(resource.ResourceReference{URN: urn(thing, "a"), IDUnknown: true}),
		"asset":   resource.NewAssetValue(&resource.Asset{Hash: "abc", Path: "f.txt"}),
		"list":    resource.NewArray(resource.NewUnknown(), resource.NewBool(true), resource.NewNull()),
	})
	want := map[string]any{
		"out": "x", "hidden": "[secret]", "pending": "[unknown]",
		"ref":   map[string]any{"resourceReference": map[string]any{"urn": string(urn(thing, "a")), "id": "[unknown]"}},
		"asset": map[string]any{"asset": map[string]any{"hash": "abc", "path": "f.txt"}},
		"list":  []any{"[unknown]", true, nil},
	}
	if diff := cmp.Diff(want, valueJSON(v)); diff != "" {
		t.Errorf("valueJSON (-want +got):\n%s", diff)
	}
}

// A failed step's line names its resource once: by type and name before a
// message that does not name it, by the message alone when it names the
// resource by its URN (a refused delete of a protected resource).
func TestFailedStepNamesResourceOnce(t *testing.T) {
	web := step(engine.StepDelete, thing, "web", false, nil, nil)
	protected := "resource " + string(web.URN) + " is protected and cannot be deleted; remove the protect option (and run an update) first"
	for _, tc := range []struct {
		message, want string
	}{
		{"delete (id i-1) failed: quota exceeded", "- delete  test:index:Thing  web  failed (5ms): delete (id i-1) failed: quota exceeded\n"},
		{protected, "- delete  failed (5ms): " + protected + "\n"},
	} {
		out := render(t, Options{Mode: ModePlain}, []engine.Event{
			engine.OperationStartEvent{Operation: engine.OpDestroy, Project: "web", Stack: "dev"},
			engine.StepFailedEvent{StepEvent: web, Message: tc.message, Duration: 5 * time.Millisecond},
		})
		if !strings.Contains(out, tc.want) {
			t.Errorf("output lacks %q:\n%s", tc.want, out)
		}
	}
}

// A diagnostic about a resource names it once in every mode: the renderer
// puts the type and name before a message that does not name the resource,
// and leaves them out when the message names it already, by its URN or by
// type::name.
func TestDiagnosticNamesResourceOnce(t *testing.T) {
	web := urn(thing, "web")
	for _, tc := range []struct {
		name, message, want string
	}{
		{"plain message", "the disk is almost full", "warning: test:index:Thing web: the disk is almost full"},
		{"message with the URN", "resource " + string(web) + " is old", "warning: resource " + string(web) + " is old"},
		{"message with type::name", "test:index:Thing::web is old", "warning: test:index:Thing::web is old"},
	} {
		for _, mode := range []Mode{ModePlain, ModeInteractive} {
			t.Run(tc.name+"/"+mode.String(), func(t *testing.T) {
				out := render(t, Options{Mode: mode, Width: 500, Color: ColorNever}, []engine.Event{
					engine.OperationStartEvent{Operation: engine.OpUp, Project: "web", Stack: "dev"},
					engine.DiagnosticEvent{URN: web, Severity: engine.SeverityWarning, Message: tc.message},
					engine.SummaryEvent{Operation: engine.OpUp},
				})
				lines := strings.Split(out, "\n")
				if mode == ModeInteractive {
					lines = finalFrame(out)
				}
				found := false
				for _, l := range lines {
					if strings.Contains(l, "warning:") {
						found = true
						if got := strings.TrimSpace(l); got != tc.want {
							t.Errorf("diagnostic line\n got %q\nwant %q", got, tc.want)
						}
					}
				}
				if !found {
					t.Errorf("no diagnostic line in:\n%s", out)
				}
			})
		}
	}
}

// A message longer than the terminal is wide (a warning with its advice,
// a failure) is wrapped, not cut: the live display is where it is read.
// Every line still fits the width, so that the redraw stays in place.
func TestInteractiveWrapsMessages(t *testing.T) {
	const width = 40
	warn := "an earlier operation was interrupted while updating this resource; run a refresh to resolve it"
	fail := "create failed: the provider said no to this request because its quota is exhausted"
	general := "broke the lock of stack web/dev left by process 42, which no longer runs"
	x := step(engine.StepCreate, thing, "x", false, nil, nil)
	out := render(t, Options{Mode: ModeInteractive, Width: width, Color: ColorNever}, []engine.Event{
		engine.OperationStartEvent{Operation: engine.OpUp, Project: "web", Stack: "dev"},
		engine.DiagnosticEvent{Severity: engine.SeverityWarning, Message: general},
		engine.StepStartEvent{StepEvent: x},
		engine.DiagnosticEvent{URN: x.URN, Severity: engine.SeverityWarning, Message: warn},
		engine.StepFailedEvent{StepEvent: x, Message: fail, Duration: time.Millisecond},
		engine.SummaryEvent{Operation: engine.OpUp, Duration: time.Second, Error: "failed"},
	})
	frame := finalFrame(out)
	for _, l := range frame {
		if n := utf8.RuneCountInString(l); n > width && !strings.HasPrefix(l, "Resources:") {
			t.Errorf("line of %d runes in a %d-column frame: %q", n, width, l)
		}
	}
	text := strings.Join(strings.Fields(strings.Join(frame, " ")), " ")
	for _, msg := range []string{warn, fail, general} {
		if !strings.Contains(text, msg) {
			t.Errorf("the frame does not show %q in full:\n%s", msg, strings.Join(frame, "\n"))
		}
	}
}

func TestWrap(t *testing.T) {
	for _, tc := range []struct {
		s      string
		width  int
		indent string
		want   []string
	}{
		{"short", 10, "  ", []string{"short"}},
		{"one two three four", 9, "  ", []string{"one two", "  three", "  four"}},
		{"abcdefghijkl", 5, " ", []string{"abcde", " fghi", " jkl"}},
		{"a b\nc d", 3, "   ", []string{"a b", "  …"}},
		{"whole line", 0, " ", []string{"whole line"}},
	} {
		got := wrap(tc.s, tc.width, tc.indent)
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("wrap(%q, %d, %q) (-want +got):\n%s", tc.s, tc.width, tc.indent, diff)
		}
		for _, l := range got {
			if n := utf8.RuneCountInString(l); tc.width > 0 && n > tc.width {
				t.Errorf("wrap(%q, %d, %q): line %q is wider than %d", tc.s, tc.width, tc.indent, l, tc.width)
			}
		}
	}
}
