package state

import (
	"fmt"

	"github.com/groundwork-iac/groundwork/resource"
)

// Fold is the pure state machine behind every Journal: it starts from a
// base snapshot and applies entries one at a time, each in time
// proportional to the entry, never to the stack. It does no I/O, starts no
// goroutines and is not safe for concurrent use; a store wraps it with
// persistence and locking. Every store — file, memory, or a future remote
// one — replays its records through a Fold, so they all agree on what a
// journal means.
type Fold struct {
	manifest Manifest
	secrets  *SecretsState

	slots []*slot // resources in recorded order; nil marks a removed one
	holes int
	// byURN holds the first slot indexed for each URN; the others with
	// that URN (rarely more than one: a copy marked Delete beside a live
	// one) follow through slot.next, in the order they were indexed.
	byURN map[resource.URN]*slot
	slab  []slot // slots not yet used, allocated in batches
	// byAlias counts the records that list a URN among their aliases: a
	// reference to a renamed resource's old URN resolves through them.
	byAlias map[resource.URN]int
	// providerAliases counts, by old URN and ID, the provider records that
	// list that URN among their aliases: a provider reference written
	// before a provider was renamed resolves through them.
	providerAliases map[providerKey]int

	pending      []*pendingSlot // pending operations in begin order; nil marks a cleared one
	pendingHoles int
	bySeq        map[uint64]*pendingSlot
	pendingSlab  []pendingSlot

	lastSeq uint64
}

// copies counts the recorded copies of a URN, and the live ones among them.
type copies struct{ all, live int }

func (c copies) add(s *resource.State, n int) copies {
	c.all += n
	if !s.Delete {
		c.live += n
	}
	return c
}

type slot struct {
	state *resource.State
	pos   int
	next  *slot // the next slot with the same URN, in indexed order
}

// slabSize is how many slots (or pending slots) a fold allocates at once.
const slabSize = 128

type pendingSlot struct {
	op  resource.Operation
	seq uint64 // the Begin's Seq; 0 for operations inherited from the base
	pos int
}

// InFlight ties a step that is still running to the pending operation that
// stands for it in a checkpointed snapshot: the step's EntryBegin had Seq,
// and it is PendingOperations[Pending]. A journal restarted from that
// snapshot needs the tie to match the step's later end entry.
type InFlight struct {
	Seq     uint64
	Pending int
}

// NewFold starts a fold from base. lastSeq is the Seq of the last entry
// already folded into base (0 for none); entries applied later must have
// greater Seqs. inFlight names the pending operations of base that are
// still-running steps (see InFlight); the others are inherited from
// earlier runs and can only be dropped by EntryClearPending.
func NewFold(base *Snapshot, lastSeq uint64, inFlight []InFlight) (*Fold, error) {
	if base == nil {
		base = &Snapshot{}
	}
	f := &Fold{
		manifest:        base.Manifest,
		secrets:         base.Secrets,
		slots:           make([]*slot, 0, len(base.Resources)),
		byURN:           make(map[resource.URN]*slot, len(base.Resources)),
		byAlias:         make(map[resource.URN]int),
		providerAliases: make(map[providerKey]int),
		bySeq:           make(map[uint64]*pendingSlot),
		lastSeq:         lastSeq,
	}
	for _, r := range base.Resources {
		if r == nil {
			return nil, fmt.Errorf("the base snapshot holds an empty resource entry")
		}
		f.addSlot(r)
	}
	for _, op := range base.PendingOperations {
		if op.Resource == nil {
			return nil, fmt.Errorf("the base snapshot holds a pending operation without a resource")
		}
		f.addPending(op, 0)
	}
	for _, fl := range inFlight {
		if fl.Pending < 0 || fl.Pending >= len(f.pending) || fl.Seq == 0 || fl.Seq > lastSeq {
			return nil, fmt.Errorf("in-flight step %d points at pending operation %d, which does not exist", fl.Seq, fl.Pending)
		}
		p := f.pending[fl.Pending]
		if p.seq != 0 || f.bySeq[fl.Seq] != nil {
			return nil, fmt.Errorf("in-flight step %d or pending operation %d is named twice", fl.Seq, fl.Pending)
		}
		p.seq = fl.Seq
		f.bySeq[fl.Seq] = p
	}
	return f, nil
}

// LastSeq returns the Seq of the last entry applied (or the lastSeq given
// to NewFold).
func (f *Fold) LastSeq() uint64 { return f.lastSeq }

// SetManifest sets the manifest of the snapshots the fold makes from now
// on (a journal does when it writes a new snapshot).
func (f *Fold) SetManifest(m Manifest) { f.manifest = m }

// SetPendingResource sets the resource of the pending operation that the
// begin entry seq opened, if it is still pending. A replay that folds
// entries without reading their values fills in this way the operations
// that never ended.
func (f *Fold) SetPendingResource(seq uint64, r *resource.State) {
	if p := f.bySeq[seq]; p != nil {
		p.op.Resource = r
	}
}

// Apply folds one entry in. e.Seq must be greater than every Seq applied
// before. An entry that does not fit — an end whose begin is unknown, an Old
// that is not recorded, a malformed entry, or a resource that would break
// an integrity rule once recorded (see EntryError) — is rejected with an
// *EntryError and leaves the fold unchanged.
func (f *Fold) Apply(e Entry) error { return f.apply(&e, false) }

// ApplyKnown is Apply for an entry whose caller has established that the
// resources it records hold no unknown values (an encoder or decoder
// notices unknowns as it passes them), which spares searching the
// property maps again. Unlike Apply, it keeps e itself rather than a copy.
func (f *Fold) ApplyKnown(e *Entry) error { return f.apply(e, true) }

// apply is Apply, or ApplyKnown with knownValues set.
func (f *Fold) apply(e *Entry, knownValues bool) error {
	if err := e.Validate(); err != nil {
		return err
	}
	reject := func(format string, args ...any) error {
		return &EntryError{Kind: e.Kind, Seq: e.Seq, Reason: fmt.Sprintf(format, args...)}
	}
	if e.Seq <= f.lastSeq {
		return reject("its Seq is not after the last applied entry's (%d)", f.lastSeq)
	}
	// Resolve everything first, so a rejected entry changes nothing.
	var p *pendingSlot
	if e.Kind == EntrySuccess || e.Kind == EntryFailure {
		if p = f.bySeq[e.Begin]; p == nil {
			return reject("no running step began at Seq %d", e.Begin)
		}
	}
	var at *slot
	if e.Old != nil && (e.Kind == EntrySuccess || e.Kind == EntryWrite) {
		if at = f.find(e.Old.URN, e.Old.ID, e.Old.Delete); at == nil {
			return reject("Old (%s, id %q, delete=%t) is not recorded", e.Old.URN, e.Old.ID, e.Old.Delete)
		}
	}
	if len(e.With) > 0 {
		return f.applyWith(e, p, at)
	}
	if e.New != nil && (e.Kind == EntrySuccess || e.Kind == EntryWrite) {
		if err := f.checkRecordable(e.New, at, knownValues); err != nil {
			return &EntryError{Kind: e.Kind, Seq: e.Seq, Reason: err.Error(), Err: err}
		}
	}
	var pendingRes *resource.State
	if e.Kind == EntryBegin {
		if pendingRes = e.New; pendingRes == nil {
			pendingRes = e.Old
		}
		// A pending operation is recorded too, so it may hold no unknowns.
		if !knownValues {
			if err := checkUnknowns(pendingRes); err != nil {
				return &EntryError{Kind: e.Kind, Seq: e.Seq, Reason: err.Error(), Err: err}
			}
		}
	}
	switch e.Kind {
	case EntryBegin:
		f.addPending(resource.Operation{Resource: pendingRes, Kind: e.Op}, e.Seq)
	case EntrySuccess:
		f.removePending(p)
		f.change(at, e)
	case EntryFailure:
		f.removePending(p)
	case EntryWrite:
		f.change(at, e)
	case EntryClearPending:
		r := e.Old
		if r == nil {
			r = e.New
		}
		q := f.inherited(r.URN, e.Op)
		if q == nil {
			return reject("no pending %s operation on %s is inherited from an earlier run", e.Op, r.URN)
		}
		f.removePending(q)
	}
	f.lastSeq = e.Seq
	return nil
}

// applyWith applies an entry that removes Old (at) and the records listed
// in With together (validate has checked its shape: a success or a write,
// New nil). Every record must be recorded, and each is removed once: the
// batch is resolved as a whole before anything changes, in O(len(With)),
// so a rejected entry changes nothing.
func (f *Fold) applyWith(e *Entry, p *pendingSlot, at *slot) error {
	with := e.With
	taken := make(map[*slot]bool, len(with)+1)
	taken[at] = true
	slots := make([]*slot, len(with))
	for i, w := range with {
		s := f.byURN[w.URN]
		for s != nil && (taken[s] || s.state.ID != w.ID || s.state.Delete != w.Delete) {
			s = s.next // another copy, or a copy already taken
		}
		if s == nil {
			return &EntryError{Kind: e.Kind, Seq: e.Seq, Reason: fmt.Sprintf(
				"%s (id %q, delete=%t), listed to leave with Old, is not recorded, or is listed twice", w.URN, w.ID, w.Delete)}
		}
		taken[s] = true
		slots[i] = s
	}
	if p != nil {
		f.removePending(p)
	}
	f.mutate(at, e.Old, nil)
	for _, s := range slots {
		f.remove(s)
	}
	f.lastSeq = e.Seq
	return nil
}

// checkRecordable applies the integrity rules to a resource about to be
// recorded in place of the one in slot at (nil for none): everything it
// refers to must be recorded, its provider reference must name a recorded
// provider, and it must hold no unknowns. Rejecting such an entry at once
// keeps a journal from ever holding a state that cannot be committed. It
// costs O(size of the resource).
func (f *Fold) checkRecordable(r *resource.State, at *slot, knownValues bool) error {
	return checkResource(r, refScope{
		// A copy marked Delete never duplicates a live one: the snapshot
		// order puts it before the live copy of its URN.
		live:        func(u resource.URN) bool { return !r.Delete && f.copiesBesides(u, at).live > 0 },
		seen:        func(u resource.URN) bool { return f.recordedBesides(u, at) },
		provider:    f.providerRecorded,
		knownValues: knownValues,
	})
}

// copiesBesides counts the recorded copies of u other than the one in slot
// at (the copy being replaced; nil for none).
func (f *Fold) copiesBesides(u resource.URN, at *slot) copies {
	var c copies
	for s := f.byURN[u]; s != nil; s = s.next {
		if s != at {
			c = c.add(s.state, 1)
		}
	}
	return c
}

// recordedBesides reports whether a reference to u resolves to a record
// other than the one in slot at: one holding u as its URN or, failing
// that, one listing it among its aliases.
func (f *Fold) recordedBesides(u resource.URN, at *slot) bool {
	return f.copiesBesides(u, at).all > 0 || f.aliasRecorded(u, at)
}

// aliasRecorded reports whether a record other than the one in slot at
// (nil for none) lists u among the URNs it was known by: a reference to a
// renamed resource's old URN resolves to it, as it does in the snapshot
// order and its integrity check. A record may still name the old URN
// whether the rename has been recorded yet or not (a delete-before-replace
// leaves a dependent's old record pending, references and all), so both
// must be accepted. It costs O(aliases of at).
func (f *Fold) aliasRecorded(u resource.URN, at *slot) bool {
	n := f.byAlias[u]
	if n > 0 && at != nil {
		for _, a := range at.state.Aliases {
			if a == u {
				n-- // the record being replaced
			}
		}
	}
	return n > 0
}

// providerRecorded reports whether a provider resource with this URN and ID
// is recorded (live or marked Delete), or a provider resource with this ID
// that was renamed from this URN (lists it among its aliases).
func (f *Fold) providerRecorded(u resource.URN, id resource.ID) bool {
	for _, del := range []bool{false, true} {
		if s := f.find(u, id, del); s != nil && s.state.IsProvider() {
			return true
		}
	}
	return f.providerAliases[providerKey{urn: u, id: id}] > 0
}

// find returns the first slot indexed with this URN, ID and Delete flag.
func (f *Fold) find(u resource.URN, id resource.ID, del bool) *slot {
	for s := f.byURN[u]; s != nil; s = s.next {
		if s.state.ID == id && s.state.Delete == del {
			return s
		}
	}
	return nil
}

// change applies a success's or a write's Old→New to the record in slot
// at: in place, or, when the entry condemns Old, by marking that record
// Delete where it stands and recording New after it.
func (f *Fold) change(at *slot, e *Entry) {
	if !e.Condemn {
		f.mutate(at, e.Old, e.New)
		return
	}
	condemned := *at.state
	condemned.Delete = true
	f.mutate(at, at.state, &condemned)
	f.addSlot(e.New)
}

// mutate records new in place of old: in old's slot when they share a URN,
// else old is removed and new appended.
func (f *Fold) mutate(at *slot, old, new *resource.State) {
	if at != nil && new != nil && new.URN == old.URN {
		if at.next == nil && f.byURN[at.state.URN] == at && len(at.state.Aliases)+len(new.Aliases) == 0 {
			// The only copy indexed for its URN, with no aliases:
			// unindexing and indexing it again would leave the index as it
			// is.
			at.state = new
			return
		}
		f.unindex(at)
		at.state = new
		f.index(at)
		return
	}
	if at != nil {
		f.remove(at)
	}
	if new != nil {
		f.addSlot(new)
	}
}

// remove drops the record in slot s.
func (f *Fold) remove(s *slot) {
	f.unindex(s)
	f.slots[s.pos] = nil
	s.state = nil // the slab that holds the slot must not keep the state alive
	f.holes++
	f.compactSlots()
}

func (f *Fold) addSlot(r *resource.State) {
	if len(f.slab) == 0 {
		f.slab = make([]slot, slabSize)
	}
	s := &f.slab[0]
	f.slab = f.slab[1:]
	*s = slot{state: r, pos: len(f.slots)}
	f.slots = append(f.slots, s)
	f.index(s)
}

func (f *Fold) index(s *slot) {
	if len(s.state.Aliases) > 0 {
		f.indexAliases(s.state, 1)
	}
	head := f.byURN[s.state.URN]
	if head == nil {
		f.byURN[s.state.URN] = s
		return
	}
	for head.next != nil {
		head = head.next
	}
	head.next = s
}

func (f *Fold) unindex(s *slot) {
	if len(s.state.Aliases) > 0 {
		f.indexAliases(s.state, -1)
	}
	u := s.state.URN
	head := f.byURN[u]
	if head == s {
		if s.next == nil {
			delete(f.byURN, u)
		} else {
			f.byURN[u] = s.next
		}
	} else {
		for head != nil && head.next != s {
			head = head.next
		}
		if head != nil {
			head.next = s.next
		}
	}
	s.next = nil
}

// indexAliases adds n (1 or -1) to the counts of the URNs r was known by,
// and for a provider record to those of the references it answers for.
func (f *Fold) indexAliases(r *resource.State, n int) {
	provider := r.IsProvider()
	for _, a := range r.Aliases {
		if f.byAlias[a] += n; f.byAlias[a] <= 0 {
			delete(f.byAlias, a)
		}
		if provider {
			k := providerKey{urn: a, id: r.ID}
			if f.providerAliases[k] += n; f.providerAliases[k] <= 0 {
				delete(f.providerAliases, k)
			}
		}
	}
}

// compactSlots drops removed slots once they are the majority, so removals
// cost amortized O(1) and the slice stays proportional to the stack.
func (f *Fold) compactSlots() {
	if f.holes < 64 || f.holes*2 < len(f.slots) {
		return
	}
	live := f.slots[:0]
	for _, s := range f.slots {
		if s != nil {
			s.pos = len(live)
			live = append(live, s)
		}
	}
	clear(f.slots[len(live):])
	f.slots, f.holes = live, 0
}

func (f *Fold) addPending(op resource.Operation, seq uint64) {
	if len(f.pendingSlab) == 0 {
		f.pendingSlab = make([]pendingSlot, slabSize)
	}
	p := &f.pendingSlab[0]
	f.pendingSlab = f.pendingSlab[1:]
	*p = pendingSlot{op: op, seq: seq, pos: len(f.pending)}
	f.pending = append(f.pending, p)
	if seq != 0 {
		f.bySeq[seq] = p
	}
}

func (f *Fold) removePending(p *pendingSlot) {
	if p.seq != 0 {
		delete(f.bySeq, p.seq)
	}
	f.pending[p.pos] = nil
	p.op = resource.Operation{} // the slab that holds p must not keep the state alive
	f.pendingHoles++
	if f.pendingHoles < 64 || f.pendingHoles*2 < len(f.pending) {
		return
	}
	live := f.pending[:0]
	for _, q := range f.pending {
		if q != nil {
			q.pos = len(live)
			live = append(live, q)
		}
	}
	clear(f.pending[len(live):])
	f.pending, f.pendingHoles = live, 0
}

// inherited finds the first pending operation of kind op on urn that no
// running step owns. It scans the pending operations, which are few.
func (f *Fold) inherited(urn resource.URN, op resource.OperationKind) *pendingSlot {
	for _, p := range f.pending {
		if p != nil && p.seq == 0 && p.op.Kind == op && p.op.Resource.URN == urn {
			return p
		}
	}
	return nil
}

// Snapshot materializes the fold: the live resources in a stable dependency
// order (see sortResources) and the pending operations in the order their
// steps began. It costs O(stack); the snapshot shares resource states with
// the fold.
func (f *Fold) Snapshot() *Snapshot {
	s, _ := f.materialize()
	return s
}

// Checkpoint is Snapshot plus the in-flight steps among its pending
// operations. It also adopts the snapshot's order as the fold's own, so a
// fold restarted from the snapshot (NewFold with the same in-flight list)
// and this fold stay identical from here on.
func (f *Fold) Checkpoint() (*Snapshot, []InFlight) {
	s, inFlight := f.materialize()
	f.reslot(s.Resources)
	return s, inFlight
}

// Settle ends an operation's renames (see settleRenames): references to
// the URNs records were known by name their new URNs, records still held
// under an old URN take the new one, and Aliases are emptied. A journal
// settles its fold when it commits, once every step has ended. It costs
// O(stack) when a record has aliases, nothing otherwise, and reports
// whether anything changed. A settled snapshot that would not pass the
// integrity check (renames left by an operation that ended before it
// committed can combine in ways no single operation makes) is not
// adopted: the records keep their aliases, and references keep resolving
// through them.
func (f *Fold) Settle() bool {
	if len(f.byAlias) == 0 {
		return false
	}
	settled, ok := settleRenames(f.Snapshot().Resources)
	if !ok || (&Snapshot{Resources: settled}).VerifyKnownIntegrity() != nil {
		return false
	}
	f.reslot(settled)
	return true
}

// reslot makes states, in this order, the fold's resources.
func (f *Fold) reslot(states []*resource.State) {
	f.slots = f.slots[:0]
	f.holes = 0
	clear(f.byURN)
	clear(f.byAlias)
	clear(f.providerAliases)
	for _, r := range states {
		f.addSlot(r)
	}
}

func (f *Fold) materialize() (*Snapshot, []InFlight) {
	states := make([]*resource.State, 0, len(f.slots)-f.holes)
	for _, s := range f.slots {
		if s != nil {
			states = append(states, s.state)
		}
	}
	var ops []resource.Operation
	var inFlight []InFlight
	for _, p := range f.pending {
		if p == nil {
			continue
		}
		if p.seq != 0 {
			inFlight = append(inFlight, InFlight{Seq: p.seq, Pending: len(ops)})
		}
		ops = append(ops, p.op)
	}
	return &Snapshot{
		Manifest:          f.manifest,
		Secrets:           f.secrets,
		Resources:         sortResources(states),
		PendingOperations: ops,
	}, inFlight
}
