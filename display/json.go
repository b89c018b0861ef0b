package display

import (
	"encoding/json"
	"math"
	"strconv"
	"time"

	"github.com/groundwork-iac/groundwork/engine"
	"github.com/groundwork-iac/groundwork/resource"
)

// The JSON shapes of the events. Field names are stable: tools parse them.

type jsonOperationStart struct {
	Type      string `json:"type"`
	Operation string `json:"operation"`
	Project   string `json:"project"`
	Stack     string `json:"stack"`
	Time      string `json:"time"`
}

type jsonStep struct {
	Type         string                  `json:"type"`
	Op           string                  `json:"op"`
	URN          string                  `json:"urn"`
	ResourceType string                  `json:"resourceType"`
	Preview      bool                    `json:"preview"`
	OldInputs    map[string]any          `json:"oldInputs,omitempty"`
	NewInputs    map[string]any          `json:"newInputs,omitempty"`
	Keys         []string                `json:"keys,omitempty"`
	Diff         map[string]jsonPropDiff `json:"diff,omitempty"`
	Outputs      map[string]any          `json:"outputs,omitempty"`
	Message      string                  `json:"message,omitempty"`
	Skipped      bool                    `json:"skipped,omitempty"`
	DurationMs   *int64                  `json:"durationMs,omitempty"`
}

type jsonPropDiff struct {
	Kind      string `json:"kind"`
	InputDiff bool   `json:"inputDiff"`
}

type jsonDiagnostic struct {
	Type     string `json:"type"`
	URN      string `json:"urn,omitempty"`
	Severity string `json:"severity"`
	Message  string `json:"message"`
}

type jsonSummary struct {
	Type       string         `json:"type"`
	Operation  string         `json:"operation"`
	Counts     map[string]int `json:"counts"`
	Failed     int            `json:"failed"`
	DurationMs int64          `json:"durationMs"`
	Error      string         `json:"error,omitempty"`
}

// writeJSON writes one event as a line of JSON.
func (r *Renderer) writeJSON(e engine.Event) {
	var v any
	switch e := e.(type) {
	case engine.OperationStartEvent:
		v = jsonOperationStart{"operation-start", string(e.Operation), e.Project, e.Stack, e.Time.UTC().Format(time.RFC3339Nano)}
	case engine.StepStartEvent:
		v = stepJSON("step-start", e.StepEvent)
	case engine.StepDoneEvent:
		s := stepJSON("step-done", e.StepEvent)
		s.Outputs = mapJSON(e.Outputs)
		s.DurationMs = ms(e.Duration)
		v = s
	case engine.StepFailedEvent:
		s := stepJSON("step-failed", e.StepEvent)
		s.Message, s.Skipped, s.DurationMs = e.Message, e.Skipped, ms(e.Duration)
		v = s
	case engine.DiagnosticEvent:
		v = jsonDiagnostic{"diagnostic", string(e.URN), string(e.Severity), e.Message}
	case engine.SummaryEvent:
		counts := make(map[string]int, len(e.Counts))
		for op, n := range e.Counts {
			counts[string(op)] = n
		}
		if len(e.Outputs) > 0 {
			r.writeValue(jsonOutputs{"outputs", mapJSON(e.Outputs)})
		}
		v = jsonSummary{"summary", string(e.Operation), counts, e.Failed, e.Duration.Milliseconds(), e.Error}
	default:
		return
	}
	r.writeValue(v)
}

// writeValue writes v as a line of JSON.
func (r *Renderer) writeValue(v any) {
	b, err := json.Marshal(v)
	if err != nil {
		// Every value is plain data; this cannot happen short of a
		// bug, and a display must not fail the deployment.
		return
	}
	r.write(string(b) + "\n")
}

func ms(d time.Duration) *int64 {
	n := d.Milliseconds()
	return &n
}

func stepJSON(typ string, ev engine.StepEvent) jsonStep {
	s := jsonStep{
		Type: typ, Op: string(ev.Op), URN: string(ev.URN), ResourceType: ev.Type, Preview: ev.Preview,
		OldInputs: mapJSON(ev.OldInputs), NewInputs: mapJSON(ev.NewInputs),
	}
	if s.ResourceType == "" {
		s.ResourceType = ev.URN.Type()
	}
	for _, k := range ev.Keys {
		s.Keys = append(s.Keys, string(k))
	}
	if len(ev.Diff) > 0 {
		s.Diff = make(map[string]jsonPropDiff, len(ev.Diff))
		for p, d := range ev.Diff {
			s.Diff[p] = jsonPropDiff{Kind: d.Kind.String(), InputDiff: d.InputDiff}
		}
	}
	return s
}

// mapJSON converts a property map to plain JSON values (nil for an empty
// map). It is masking-safe: whatever the map holds, a secret becomes
// "[secret]" and is never looked into, and an unknown becomes "[unknown]".
func mapJSON(m resource.PropertyMap) map[string]any {
	if len(m) == 0 {
		return nil
	}
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[string(k)] = valueJSON(v)
	}
	return out
}

func valueJSON(v resource.PropertyValue) any {
	switch v.Kind() {
	case resource.KindNull:
		return nil
	case resource.KindBool:
		return v.BoolValue()
	case resource.KindNumber:
		n := v.NumberValue()
		if math.IsNaN(n) || math.IsInf(n, 0) {
			return strconv.FormatFloat(n, 'g', -1, 64)
		}
		return n
	case resource.KindString:
		return v.StringValue()
	case resource.KindArray:
		a := v.ArrayValue()
		out := make([]any, len(a))
		for i, e := range a {
			out[i] = valueJSON(e)
		}
		return out
	case resource.KindObject:
		out := mapJSON(v.ObjectValue())
		if out == nil {
			out = map[string]any{}
		}
		return out
	case resource.KindAsset:
		a := v.AssetValue()
		return map[string]any{"asset": fileRef(a.Hash, a.Path, a.URI)}
	case resource.KindArchive:
		a := v.ArchiveValue()
		return map[string]any{"archive": fileRef(a.Hash, a.Path, a.URI)}
	case resource.KindResourceReference:
		ref := v.ResourceReferenceValue()
		out := map[string]any{"urn": string(ref.URN)}
		switch {
		case ref.IDUnknown:
			out["id"] = "[unknown]"
		case ref.ID != "":
			out["id"] = string(ref.ID)
		}
		return map[string]any{"resourceReference": out}
	case resource.KindUnknown:
		return "[unknown]"
	case resource.KindSecret:
		return "[secret]"
	case resource.KindOutput:
		o := v.OutputValue()
		switch {
		case o.Secret:
			return "[secret]"
		case !o.Known:
			return "[unknown]"
		}
		return valueJSON(o.Element)
	}
	return nil
}

// fileRef describes an asset or archive by hash and location; literal
// contents are left out.
func fileRef(hash, path, uri string) map[string]any {
	out := map[string]any{}
	for k, s := range map[string]string{"hash": hash, "path": path, "uri": uri} {
		if s != "" {
			out[k] = s
		}
	}
	return out
}
