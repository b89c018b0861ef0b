package display

import (
	"strings"

	"github.com/groundwork-iac/groundwork/engine"
	"github.com/groundwork-iac/groundwork/resource"
)

// plainEvent writes the lines of one event in plain mode.
func (r *Renderer) plainEvent(e engine.Event) {
	switch e := e.(type) {
	case engine.OperationStartEvent:
		r.m = newModel()
		r.m.start, r.m.started = e, true
		r.writeLines(operationTitle(e))
	case engine.StepStartEvent:
		rw := r.m.stepStart(e.StepEvent, r.now())
		if rw == nil || e.Preview || !callsProvider(e.StepEvent) {
			return
		}
		r.writeLines(r.pal.paint(actions[actionOf(e.Op)].color, stepLine(e.StepEvent)+"  ..."))
	case engine.StepDoneEvent:
		rw := r.m.stepDone(e)
		if rw == nil || e.Op == engine.StepReplace || e.Op == engine.StepSame && !r.opts.ShowSames {
			return
		}
		line := stepLine(e.StepEvent)
		if !e.Preview {
			line += "  (" + formatDuration(e.Duration) + ")"
		}
		r.writeLines(r.pal.paint(actions[actionOf(e.Op)].color, line))
		if r.opts.ShowDiff || e.Preview {
			r.writeLines(r.diffLines(propertyDiff(e.StepEvent, r.opts.ShowDiff), "    ")...)
		}
		if r.opts.ShowDiff {
			r.writeLines(r.diffLines(drift(e), "    ")...)
		}
	case engine.StepFailedEvent:
		if r.m.stepFailed(e) == nil {
			return
		}
		line := failedStepLine(e)
		if e.Skipped {
			line += "  skipped: " + indentRest(e.Message, "    ")
			r.writeLines(r.pal.paint(colorDim, line))
			return
		}
		line += "  failed"
		if !e.Preview {
			line += " (" + formatDuration(e.Duration) + ")"
		}
		r.writeLines(r.pal.paint(colorRed, line+": "+indentRest(e.Message, "    ")))
	case engine.DiagnosticEvent:
		if e.Severity == engine.SeverityDebug && !r.opts.ShowDebug {
			return
		}
		about := about(e.URN, e.Message)
		r.writeLines(r.pal.paint(severityColor(e.Severity), string(e.Severity)+": "+about+indentRest(e.Message, "    ")))
	case engine.SummaryEvent:
		r.writeLines(append([]string{""}, r.m.summaryLines(e, r.pal)...)...)
		r.m = newModel()
	}
}

// stepLine is the head of a step's line: symbol, operation, type, name.
func stepLine(ev engine.StepEvent) string {
	typ := ev.Type
	if typ == "" {
		typ = ev.URN.Type()
	}
	return stepSymbol(ev.Op) + " " + string(ev.Op) + "  " + typ + "  " + ev.URN.Name()
}

// failedStepLine is the head of a failed or skipped step's line. It names
// the resource once: by type and name, or, when the message names it
// already (an error such as a refused delete of a protected resource names
// its resource itself), by the message alone.
func failedStepLine(e engine.StepFailedEvent) string {
	if namesResource(e.Message, e.URN) {
		return stepSymbol(e.Op) + " " + string(e.Op)
	}
	return stepLine(e.StepEvent)
}

// about is what goes before a message about a resource so that the line
// names it once: its type and name, or nothing when there is no resource
// or the message names it already.
func about(urn resource.URN, message string) string {
	if urn == "" || namesResource(message, urn) {
		return ""
	}
	return urn.Type() + " " + urn.Name() + ": "
}

// namesResource reports whether a message names a resource: by its URN or
// by the type::name it ends with.
func namesResource(message string, urn resource.URN) bool {
	return urn != "" && strings.Contains(message, urn.Type()+"::"+urn.Name())
}

// callsProvider reports whether a step does work worth announcing when it
// starts: it calls a provider. (Steps of the stack resource call none;
// those of other components cannot be told apart from the event.)
func callsProvider(ev engine.StepEvent) bool {
	switch ev.Op {
	case engine.StepSame, engine.StepReplace, engine.StepOutputs, engine.StepDiscard:
		return false
	}
	return ev.URN.Type() != resource.RootStackType
}

func severityColor(s engine.Severity) string {
	switch s {
	case engine.SeverityError:
		return colorRed
	case engine.SeverityWarning:
		return colorYellow
	case engine.SeverityDebug:
		return colorDim
	}
	return ""
}

// diffLines indents and colors property diff lines.
func (r *Renderer) diffLines(ls []string, indent string) []string {
	out := make([]string, len(ls))
	for i, l := range ls {
		color := colorYellow
		switch {
		case strings.HasPrefix(l, "+"):
			color = colorGreen
		case strings.HasPrefix(l, "-"):
			color = colorRed
		}
		out[i] = indent + r.pal.paint(color, l)
	}
	return out
}

// writeLines writes each line followed by a newline.
func (r *Renderer) writeLines(ls ...string) {
	if len(ls) == 0 {
		return
	}
	r.write(strings.Join(ls, "\n") + "\n")
}
