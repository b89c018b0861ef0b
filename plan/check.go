package plan

import (
	"fmt"
	"slices"
	"strings"

	"github.com/groundwork-iac/groundwork/providers"
	"github.com/groundwork-iac/groundwork/resource"
)

// Allows reports whether a step of kind actual keeps to a planned step of
// kind planned: the same kind, or a lesser one — a same for a planned
// create or update, a same or an update for a planned replacement. Deletes,
// reads and imports allow only themselves.
func Allows(planned, actual Op) bool {
	if planned == actual {
		return true
	}
	switch planned {
	case OpCreate, OpUpdate:
		return actual == OpSame
	case OpReplace, OpCreateReplacement, OpDeleteReplaced:
		return actual == OpSame || actual == OpUpdate
	}
	return false
}

// Check compares a registration with the goal planned for it. actual holds
// the program's options (see GoalOf), olds the recorded inputs the plan
// compared with (nil for a resource created afresh) and news the checked
// inputs. It returns nil, or a *ViolationError naming the first option
// that changed or every input outside the plan.
func (g *Goal) Check(urn resource.URN, actual *Goal, olds, news resource.PropertyMap) error {
	if option, detail := g.changedOption(actual); option != "" {
		return &ViolationError{URN: urn, Option: option, detail: detail}
	}
	if props := g.Inputs.check(olds, news, false); len(props) > 0 {
		return &ViolationError{URN: urn, Properties: props}
	}
	for k, planned := range g.PropertyDependencies {
		if got, ok := actual.PropertyDependencies[k]; ok {
			if msg := setChange(planned, got); msg != "" {
				return &ViolationError{URN: urn, Option: "dependencies of " + string(k), detail: fmt.Sprintf("the dependencies of input %q changed: %s", k, msg)}
			}
		}
	}
	return nil
}

// CheckOutputs compares the outputs a component (or the stack) registers
// with those planned: olds are the outputs recorded before, news those
// registered now.
func (g *Goal) CheckOutputs(urn resource.URN, olds, news resource.PropertyMap) error {
	if props := g.Outputs.check(olds, news, true); len(props) > 0 {
		return &ViolationError{URN: urn, Properties: props}
	}
	return nil
}

// checkUnplanned compares the registration of a recorded resource the plan
// does not hold with its recorded state: nothing may change, neither an
// option the state records nor an input.
func checkUnplanned(old *resource.State, actual *Goal, news resource.PropertyMap) error {
	g := &Goal{
		Custom: old.Custom, Parent: old.Parent, Provider: old.Provider, Protect: old.Protect,
		RetainOnDelete: old.RetainOnDelete, DeletedWith: old.DeletedWith,
		IgnoreChanges: old.IgnoreChanges, ReplaceOnChanges: old.ReplaceOnChanges,
		AdditionalSecretOutputs: old.AdditionalSecretOutputs, Dependencies: old.Dependencies,
		PropertyDependencies: old.PropertyDependencies, CustomTimeouts: old.CustomTimeouts,
		// The state does not record these: they cannot have changed.
		DeleteBeforeReplace: actual.DeleteBeforeReplace, ImportID: actual.ImportID, Aliases: actual.Aliases,
	}
	return g.Check(old.URN, actual, old.Inputs, news)
}

// changedOption returns the first resource option that differs between
// the planned goal and actual, and a sentence saying how.
func (g *Goal) changedOption(a *Goal) (option, detail string) {
	planned := func(name string, want, got any) (string, string) {
		return name, fmt.Sprintf("%s was planned as %v but is %v", name, want, got)
	}
	switch {
	case g.Custom != a.Custom:
		kind := map[bool]string{true: "a custom resource", false: "a component"}
		return "custom", fmt.Sprintf("it was planned as %s but is %s", kind[g.Custom], kind[a.Custom])
	case !sameProvider(g.Provider, a.Provider):
		return planned("provider", quoted(g.Provider), quoted(a.Provider))
	case g.Parent != a.Parent:
		return planned("parent", quoted(string(g.Parent)), quoted(string(a.Parent)))
	case g.Protect != a.Protect:
		return planned("protect", g.Protect, a.Protect)
	case g.DeleteBeforeReplace != a.DeleteBeforeReplace:
		return planned("deleteBeforeReplace", g.DeleteBeforeReplace, a.DeleteBeforeReplace)
	case g.RetainOnDelete != a.RetainOnDelete:
		return planned("retainOnDelete", g.RetainOnDelete, a.RetainOnDelete)
	case g.DeletedWith != a.DeletedWith:
		return planned("deletedWith", quoted(string(g.DeletedWith)), quoted(string(a.DeletedWith)))
	case g.ImportID != a.ImportID:
		return planned("import", quoted(string(g.ImportID)), quoted(string(a.ImportID)))
	case g.CustomTimeouts != a.CustomTimeouts:
		return planned("customTimeouts", g.CustomTimeouts, a.CustomTimeouts)
	}
	sets := []struct {
		name      string
		want, got []string
	}{
		{"ignoreChanges", g.IgnoreChanges, a.IgnoreChanges},
		{"replaceOnChanges", g.ReplaceOnChanges, a.ReplaceOnChanges},
		{"additionalSecretOutputs", strs(g.AdditionalSecretOutputs), strs(a.AdditionalSecretOutputs)},
		{"dependencies", strs(g.Dependencies), strs(a.Dependencies)},
		{"aliases", aliasStrings(g.Aliases), aliasStrings(a.Aliases)},
	}
	for _, s := range sets {
		if msg := setChange(s.want, s.got); msg != "" {
			return s.name, fmt.Sprintf("%s changed: %s", s.name, msg)
		}
	}
	return "", ""
}

// sameProvider reports whether a provider reference keeps to the planned
// one: equal, or the same provider resource whose ID was unknown when the
// plan was made (it was to be created).
func sameProvider(planned, actual string) bool {
	if planned == actual {
		return true
	}
	p, err1 := providers.ParseReference(planned)
	a, err2 := providers.ParseReference(actual)
	return err1 == nil && err2 == nil && p.URN == a.URN && p.IsUnknown()
}

func quoted(s string) string {
	if s == "" {
		return "none"
	}
	return fmt.Sprintf("%q", s)
}

func strs[T ~string](xs []T) []string {
	out := make([]string, len(xs))
	for i, x := range xs {
		out[i] = string(x)
	}
	return out
}

func aliasStrings(as []resource.Alias) []string {
	out := make([]string, len(as))
	for i, a := range as {
		out[i] = fmt.Sprintf("%+v", a)
	}
	return out
}

// setChange compares two lists as sets and says what was added and
// removed, or "" when they hold the same members.
func setChange[T ~string](want, got []T) string {
	var added, removed []string
	for _, x := range got {
		if !slices.Contains(want, x) && !slices.Contains(added, string(x)) {
			added = append(added, string(x))
		}
	}
	for _, x := range want {
		if !slices.Contains(got, x) && !slices.Contains(removed, string(x)) {
			removed = append(removed, string(x))
		}
	}
	slices.Sort(added)
	slices.Sort(removed)
	var parts []string
	if len(added) > 0 {
		parts = append(parts, "added "+strings.Join(added, ", "))
	}
	if len(removed) > 0 {
		parts = append(parts, "removed "+strings.Join(removed, ", "))
	}
	return strings.Join(parts, "; ")
}

// change is how one key of a property map changes.
type change int

const (
	unset   change = iota // no value before or after
	kept                  // the same value before and after
	added                 // a value where there was none
	updated               // another value
	removed               // no value where there was one
)

// check returns the keys whose change from olds to news the diff does not
// allow, in key order.
func (d Diff) check(olds, news resource.PropertyMap, outputs bool) []PropertyViolation {
	keys := map[resource.PropertyKey]bool{}
	for _, m := range []resource.PropertyMap{olds, news, d.Adds, d.Updates} {
		for k := range m {
			keys[k] = true
		}
	}
	for _, k := range d.Deletes {
		keys[k] = true
	}
	var out []PropertyViolation
	for _, k := range sortedKeys(keys) {
		o, n := olds[k], news[k]
		actual := classify(o, n)
		planned, want := d.planned(k)
		if allowed(planned, want, actual, n) {
			continue
		}
		if want.ContainsSecrets() || o.ContainsSecrets() {
			// A value planned (or recorded) secret stays masked even
			// where the program now passes it plainly.
			n = resource.NewSecret(n)
		}
		out = append(out, PropertyViolation{Key: k, Output: outputs,
			Planned: describePlanned(planned, want), Actual: describeActual(actual, n)})
	}
	return out
}

func sortedKeys(set map[resource.PropertyKey]bool) []resource.PropertyKey {
	out := make([]resource.PropertyKey, 0, len(set))
	for k := range set {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// planned returns how the diff plans key k to change, and the value it
// plans for an add or update.
func (d Diff) planned(k resource.PropertyKey) (change, resource.PropertyValue) {
	if v, ok := d.Adds[k]; ok {
		return added, v
	}
	if v, ok := d.Updates[k]; ok {
		return updated, v
	}
	if slices.Contains(d.Deletes, k) {
		return removed, resource.PropertyValue{}
	}
	return kept, resource.PropertyValue{}
}

// classify says how a key changes from o to n; a missing key reads as the
// zero value, a null. An unknown value on either side counts as kept.
func classify(o, n resource.PropertyValue) change {
	hasO, hasN := !o.IsNull(), !n.IsNull()
	switch {
	case !hasO && !hasN:
		return unset
	case !hasO:
		return added
	case !hasN:
		return removed
	case matches(o, n):
		return kept
	}
	return updated
}

// allowed decides one key: planned is what the plan says (kept for a key
// it does not name), want the planned value of an add or update, actual
// how the key changes now and n its value now.
func allowed(planned change, want resource.PropertyValue, actual change, n resource.PropertyValue) bool {
	switch actual {
	case added:
		return planned == added && matches(want, n)
	case updated:
		// A planned add is kept to by an update to the planned value: the
		// value appeared meanwhile.
		return (planned == updated || planned == added) && matches(want, n)
	case removed:
		// A value planned unknown may have come out as none.
		return planned == removed || (planned == updated && unknown(want))
	case kept:
		switch planned {
		case kept:
			return true
		case added, updated:
			return matches(want, n)
		}
		return false
	default: // unset
		return (planned != added && planned != updated) || unknown(want)
	}
}

// unknown reports whether a planned value was unknown when the plan was
// made, and so may come out as no value at all.
func unknown(v resource.PropertyValue) bool {
	switch v.Kind() {
	case resource.KindUnknown:
		return true
	case resource.KindOutput:
		return !v.OutputValue().Known
	case resource.KindSecret:
		return unknown(v.SecretElement())
	}
	return false
}

// matches reports whether actual keeps to the planned value: an unknown
// (on either side, at any depth) matches anything, and everything else
// must be equal — an object member planned unknown may be missing, a
// secret must stay secret.
func matches(planned, actual resource.PropertyValue) bool {
	if unknown(planned) && planned.Kind() != resource.KindSecret || isUnknownValue(actual) {
		return true
	}
	planned, actual = known(planned), known(actual)
	switch planned.Kind() {
	case resource.KindSecret:
		return actual.Kind() == resource.KindSecret && matches(planned.SecretElement(), actual.SecretElement())
	case resource.KindArray:
		if actual.Kind() != resource.KindArray {
			return false
		}
		p, a := planned.ArrayValue(), actual.ArrayValue()
		return len(p) == len(a) && arraysMatch(p, a)
	case resource.KindObject:
		return actual.Kind() == resource.KindObject && mapsMatch(planned.ObjectValue(), actual.ObjectValue())
	case resource.KindResourceReference:
		if actual.Kind() != resource.KindResourceReference {
			return false
		}
		p, a := planned.ResourceReferenceValue(), actual.ResourceReferenceValue()
		return p.URN == a.URN && (p.IDUnknown || a.IDUnknown || p.ID == a.ID)
	}
	return planned.DeepEquals(actual)
}

func arraysMatch(p, a []resource.PropertyValue) bool {
	for i := range p {
		if !matches(p[i], a[i]) {
			return false
		}
	}
	return true
}

func mapsMatch(p, a resource.PropertyMap) bool {
	for k, pv := range p {
		av, ok := a[k]
		if !ok {
			if !pv.IsNull() && !unknown(pv) {
				return false
			}
			continue
		}
		if !matches(pv, av) {
			return false
		}
	}
	for k, av := range a {
		if _, ok := p[k]; !ok && !av.IsNull() {
			return false
		}
	}
	return true
}

// isUnknownValue reports whether an actual value is unknown (a preview
// checked against a plan).
func isUnknownValue(v resource.PropertyValue) bool {
	return v.Kind() == resource.KindUnknown || v.Kind() == resource.KindOutput && !v.OutputValue().Known
}

// known unwraps a known output to its element, secret when the output is.
func known(v resource.PropertyValue) resource.PropertyValue {
	if v.Kind() != resource.KindOutput {
		return v
	}
	o := v.OutputValue()
	if o.Secret {
		return resource.NewSecret(o.Element)
	}
	return o.Element
}

func describePlanned(c change, v resource.PropertyValue) string {
	switch c {
	case added:
		return fmt.Sprintf("to be set to %v", v)
	case updated:
		return fmt.Sprintf("to change to %v", v)
	case removed:
		return "to be removed"
	}
	return "unchanged"
}

func describeActual(c change, v resource.PropertyValue) string {
	switch c {
	case added:
		return fmt.Sprintf("is newly set to %v", v)
	case updated:
		return fmt.Sprintf("changes to %v", v)
	case removed:
		return "is removed"
	case kept:
		return fmt.Sprintf("is %v", v)
	}
	return "is not set"
}
