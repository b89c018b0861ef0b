package storetest

import (
	"context"
	"strconv"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/groundwork-iac/groundwork/resource"
	"github.com/groundwork-iac/groundwork/state"
	"github.com/groundwork-iac/groundwork/state/secrets"
)

// Harness describes a store to Run: how to open clients of it, and how to
// reach the bytes it keeps for a stack's snapshot and journal.
type Harness struct {
	// Open returns a new client of the store under test: a Store over the
	// same storage as every other one Open returns within this Run, as a
	// separate process would open it, holding none of the others' locks
	// or journals. It applies opts in order after any defaults of its
	// own. Run opens many; Open should close each when the test ends.
	// Required.
	Open func(t *testing.T, opts ...state.Option) state.Store
	// Snapshot returns the bytes the store keeps as the stack's snapshot,
	// or nil if it keeps none. Required.
	Snapshot func(t *testing.T, stack state.StackID) []byte
	// SetSnapshot replaces the stack's snapshot bytes, as a damaged disk
	// or a careless edit might. Required.
	SetSnapshot func(t *testing.T, stack state.StackID, data []byte)
	// Journal returns the bytes of the stack's journal: everything
	// appended since it was last restarted, in order; nil if there is
	// none. Required.
	Journal func(t *testing.T, stack state.StackID) []byte
	// SetJournal replaces the stack's journal with data (nil removes it),
	// as a crash in the middle of a write or a damaged disk might leave
	// it. Required.
	SetJournal func(t *testing.T, stack state.StackID, data []byte)
	// Expire makes the stack's lock lapse as if its holder had stopped
	// renewing it (a crashed or stalled process), so that another client
	// may take the stack over. Nil for stores whose locks do not expire;
	// Run then skips the lease and fencing checks.
	Expire func(t *testing.T, stack state.StackID)
}

// Run runs the conformance suite against the store h describes, each check
// a subtest. Every check works on stacks of its own, so the store need not
// be empty, and leaves its stacks unlocked.
func Run(t *testing.T, h Harness) {
	t.Helper()
	if h.Open == nil || h.Snapshot == nil || h.SetSnapshot == nil || h.Journal == nil || h.SetJournal == nil {
		t.Fatal("storetest: the Harness needs Open, Snapshot, SetSnapshot, Journal and SetJournal")
	}
	s := &suite{h: h}
	for _, c := range []struct {
		name string
		run  func(*testing.T)
	}{
		{"LoadMissingStack", s.loadMissingStack},
		{"SaveLoadRoundTrip", s.saveLoadRoundTrip},
		{"SaveRefusesBrokenSnapshot", s.saveRefusesBrokenSnapshot},
		{"LoadRefusesDamagedSnapshot", s.loadRefusesDamagedSnapshot},
		{"WrongPassphrase", s.wrongPassphrase},
		{"NoSecretPlaintext", s.noSecretPlaintext},
		{"JournalReplayAfterCrash", s.journalReplayAfterCrash},
		{"TornFinalEntry", s.tornFinalEntry},
		{"DamagedJournal", s.damagedJournal},
		{"EditedJournal", s.editedJournal},
		{"StaleJournal", s.staleJournal},
		{"EditedSnapshotUnderJournal", s.editedSnapshotUnderJournal},
		{"JournalWithoutSnapshot", s.journalWithoutSnapshot},
		{"CompactionMidOperation", s.compactionMidOperation},
		{"ConcurrentAppends", s.concurrentAppends},
		{"JournalRules", s.journalRules},
		{"LockContention", s.lockContention},
		{"LockRace", s.lockRace},
		{"UnlockClosesJournal", s.unlockClosesJournal},
		{"LeaseExpiryAndFencing", s.leaseExpiryAndFencing},
		{"ListAndRemove", s.listAndRemove},
		{"BadStackNames", s.badStackNames},
		{"TwoProjectsOneStackName", s.twoProjects},
		{"History", s.history},
		{"LongHistory", s.longHistory},
	} {
		t.Run(c.name, c.run)
	}
}

type suite struct{ h Harness }

// passphrase protects the secrets of every stack the suite writes; a low
// iteration count keeps key derivation cheap.
const passphrase = "storetest: correct horse battery staple"

func suiteSecrets() state.Option {
	return state.WithSecrets(state.PassphraseSecrets(passphrase, secrets.WithIterations(1000)))
}

// open returns a new client with the suite's secrets, then opts.
func (s *suite) open(t *testing.T, opts ...state.Option) state.Store {
	t.Helper()
	st := s.h.Open(t, append([]state.Option{suiteSecrets()}, opts...)...)
	if st == nil {
		t.Fatal("storetest: Harness.Open returned nil")
	}
	return st
}

func bg() context.Context { return context.Background() }

// The stacks the checks build: a provider and custom resources managed by
// it.

func urnOf(typ, name string) resource.URN {
	return resource.NewURN("dev", "storetest", "", typ, name)
}

func newProvider(name, id string) *resource.State {
	const typ = "pulumi:providers:test"
	return &resource.State{Type: typ, URN: urnOf(typ, name), Custom: true, ID: resource.ID(id)}
}

func newThing(name string, prov *resource.State, deps ...resource.URN) *resource.State {
	const typ = "test:index:Thing"
	return &resource.State{
		Type: typ, URN: urnOf(typ, name), Custom: true, ID: resource.ID(name + "-id"),
		Provider:     string(prov.URN) + "::" + string(prov.ID),
		Dependencies: deps,
		Inputs:       resource.PropertyMap{"name": resource.NewString(name)},
		Outputs: resource.PropertyMap{
			"name": resource.NewString(name),
			"arn":  resource.NewString("arn:" + name),
			"size": resource.NewNumber(float64(len(name))),
		},
	}
}

// chain returns a provider followed by n things, each depending on the
// one before.
func chain(n int) *state.Snapshot {
	p := newProvider("default", "p1")
	snap := &state.Snapshot{Resources: []*resource.State{p}}
	var prev []resource.URN
	for i := range n {
		r := newThing("t"+strconv.Itoa(i), p, prev...)
		snap.Resources = append(snap.Resources, r)
		prev = []resource.URN{r.URN}
	}
	return snap
}

// snapshotOpts compare snapshots by content: empty and nil are the same,
// manifests and secrets states are ignored, and property values are
// compared exactly.
var snapshotOpts = cmp.Options{
	cmpopts.EquateEmpty(),
	cmpopts.IgnoreFields(state.Snapshot{}, "Manifest", "Secrets"),
	cmp.Comparer(func(a, b resource.PropertyValue) bool {
		return a.DeepEquals(b) && a.String() == b.String()
	}),
}

func names(snap *state.Snapshot) []string {
	var out []string
	for _, r := range snap.Resources {
		out = append(out, r.URN.Name())
	}
	return out
}

func pendingOf(snap *state.Snapshot) []string {
	var out []string
	for _, op := range snap.PendingOperations {
		out = append(out, string(op.Kind)+" "+op.Resource.URN.Name())
	}
	return out
}

func mustLoad(t *testing.T, st state.Store, stack state.StackID) *state.Snapshot {
	t.Helper()
	snap, err := st.Load(bg(), stack)
	if err != nil {
		t.Fatalf("Load(%q): %v", stack, err)
	}
	return snap
}

func mustSave(t *testing.T, st state.Store, stack state.StackID, snap *state.Snapshot) {
	t.Helper()
	if err := st.Save(bg(), stack, snap); err != nil {
		t.Fatalf("Save(%q): %v", stack, err)
	}
}

// mustLock locks the stack and unlocks it when the test ends, if the test
// did not.
func mustLock(t *testing.T, st state.Store, stack state.StackID) state.Lock {
	t.Helper()
	l, err := st.Lock(bg(), stack, "update")
	if err != nil {
		t.Fatalf("Lock(%q): %v", stack, err)
	}
	t.Cleanup(func() { _ = l.Unlock(bg()) })
	return l
}

func mustOpenJournal(t *testing.T, st state.Store, stack state.StackID, base *state.Snapshot) state.Journal {
	t.Helper()
	j, err := st.OpenJournal(bg(), stack, base)
	if err != nil {
		t.Fatalf("OpenJournal(%q): %v", stack, err)
	}
	t.Cleanup(func() { _ = j.Close(bg()) })
	return j
}

func mustAppend(t *testing.T, j state.Journal, e state.Entry) uint64 {
	t.Helper()
	seq, err := j.Append(bg(), e)
	if err != nil {
		t.Fatalf("Append(%s): %v", e.Kind, err)
	}
	return seq
}

func begin(t *testing.T, j state.Journal, op resource.OperationKind, old, new *resource.State) uint64 {
	t.Helper()
	return mustAppend(t, j, state.Entry{Kind: state.EntryBegin, Op: op, Old: old, New: new})
}

// create records a whole create step: begin, then success.
func create(t *testing.T, j state.Journal, r *resource.State) {
	t.Helper()
	seq := begin(t, j, resource.OperationCreating, nil, r)
	mustAppend(t, j, state.Entry{Kind: state.EntrySuccess, Begin: seq, New: r})
}

func mustCommit(t *testing.T, j state.Journal) *state.Snapshot {
	t.Helper()
	snap, err := j.Commit(bg())
	if err != nil {
		t.Fatalf("Journal.Commit: %v", err)
	}
	return snap
}

func mustSnapshot(t *testing.T, j state.Journal) *state.Snapshot {
	t.Helper()
	snap, err := j.Snapshot()
	if err != nil {
		t.Fatalf("Journal.Snapshot: %v", err)
	}
	return snap
}

// id names one of the suite's stacks, of project "storetest".
func id(stack string) state.StackID { return state.StackID{Project: "storetest", Stack: stack} }
