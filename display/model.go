package display

import (
	"strings"
	"time"

	"github.com/groundwork-iac/groundwork/engine"
	"github.com/groundwork-iac/groundwork/providers"
	"github.com/groundwork-iac/groundwork/resource"
)

// action is what a row shows happening to a resource. Several step
// operations collapse into one action: a replacement is a replace marker,
// a create-replacement and a delete-replaced, shown as one row.
type action int

// The actions, weakest first: a row shows the strongest action of its
// steps (a refresh followed by an update shows as an update).
const (
	actSame action = iota
	actRead
	actRefresh
	actImport
	actDiscard
	actCreate
	actDelete
	actUpdate
	actReplace
)

// actionInfo is how an action is shown.
type actionInfo struct {
	symbol  string
	verb    string // "create": the step's name and the preview status
	running string // "creating"
	done    string // "created": the status and the summary count
	preview string // "to create": the summary count in a preview
	color   string
}

var actions = [...]actionInfo{
	actSame:    {"=", "same", "checking", "unchanged", "unchanged", ""},
	actRead:    {">", "read", "reading", "read", "to read", colorCyan},
	actRefresh: {"~>", "refresh", "refreshing", "refreshed", "to refresh", colorCyan},
	actImport:  {"<=", "import", "importing", "imported", "to import", colorCyan},
	actDiscard: {"x", "discard", "discarding", "discarded", "to discard", colorRed},
	actCreate:  {"+", "create", "creating", "created", "to create", colorGreen},
	actDelete:  {"-", "delete", "deleting", "deleted", "to delete", colorRed},
	actUpdate:  {"~", "update", "updating", "updated", "to update", colorYellow},
	actReplace: {"+-", "replace", "replacing", "replaced", "to replace", colorMagenta},
}

func actionOf(op engine.StepOp) action {
	switch op {
	case engine.StepCreate:
		return actCreate
	case engine.StepUpdate:
		return actUpdate
	case engine.StepDelete:
		return actDelete
	case engine.StepReplace, engine.StepCreateReplacement, engine.StepDeleteReplaced, engine.StepReadReplacement:
		return actReplace
	case engine.StepRead:
		return actRead
	case engine.StepImport:
		return actImport
	case engine.StepRefresh:
		return actRefresh
	case engine.StepDiscard:
		return actDiscard
	}
	return actSame
}

// stepSymbol is the symbol of one step in plain output, where the steps of
// a replacement are told apart.
func stepSymbol(op engine.StepOp) string {
	switch op {
	case engine.StepCreateReplacement:
		return "++"
	case engine.StepDeleteReplaced:
		return "--"
	}
	return actions[actionOf(op)].symbol
}

// row is one resource of the operation.
type row struct {
	urn       resource.URN
	typ, name string
	act       action
	// replacing is set by the first step of a replacement; dbr if that
	// step deleted the old copy (delete-before-replace).
	replacing, dbr bool
	running        int
	runningOp      engine.StepOp
	since          time.Time     // when the running step started
	took           time.Duration // the finished steps' durations
	failed         bool
	skipped        bool
	message        string
	diags          []string
	diff           []string
}

func (rw *row) symbol() string {
	if rw.act == actReplace && rw.dbr {
		return "-+"
	}
	return actions[rw.act].symbol
}

// model is what the renderer knows of the current operation.
type model struct {
	start   engine.OperationStartEvent
	started bool
	rows    []*row
	byURN   map[resource.URN]*row
	general []string // diagnostics not under a shown row
	summary *engine.SummaryEvent
}

func newModel() *model { return &model{byURN: map[resource.URN]*row{}} }

func (m *model) preview() bool { return m.start.Operation == engine.OpPreview }

// row returns the row of a step, creating it on first sight, or nil for a
// hidden step (unless force: a hidden step that fails is shown).
func (m *model) row(ev engine.StepEvent, force bool) *row {
	switch {
	case force:
	case ev.Op == engine.StepOutputs:
		return nil
	case providers.IsDefaultProvider(ev.URN) && m.byURN[ev.URN] == nil:
		return nil
	}
	rw := m.byURN[ev.URN]
	if rw == nil {
		typ := ev.Type
		if typ == "" {
			typ = ev.URN.Type()
		}
		rw = &row{urn: ev.URN, typ: typ, name: ev.URN.Name()}
		m.rows = append(m.rows, rw)
		m.byURN[ev.URN] = rw
	}
	a := actionOf(ev.Op)
	if a == actReplace && !rw.replacing {
		rw.replacing = true
		rw.dbr = ev.Op == engine.StepDeleteReplaced
	}
	if a > rw.act {
		rw.act = a
	}
	return rw
}

func (m *model) stepStart(ev engine.StepEvent, now time.Time) *row {
	rw := m.row(ev, false)
	if rw != nil {
		rw.running++
		rw.runningOp = ev.Op
		rw.since = now
	}
	return rw
}

func (m *model) stepEnd(ev engine.StepEvent, took time.Duration, force bool) *row {
	rw := m.row(ev, force)
	if rw != nil {
		if rw.running > 0 {
			rw.running--
		}
		rw.took += took
	}
	return rw
}

func (m *model) stepDone(e engine.StepDoneEvent) *row {
	return m.stepEnd(e.StepEvent, e.Duration, false)
}

func (m *model) stepFailed(e engine.StepFailedEvent) *row {
	rw := m.stepEnd(e.StepEvent, e.Duration, !e.Skipped)
	if rw != nil {
		if e.Skipped {
			rw.skipped = true
		} else {
			rw.failed = true
		}
		rw.message = e.Message
	}
	return rw
}

// visible reports whether a row is shown.
func (rw *row) visible(showSames bool) bool {
	return showSames || rw.act != actSame || rw.failed || rw.skipped || len(rw.diags) > 0
}

// count is one entry of the summary's resource counts.
type count struct {
	act action
	n   int
}

// counts returns the summary's counts by action, in a fixed order, and
// the failed steps: what the engine counts (see engine.Result.Counts), so
// that the display, the result and every message agree.
func (m *model) counts(s engine.SummaryEvent) (out []count, failed int) {
	n := map[action]int{}
	for op, c := range s.Counts {
		n[actionOf(op)] += c
	}
	for _, a := range []action{actCreate, actUpdate, actReplace, actDelete, actImport, actRead, actRefresh, actDiscard, actSame} {
		if n[a] > 0 {
			out = append(out, count{a, n[a]})
		}
	}
	return out, s.Failed
}

// operationTitle is the heading of an operation.
func operationTitle(e engine.OperationStartEvent) string {
	verb := map[engine.Operation]string{
		engine.OpPreview: "Previewing update of",
		engine.OpUp:      "Updating",
		engine.OpDestroy: "Destroying",
		engine.OpRefresh: "Refreshing",
		engine.OpImport:  "Importing into",
	}[e.Operation]
	if verb == "" {
		verb = "Running " + string(e.Operation) + " on"
	}
	return verb + " " + e.Project + "/" + e.Stack
}

// summaryLines renders the closing summary.
func (m *model) summaryLines(s engine.SummaryEvent, pal palette) []string {
	cs, failed := m.counts(s)
	var parts []string
	for _, c := range cs {
		info := actions[c.act]
		label := info.done
		if m.preview() {
			label = info.preview
		}
		text := itoa(c.n) + " " + label
		if c.act != actSame {
			text = info.symbol + " " + text
		}
		parts = append(parts, pal.paint(info.color, text))
	}
	if failed > 0 {
		parts = append(parts, pal.paint(colorRed, itoa(failed)+" failed"))
	}
	if len(parts) == 0 {
		parts = []string{"none"}
	}
	lines := append(outputLines(s.Outputs), "Resources: "+strings.Join(parts, ", "), "Duration: "+formatDuration(s.Duration))
	if s.Error != "" {
		lines = append(lines, pal.paint(colorRed, "error: "+indentRest(s.Error, "  ")))
	}
	return lines
}
