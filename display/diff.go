package display

import (
	"slices"
	"strings"

	"github.com/groundwork-iac/groundwork/engine"
	"github.com/groundwork-iac/groundwork/resource"
)

// maxValueWidth bounds how much of one property value a diff line shows.
const maxValueWidth = 120

// diffLine is one property-level change.
type diffLine struct {
	path     string
	kind     resource.PropertyDiffKind
	old, new string // rendered values; "" when not known
}

func (l diffLine) String() string {
	var b strings.Builder
	switch l.kind {
	case resource.DiffAdd, resource.DiffAddReplace:
		b.WriteString("+ " + l.path)
		if l.new != "" {
			b.WriteString(": " + l.new)
		}
	case resource.DiffDelete, resource.DiffDeleteReplace:
		b.WriteString("- " + l.path)
		if l.old != "" {
			b.WriteString(": " + l.old)
		}
	default:
		b.WriteString("~ " + l.path)
		if l.old != "" || l.new != "" {
			b.WriteString(": " + orUnset(l.old) + " → " + orUnset(l.new))
		}
	}
	if l.kind.IsReplace() {
		b.WriteString(" (forces replacement)")
	}
	return b.String()
}

func orUnset(s string) string {
	if s == "" {
		return "(unset)"
	}
	return s
}

// changesOf reports whether a step carries the changes of an update or a
// replacement: updates, replacements' creates, and the create that
// follows a delete-before-replace (which carries the diff).
func changesOf(ev engine.StepEvent) bool {
	switch ev.Op {
	case engine.StepUpdate, engine.StepCreateReplacement:
		return true
	case engine.StepCreate:
		return len(ev.Keys) > 0 || len(ev.Diff) > 0
	}
	return false
}

// propertyDiff renders what a step changes, property by property, or nil
// when the step is not one that shows a diff. full adds the inputs of
// created resources and of deleted ones.
func propertyDiff(ev engine.StepEvent, full bool) []string {
	var ls []diffLine
	switch {
	case changesOf(ev):
		ls = changes(ev)
	case !full:
		return nil
	case ev.Op == engine.StepCreate || ev.Op == engine.StepImport:
		for _, k := range ev.NewInputs.StableKeys() {
			ls = append(ls, diffLine{path: pathOf(nil, string(k)), kind: resource.DiffAdd, new: value(ev.NewInputs[k])})
		}
	case ev.Op == engine.StepDelete:
		for _, k := range ev.OldInputs.StableKeys() {
			ls = append(ls, diffLine{path: pathOf(nil, string(k)), kind: resource.DiffDelete, old: value(ev.OldInputs[k])})
		}
	}
	out := make([]string, len(ls))
	for i, l := range ls {
		out[i] = l.String()
	}
	return out
}

// drift renders what a refresh found changed in a resource's outputs,
// property by property; nil for other steps and for no drift.
func drift(e engine.StepDoneEvent) []string {
	if e.Op != engine.StepRefresh || e.OldOutputs == nil || e.Outputs == nil {
		return nil
	}
	var ls []diffLine
	walkObject(e.OldOutputs.Diff(e.Outputs), nil, &ls)
	slices.SortFunc(ls, func(a, b diffLine) int { return strings.Compare(a.path, b.path) })
	out := make([]string, len(ls))
	for i, l := range ls {
		out[i] = l.String()
	}
	return out
}

// changes lists an update's changes: from the provider's detailed diff
// when it gave one, else by comparing old and new inputs, else from the
// changed keys alone.
func changes(ev engine.StepEvent) []diffLine {
	var ls []diffLine
	if len(ev.Diff) > 0 {
		for path, pd := range ev.Diff {
			l := diffLine{path: path, kind: pd.Kind}
			if p, err := resource.ParsePropertyPath(path); err == nil {
				if v, ok := ev.OldInputs.GetPath(p); ok && !addKind(pd.Kind) {
					l.old = value(v)
				}
				if v, ok := ev.NewInputs.GetPath(p); ok && !deleteKind(pd.Kind) {
					l.new = value(v)
				}
			}
			ls = append(ls, l)
		}
	} else {
		walkObject(ev.OldInputs.Diff(ev.NewInputs), nil, &ls)
	}
	if len(ls) == 0 {
		for _, k := range ev.Keys {
			ls = append(ls, diffLine{path: pathOf(nil, string(k)), kind: resource.DiffUpdate})
		}
	}
	slices.SortFunc(ls, func(a, b diffLine) int { return strings.Compare(a.path, b.path) })
	return ls
}

func addKind(k resource.PropertyDiffKind) bool {
	return k == resource.DiffAdd || k == resource.DiffAddReplace
}

func deleteKind(k resource.PropertyDiffKind) bool {
	return k == resource.DiffDelete || k == resource.DiffDeleteReplace
}

// walkObject appends the leaf changes of d under path.
func walkObject(d *resource.ObjectDiff, path resource.PropertyPath, out *[]diffLine) {
	if d == nil {
		return
	}
	for k, v := range d.Adds {
		*out = append(*out, diffLine{path: pathOf(path, string(k)), kind: resource.DiffAdd, new: value(v)})
	}
	for k, v := range d.Deletes {
		*out = append(*out, diffLine{path: pathOf(path, string(k)), kind: resource.DiffDelete, old: value(v)})
	}
	for k, vd := range d.Updates {
		walkValue(vd, path.Append(resource.PathKey(string(k))), out)
	}
}

// walkValue appends the changes of one updated value. It never descends
// into a secret: the values inside a secret would come out in plaintext.
func walkValue(vd resource.ValueDiff, path resource.PropertyPath, out *[]diffLine) {
	secret := isSecret(vd.Old) || isSecret(vd.New)
	switch {
	case !secret && vd.Object.AnyChanges():
		walkObject(vd.Object, path, out)
	case !secret && vd.Array.AnyChanges():
		walkArray(vd.Array, path, out)
	default:
		*out = append(*out, diffLine{path: path.String(), kind: resource.DiffUpdate, old: value(vd.Old), new: value(vd.New)})
	}
}

func walkArray(d *resource.ArrayDiff, path resource.PropertyPath, out *[]diffLine) {
	for i, v := range d.Adds {
		*out = append(*out, diffLine{path: path.Append(resource.PathIndex(i)).String(), kind: resource.DiffAdd, new: value(v)})
	}
	for i, v := range d.Deletes {
		*out = append(*out, diffLine{path: path.Append(resource.PathIndex(i)).String(), kind: resource.DiffDelete, old: value(v)})
	}
	for i, vd := range d.Updates {
		walkValue(vd, path.Append(resource.PathIndex(i)), out)
	}
}

func pathOf(parent resource.PropertyPath, key string) string {
	return parent.Append(resource.PathKey(key)).String()
}

func isSecret(v resource.PropertyValue) bool {
	return v.IsSecret() || v.IsOutput() && v.OutputValue().Secret
}

// value renders a property value for a diff line. Secrets, at any depth,
// print as [secret] (PropertyValue.String masks them), unknowns as
// [unknown]; long values are cut.
func value(v resource.PropertyValue) string {
	if isSecret(v) {
		return "[secret]"
	}
	return truncate(v.String(), maxValueWidth)
}
