// Package world is the model of "the real world" both engines deploy to in
// the conformance suite: a set of physical objects, a ledger of every
// physical create, update and delete (with the URN the engine passed), and
// the failures a program asks to inject. The provider both engines load is
// an adapter around one World (package drive), so its semantics are the
// same in both by construction.
//
// The provider's semantics: Check accepts the inputs as given; Diff
// compares old and new inputs and reports every key whose name starts with
// spec.ReplacePrefix among the replace keys; Create makes an object with a
// deterministic ID (the URN's name and how many objects of that name the
// world has made) and outputs that echo the inputs plus spec.OutKey, a
// digest of the ID and inputs; Update changes the object's inputs and
// recomputes that output; Delete removes the object.
package world

import (
	"fmt"
	"hash/fnv"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/groundwork-iac/groundwork/conformance/spec"
)

// Unknown is the value an engine passes for an input it does not know yet
// (in the Diff of a delete-before-replace's dependents); it differs from
// every value, known or not.
const Unknown = "\x00unknown"

// FailureDelay is how long an injected Delete failure waits before it
// answers, and then until no other call has been in flight for as long:
// deletes of independent resources run in parallel in both engines, and a
// failure cancels those not yet started, so the failure waits for its
// siblings to have started (and ended) before it lets the engine cancel
// anything. The quiet period, rather than a single look, lets a sibling
// whose goroutine is slow to be scheduled (on a busy machine) start.
const FailureDelay = 15 * time.Millisecond

// World is the set of physical objects and the ledger of changes made to
// them. It is safe for concurrent use.
type World struct {
	mu       sync.Mutex
	objects  map[string]*Object
	ledger   []Entry
	made     map[string]int
	run      int
	armed    []spec.Failure
	inFlight int
	// moved is when a call last entered or left.
	moved time.Time
	// latency and calls: see calls.go.
	latency time.Duration
	calls   []Call
}

// Object is one physical object.
type Object struct {
	ID string
	// URN is the URN it was created or last updated under.
	URN     string
	Inputs  map[string]string
	Outputs map[string]string
}

// Entry is one physical operation in the ledger.
type Entry struct {
	// Run is the operation (0-based: the program's versions, then the
	// destroy) the call was made in.
	Run int
	// Op is spec.OpCreate, spec.OpUpdate or spec.OpDelete.
	Op  string
	URN string
	ID  string
	// Failed marks an injected failure: the world did not change.
	Failed bool
	// Missing marks a call on an object that does not exist: an update
	// of something gone (which fails) or a second delete (which the world
	// answers as a success, as most providers do, and the suite reports).
	Missing bool
}

// String renders e for reports.
func (e Entry) String() string {
	s := e.Op + " " + shortURN(e.URN) + " " + e.ID
	if e.Failed {
		s += " (failed)"
	}
	if e.Missing {
		s += " (missing)"
	}
	return s
}

// New returns an empty world.
func New() *World {
	return &World{objects: map[string]*Object{}, made: map[string]int{}}
}

// Begin starts operation run: the failures given are armed, each to fail
// every matching call of the run (two copies of one resource, a live
// record and an old one marked for deletion, are deleted side by side:
// failing only the first call would fail whichever the schedule put
// first).
func (w *World) Begin(run int, failures []spec.Failure) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.run = run
	w.armed = slices.Clone(failures)
}

// Diff reports which input keys changed between olds and news, and which
// of them force a replacement.
func Diff(olds, news map[string]string) (changed, replace []string) {
	keys := map[string]bool{}
	for k := range olds {
		keys[k] = true
	}
	for k := range news {
		keys[k] = true
	}
	for _, k := range slices.Sorted(maps.Keys(keys)) {
		o, inOld := olds[k]
		n, inNew := news[k]
		if inOld == inNew && o == n && n != Unknown {
			continue
		}
		changed = append(changed, k)
		if strings.HasPrefix(k, spec.ReplacePrefix) {
			replace = append(replace, k)
		}
	}
	return changed, replace
}

// Create makes an object for urn with inputs.
func (w *World) Create(urn string, inputs map[string]string) (string, map[string]string, error) {
	if err := w.enter(spec.OpCreate, urn, ""); err != nil {
		return "", nil, err
	}
	defer w.leave()
	w.mu.Lock()
	defer w.mu.Unlock()
	name := urnName(urn)
	w.made[name]++
	id := fmt.Sprintf("%s-%d", name, w.made[name])
	obj := &Object{ID: id, URN: urn, Inputs: maps.Clone(inputs), Outputs: outputs(id, inputs)}
	w.objects[id] = obj
	w.ledger = append(w.ledger, Entry{Run: w.run, Op: spec.OpCreate, URN: urn, ID: id})
	return id, maps.Clone(obj.Outputs), nil
}

// Update sets the inputs of object id.
func (w *World) Update(urn, id string, inputs map[string]string) (map[string]string, error) {
	if err := w.enter(spec.OpUpdate, urn, id); err != nil {
		return nil, err
	}
	defer w.leave()
	w.mu.Lock()
	defer w.mu.Unlock()
	obj := w.objects[id]
	if obj == nil {
		w.ledger = append(w.ledger, Entry{Run: w.run, Op: spec.OpUpdate, URN: urn, ID: id, Missing: true})
		return nil, fmt.Errorf("object %s does not exist", id)
	}
	obj.URN, obj.Inputs, obj.Outputs = urn, maps.Clone(inputs), outputs(id, inputs)
	w.ledger = append(w.ledger, Entry{Run: w.run, Op: spec.OpUpdate, URN: urn, ID: id})
	return maps.Clone(obj.Outputs), nil
}

// Delete removes object id. Deleting an object that does not exist
// succeeds and is marked Missing in the ledger.
func (w *World) Delete(urn, id string) error {
	if err := w.enter(spec.OpDelete, urn, id); err != nil {
		return err
	}
	defer w.leave()
	w.mu.Lock()
	defer w.mu.Unlock()
	_, ok := w.objects[id]
	delete(w.objects, id)
	w.ledger = append(w.ledger, Entry{Run: w.run, Op: spec.OpDelete, URN: urn, ID: id, Missing: !ok})
	return nil
}

// Read returns a copy of object id, or false if it does not exist.
func (w *World) Read(id string) (Object, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	obj := w.objects[id]
	if obj == nil {
		return Object{}, false
	}
	return Object{ID: obj.ID, URN: obj.URN, Inputs: maps.Clone(obj.Inputs), Outputs: maps.Clone(obj.Outputs)}, true
}

// Ledger returns the entries of operation run.
func (w *World) Ledger(run int) []Entry {
	w.mu.Lock()
	defer w.mu.Unlock()
	var out []Entry
	for _, e := range w.ledger {
		if e.Run == run {
			out = append(out, e)
		}
	}
	return out
}

// Live returns every object that exists, by ID.
func (w *World) Live() map[string]Object {
	w.mu.Lock()
	defer w.mu.Unlock()
	out := make(map[string]Object, len(w.objects))
	for id, obj := range w.objects {
		out[id] = Object{ID: obj.ID, URN: obj.URN, Inputs: maps.Clone(obj.Inputs), Outputs: maps.Clone(obj.Outputs)}
	}
	return out
}

// enter counts a call in flight, or fails it if it matches an armed failure:
// the failure is recorded and returned (a delete's after FailureDelay and
// once no other call is in flight).
func (w *World) enter(op, urn, id string) error {
	w.mu.Lock()
	// An object is named by the URN it was created (or last updated)
	// under, not by the one the engine passes: an engine passes a record's
	// later name (the old copy of a renamed resource is deleted under the
	// new URN once the rename has settled), and a failure must hit the
	// same object in both.
	name := urnName(urn)
	if obj := w.objects[id]; obj != nil {
		name = urnName(obj.URN)
	}
	for _, f := range w.armed {
		if f.Op != op || f.Name != name {
			continue
		}
		w.ledger = append(w.ledger, Entry{Run: w.run, Op: op, URN: urn, ID: id, Failed: true})
		w.mu.Unlock()
		if op == spec.OpDelete {
			w.settle()
		}
		return fmt.Errorf("injected failure: %s of %s", op, name)
	}
	w.inFlight++
	w.moved = time.Now()
	if op != spec.OpUpdate {
		w.calls = append(w.calls, Call{Run: w.run, Op: op, URN: urn, ID: id})
	}
	w.mu.Unlock()
	w.pause()
	return nil
}

func (w *World) leave() {
	w.mu.Lock()
	w.inFlight--
	w.moved = time.Now()
	w.mu.Unlock()
}

// settle waits FailureDelay, then until no call has been in flight for
// FailureDelay (bounded, so that a stuck engine is reported by its own
// timeout, not hidden here).
func (w *World) settle() {
	time.Sleep(FailureDelay)
	for deadline := time.Now().Add(2 * time.Second); time.Now().Before(deadline); {
		w.mu.Lock()
		n, quiet := w.inFlight, time.Since(w.moved)
		w.mu.Unlock()
		if n == 0 && quiet >= FailureDelay {
			return
		}
		time.Sleep(time.Millisecond)
	}
}

// outputs are the inputs plus spec.OutKey, a digest of the ID and inputs.
func outputs(id string, inputs map[string]string) map[string]string {
	h := fnv.New32a()
	h.Write([]byte(id))
	for _, k := range slices.Sorted(maps.Keys(inputs)) {
		fmt.Fprintf(h, "\x00%s=%s", k, inputs[k])
	}
	out := maps.Clone(inputs)
	if out == nil {
		out = map[string]string{}
	}
	out[spec.OutKey] = fmt.Sprintf("%s.%08x", id, h.Sum32())
	return out
}

// urnName is the name part of a URN (everything after the last "::").
func urnName(urn string) string {
	if i := strings.LastIndex(urn, "::"); i >= 0 {
		return urn[i+2:]
	}
	return urn
}

// shortURN drops the URN's stack and project.
func shortURN(urn string) string {
	parts := strings.SplitN(urn, "::", 3)
	if len(parts) == 3 {
		return parts[2]
	}
	return urn
}
