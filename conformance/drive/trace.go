// Package drive runs a spec.Program through one engine — Pulumi's (v3.220.0,
// in process, as its lifecycle tests drive it) or groundwork — and returns a
// Trace: what each operation reported, what it did to the world, and the
// state it left, normalized so that the two engines' traces compare field
// by field.
//
// Both engines run the same program function (runVersion) over the
// ResourceMonitor gRPC protocol: Pulumi's through its deploytest language
// runtime, groundwork's through its monitor/grpcserver serving the
// deployment's Monitor. Both load the same provider semantics (package
// world) in process.
package drive

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/groundwork-iac/groundwork/conformance/spec"
	"github.com/groundwork-iac/groundwork/conformance/world"
)

// Parallelism is the bound on steps at once given to both engines: above
// any program's size, so that the deletes of one antichain all start.
const Parallelism = 64

// schedule returns the parallelism p's schedule gives both engines, and
// sets the latency of w's provider calls.
func schedule(p *spec.Program, w *world.World) int {
	if p.Schedule == nil {
		return Parallelism
	}
	w.SetLatency(p.Schedule.Latency)
	if p.Schedule.Parallelism > 0 {
		return p.Schedule.Parallelism
	}
	return Parallelism
}

// Trace is what one engine did with one program.
type Trace struct {
	Engine string
	Runs   []Run
}

// Run is one operation: an update of a version, or the destroy.
type Run struct {
	// Name is "up N" (1-based) or "destroy".
	Name string
	// Err is the operation's error, "" on success.
	Err string
	// Failed are the URNs of the resources whose steps failed (skipped
	// steps are not failures), sorted.
	Failed []string
	// Ledger is every physical change made during the operation, in order.
	Ledger []world.Entry
	// State is the state the operation left, sorted by URN, then live
	// records before those marked for deletion, then ID.
	State []Record
	// Before is the state the operation started from.
	Before []Record
	// Live is every physical object after the operation, by ID.
	Live map[string]world.Object
	// Calls are the Checks and Diffs the engine made, in order: when it
	// learned of each registration.
	Calls []world.Call
	// Invalid says why the engine's recorded state is unusable (it failed
	// the engine's own integrity check); the trace ends with this run.
	Invalid string
}

// Record is one recorded resource, normalized: values are strings (the
// string itself, or JSON for anything else), lists are sorted, provider
// IDs are dropped (Pulumi makes them random), timestamps are ignored.
type Record struct {
	URN                  string              `json:"urn"`
	Type                 string              `json:"type"`
	Custom               bool                `json:"custom,omitempty"`
	Delete               bool                `json:"delete,omitempty"`
	ID                   string              `json:"id,omitempty"`
	Inputs               map[string]string   `json:"inputs,omitempty"`
	Outputs              map[string]string   `json:"outputs,omitempty"`
	Parent               string              `json:"parent,omitempty"`
	Protect              bool                `json:"protect,omitempty"`
	RetainOnDelete       bool                `json:"retainOnDelete,omitempty"`
	PendingReplacement   bool                `json:"pendingReplacement,omitempty"`
	External             bool                `json:"external,omitempty"`
	Dependencies         []string            `json:"dependencies,omitempty"`
	PropertyDependencies map[string][]string `json:"propertyDependencies,omitempty"`
	Provider             string              `json:"provider,omitempty"`
	DeletedWith          string              `json:"deletedWith,omitempty"`
	InitErrors           int                 `json:"initErrors,omitempty"`
	// Aliases are the URNs the resource was known by, as the engine
	// recorded them (Pulumi drops them once it has rewritten every
	// reference; groundwork keeps them and resolves references through
	// them). They are not compared: compare uses them to normalize.
	Aliases []string `json:"aliases,omitempty"`
}

// Key identifies a record within a state: URN, whether it is marked for
// deletion, and ID.
func (r *Record) Key() string {
	d := ""
	if r.Delete {
		d = " (delete)"
	}
	return fmt.Sprintf("%s [%s]%s", shortURN(r.URN), r.ID, d)
}

// String renders r as JSON.
func (r *Record) String() string {
	b, _ := json.Marshal(r)
	return string(b)
}

// sortRecords orders a state as Run.State says.
func sortRecords(rs []Record) {
	slices.SortStableFunc(rs, func(a, b Record) int {
		if c := strings.Compare(a.URN, b.URN); c != 0 {
			return c
		}
		if a.Delete != b.Delete {
			if !a.Delete {
				return -1
			}
			return 1
		}
		return strings.Compare(a.ID, b.ID)
	})
}

// value renders one property value: a string as itself, anything else as
// JSON.
func value(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprintf("%v", v)
	}
	return string(b)
}

func sortedSet(urns []string) []string {
	if len(urns) == 0 {
		return nil
	}
	out := slices.Clone(urns)
	slices.Sort(out)
	return slices.Compact(out)
}

func sortedDeps(m map[string][]string) map[string][]string {
	out := map[string][]string{}
	for _, k := range slices.Sorted(maps.Keys(m)) {
		if len(m[k]) > 0 {
			out[k] = sortedSet(m[k])
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// providerURN drops the ID from a provider reference ("<URN>::<ID>").
func providerURN(ref string) string {
	if i := strings.LastIndex(ref, "::"); i >= 0 {
		return ref[:i]
	}
	return ref
}

func shortURN(urn string) string {
	parts := strings.SplitN(urn, "::", 3)
	if len(parts) == 3 {
		return parts[2]
	}
	return urn
}

// isProviderType reports whether typ is a provider resource's type.
func isProviderType(typ string) bool {
	return strings.HasPrefix(typ, "pulumi:providers:")
}

// Describe renders t run by run: the outcome, the physical operations and
// the records left, for reports.
func (t *Trace) Describe() string {
	var b strings.Builder
	fmt.Fprintf(&b, "== %s\n", t.Engine)
	for _, r := range t.Runs {
		fmt.Fprintf(&b, "%s: ", r.Name)
		switch {
		case r.Invalid != "":
			fmt.Fprintf(&b, "invalid state: %s\n", r.Invalid)
		case r.Err != "":
			fmt.Fprintf(&b, "failed: %s\n", r.Err)
		default:
			b.WriteString("succeeded\n")
		}
		for _, e := range r.Ledger {
			fmt.Fprintf(&b, "    %s\n", e)
		}
		for _, s := range r.State {
			fmt.Fprintf(&b, "    | %s\n", s.String())
		}
	}
	return b.String()
}
