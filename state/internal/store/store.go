package store

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/groundwork-iac/groundwork/state"

	"github.com/groundwork-iac/groundwork/resource"
	"github.com/groundwork-iac/groundwork/state/internal/format"
	"github.com/groundwork-iac/groundwork/state/internal/journal"
	"github.com/groundwork-iac/groundwork/state/secrets"
)

// Store implements state.Store, state.LockBreaker, state.ForceUnlocker
// and state.SecretsProvider over a state.Backend: everything but keeping
// bytes and arbitrating locks, which the backend does.
type Store struct {
	b    state.Backend
	opts state.Options

	mu       sync.Mutex
	held     map[state.StackID]*heldLock     // stack → the lock this store holds on it
	journals map[state.StackID]*stackJournal // open journals
	mgrs     map[state.StackID]cachedManager
	sizes    map[state.StackID]int // size of each stack's last snapshot written
	// loaded is, per stack, the snapshot Load last returned just as the
	// backend holds it; see continuing.
	loaded map[state.StackID]loadedSnapshot
}

// heldLock is a lock this store holds: its token, which every write
// names. Its address identifies it while it is held (see
// loadedSnapshot.lock).
type heldLock struct{ token string }

// loadedSnapshot is a snapshot Load returned as the stack's snapshot file
// holds it (no journal replayed): what the caller got, and the file's
// text (which the snapshot's strings share, so keeping it costs nothing).
type loadedSnapshot struct {
	snap      *state.Snapshot
	resources []*resource.State
	secrets   *state.SecretsState
	pending   []resource.Operation
	data      string
	alg       string // algorithm of the file's "mac" member; "" for none
	// lock is the lock this store held on the stack when Load read the
	// snapshot (nil for none): while the store still holds that very
	// lock, nothing can have written the stack since.
	lock *heldLock
}

// unchanged reports whether base is the very snapshot l records, as Load
// returned it.
func (l *loadedSnapshot) unchanged(base *state.Snapshot) bool {
	return l.snap == base && base.Manifest.Version == state.FormatVersion && base.Secrets == l.secrets &&
		slices.Equal(base.PendingOperations, l.pending) && slices.Equal(base.Resources, l.resources)
}

type cachedManager struct {
	typ, state string
	mgr        secrets.Manager
}

// New returns a Store that keeps its stacks in b, with the settings
// defaults followed by opts.
func New(b state.Backend, defaults state.Options, opts ...state.Option) *Store {
	o := defaults
	for _, opt := range opts {
		opt(&o)
	}
	return &Store{
		b: b, opts: o,
		held: map[state.StackID]*heldLock{}, journals: map[state.StackID]*stackJournal{},
		mgrs: map[state.StackID]cachedManager{}, sizes: map[state.StackID]int{},
		loaded: map[state.StackID]loadedSnapshot{},
	}
}

// Options returns the store's settings.
func (s *Store) Options() state.Options { return s.opts }

func (s *Store) stamp() state.Manifest {
	return state.Manifest{Time: s.opts.Now().UTC(), Version: state.FormatVersion, LibraryVersion: s.opts.LibraryVersion}
}

// manager returns the stack's secrets manager for a recorded state, from
// the cache when it has one for exactly that state. With recorded nil it
// reuses the stack's current manager: the cached one, else the one
// recorded in the stack's snapshot (so a wrong passphrase is caught before
// anything overwrites it), else a fresh one. It returns nil when the store
// has no secrets provider.
func (s *Store) manager(ctx context.Context, stack state.StackID, recorded *state.SecretsState) (secrets.Manager, error) {
	if s.opts.Secrets == nil {
		return nil, nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	cached, ok := s.mgrs[stack]
	if recorded == nil {
		if ok {
			return cached.mgr, nil
		}
		onDisk, err := s.recordedSecrets(ctx, stack)
		if err != nil {
			return nil, err
		}
		recorded = onDisk
	} else if ok && cached.typ == recorded.Type && sameJSON(cached.state, recorded.State) {
		return cached.mgr, nil
	}
	m, err := s.opts.Secrets.SecretsManager(ctx, stack, recorded)
	if err != nil {
		return nil, err
	}
	if m == nil {
		return nil, fmt.Errorf("the secrets provider gave no manager for stack %q", stack)
	}
	s.mgrs[stack] = cachedManager{typ: m.Type(), state: string(m.State()), mgr: m}
	return m, nil
}

func sameJSON(a string, b json.RawMessage) bool {
	if a == string(b) {
		return true
	}
	var x, y bytes.Buffer
	return json.Compact(&x, []byte(a)) == nil && json.Compact(&y, b) == nil && bytes.Equal(x.Bytes(), y.Bytes())
}

// recordedSecrets reads the secrets section of the stack's snapshot, if any.
func (s *Store) recordedSecrets(ctx context.Context, stack state.StackID) (*state.SecretsState, error) {
	data, err := s.b.ReadSnapshot(ctx, stack)
	if err != nil || data == nil {
		return nil, err
	}
	// A malformed file is reported by Load; here it only has no secrets.
	return format.RecordedSecrets(data), nil
}

func (s *Store) opener(stack state.StackID) format.OpenManager {
	return func(ctx context.Context, recorded *state.SecretsState) (secrets.Manager, error) {
		return s.manager(ctx, stack, recorded)
	}
}

// Load implements Store.
func (s *Store) Load(ctx context.Context, stack state.StackID) (*state.Snapshot, error) {
	if err := stack.Check(); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	for attempt := 1; ; attempt++ {
		snap, read, err := s.load(ctx, stack)
		if me := (*state.JournalMismatchError)(nil); attempt < 3 && errors.As(err, &me) && s.rewritten(ctx, stack, read) {
			// A writer replaced the files between the two reads: what
			// was read is no pair the stack ever held. Read them again.
			continue
		}
		return snap, err
	}
}

// storedPair is what Load read of a stack: its journal and its snapshot.
type storedPair struct {
	journal  []byte
	snapshot string
}

// rewritten reports whether the stack's journal or snapshot is no longer
// what Load read.
func (s *Store) rewritten(ctx context.Context, stack state.StackID, read storedPair) bool {
	j, jerr := s.b.ReadJournal(ctx, stack)
	snap, serr := s.b.ReadSnapshot(ctx, stack)
	return jerr == nil && serr == nil && (!bytes.Equal(j, read.journal) || string(snap) != read.snapshot)
}

// readSnapshotText reads the stack's snapshot as a string: straight from a
// backend that can (state.SnapshotTextReader), else as a copy of its
// bytes.
func (s *Store) readSnapshotText(ctx context.Context, stack state.StackID) (text string, found bool, err error) {
	if r, ok := s.b.(state.SnapshotTextReader); ok {
		return r.ReadSnapshotText(ctx, stack)
	}
	data, err := s.b.ReadSnapshot(ctx, stack)
	return string(data), data != nil, err
}

// load reads the stack once: its snapshot with its journal replayed.
func (s *Store) load(ctx context.Context, stack state.StackID) (*state.Snapshot, storedPair, error) {
	// The journal is read first: if a checkpoint replaces both files in
	// between, the journal read follows an older snapshot and Load reads
	// the pair again (see Load).
	var read storedPair
	journalData, err := s.b.ReadJournal(ctx, stack)
	if err != nil {
		return nil, read, err
	}
	read.journal = journalData
	// The snapshot's strings share its text: one copy of the file.
	text, found, err := s.readSnapshotText(ctx, stack)
	if err != nil {
		return nil, read, err
	}
	read.snapshot = text
	if !found {
		if len(journalData) > 0 {
			// Every store writes a stack's snapshot before its journal and
			// removes the journal first: the snapshot was removed by hand.
			return nil, read, &state.JournalMismatchError{Stack: stack, NoSnapshot: true, Restore: s.restoreHint(stack)}
		}
		return &state.Snapshot{Manifest: state.Manifest{Version: state.FormatVersion}}, read, nil
	}
	auth := &format.SnapshotAuth{Stack: stack, Keyed: s.opts.Secrets != nil, Trust: s.opts.TrustUnauthenticated}
	base, unknowns, err := format.DecodeSnapshot(ctx, text, s.opener(stack), auth)
	if err != nil {
		return nil, read, s.damaged(loadError(err, "loading stack %q: %w", stack), stack)
	}
	if err := verify(base, !unknowns); err != nil {
		return nil, read, s.damaged(fmt.Errorf("loading stack %q: the snapshot fails its integrity check (it was not changed; restore a backup or repair it): %w", stack, err), stack)
	}
	if len(journalData) == 0 {
		s.remember(stack, base, text, auth.Alg)
		return base, read, nil
	}
	s.forget(stack)
	mgr, err := s.manager(ctx, stack, base.Secrets)
	if err != nil {
		return nil, read, fmt.Errorf("loading stack %q: %w", stack, err)
	}
	var mac *format.RecordMAC
	if auth.Alg == format.AlgHMAC {
		if mac, err = format.NewRecordMAC(mgr); err != nil {
			return nil, read, err
		}
	}
	snap, err := journal.Replay(ctx, base, text, journalData, mgr, stack, mac)
	if other := (*journal.OtherBaseError)(nil); errors.As(err, &other) {
		if s.replacedSnapshot(ctx, stack, other.Base) {
			// A crash between writing the snapshot and removing the
			// journal: the journal's entries are in the snapshot.
			return base, read, nil
		}
		return nil, read, &state.JournalMismatchError{Stack: stack, Restore: s.restoreHint(stack)}
	}
	if err != nil {
		return nil, read, loadError(err, "loading stack %q: replaying the journal: %w", stack)
	}
	if err := snap.VerifyIntegrity(); err != nil {
		return nil, read, fmt.Errorf("loading stack %q: the snapshot with its journal replayed fails its integrity check (neither file was changed): %w", stack, err)
	}
	return snap, read, nil
}

// replacedSnapshot reports whether base (see format.BaseID) names the
// snapshot the stack's last snapshot write replaced, as kept by a backend
// that keeps it.
func (s *Store) replacedSnapshot(ctx context.Context, stack state.StackID, base string) bool {
	k, ok := s.b.(state.SnapshotKeeper)
	if !ok {
		return false
	}
	prev, err := k.PreviousSnapshot(ctx, stack)
	return err == nil && prev != nil && format.BaseID(prev) == base
}

// restoreHint says how to put back the snapshot the backend keeps, if it
// keeps one.
func (s *Store) restoreHint(stack state.StackID) string {
	if k, ok := s.b.(state.SnapshotKeeper); ok {
		return k.RestoreHint(stack)
	}
	return ""
}

// damaged adds to a damaged snapshot's error how to put back the previous
// one, when the backend keeps it.
func (s *Store) damaged(err error, stack state.StackID) error {
	hint := s.restoreHint(stack)
	var fv *state.FormatVersionError
	if hint == "" || errors.As(err, &fv) || errors.Is(err, secrets.ErrWrongPassphrase) ||
		errors.Is(err, state.ErrNoSecretsManager) || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err // not damage: the snapshot is fine
	}
	if ae := (*state.AuthenticationError)(nil); errors.As(err, &ae) {
		if ae.File == "snapshot" && !ae.Missing {
			ae.Restore = hint
		}
		return err
	}
	return &damagedError{err: err, hint: hint}
}

// damagedError is a snapshot that cannot be loaded, with how to put back
// the previous one.
type damagedError struct {
	err  error
	hint string
}

func (e *damagedError) Error() string { return e.err.Error() + "; " + e.hint }
func (e *damagedError) Unwrap() error { return e.err }

// loadError wraps err with the stack's name, unless err is an
// *AuthenticationError, which names the stack and says what to do itself.
func loadError(err error, format string, stack state.StackID) error {
	if ae := (*state.AuthenticationError)(nil); errors.As(err, &ae) {
		return ae
	}
	return fmt.Errorf(format, stack, err)
}

// remember records that Load returned snap as the snapshot file data holds
// it, authenticated by a "mac" member of algorithm alg ("" for none).
func (s *Store) remember(stack state.StackID, snap *state.Snapshot, data string, alg string) {
	l := loadedSnapshot{snap: snap, resources: slices.Clone(snap.Resources), secrets: snap.Secrets,
		pending: slices.Clone(snap.PendingOperations), data: data, alg: alg}
	s.mu.Lock()
	l.lock = s.held[stack]
	s.loaded[stack] = l
	s.mu.Unlock()
}

func (s *Store) forget(stack state.StackID) {
	s.mu.Lock()
	delete(s.loaded, stack)
	s.mu.Unlock()
}

// continuing returns the bytes of the stack's snapshot file if base is the
// very snapshot Load last returned from that file, unchanged (the same
// resources, pending operations and secrets state, the state of mgr, the
// journal's secrets manager), the file carries the MAC the journal would
// write (so its records are tagged exactly when it is keyed), and the file
// is still the one it was read from. A journal opened on base can then
// continue the file instead of writing the same snapshot again, which for
// a stack of 10,000 resources cost as much as the rest of an unchanged
// rerun (see BENCHMARKS.md).
func (s *Store) continuing(ctx context.Context, stack state.StackID, base *state.Snapshot, mgr secrets.Manager) (string, bool) {
	s.mu.Lock()
	l, ok := s.loaded[stack]
	delete(s.loaded, stack)
	s.mu.Unlock()
	if !ok || !l.unchanged(base) || l.alg != format.MACAlgorithm(mgr) {
		return "", false
	}
	if mgr != nil && (base.Secrets == nil || base.Secrets.Type != mgr.Type() || !sameJSON(string(mgr.State()), base.Secrets.State)) {
		return "", false
	}
	if l.lock != nil && s.stillHeld(ctx, stack, l.lock) {
		// Locked since Load read the file: only this store could have
		// written it, and it has not (a write forgets what Load read).
		return l.data, true
	}
	data, err := s.b.ReadSnapshot(ctx, stack)
	if err != nil || string(data) != l.data {
		return "", false
	}
	return l.data, true
}

// replaceSnapshot writes the stack's snapshot, which empties its journal,
// under the lock whose token is token. What Load last read of it is
// forgotten first: a journal must not continue a snapshot that is being
// replaced.
func (s *Store) replaceSnapshot(ctx context.Context, stack state.StackID, token string, data []byte) error {
	s.forget(stack)
	return s.b.WriteSnapshot(ctx, stack, token, data)
}

// stillHeld reports whether the lock this store holds on the stack is the
// very one lock names, and the backend still holds it.
func (s *Store) stillHeld(ctx context.Context, stack state.StackID, lock *heldLock) bool {
	s.mu.Lock()
	cur := s.held[stack]
	s.mu.Unlock()
	return cur != nil && cur == lock && s.holds(ctx, stack)
}

// verifiedByLoad reports whether base is the very snapshot Load last
// returned for the stack, unchanged: Load checked its integrity already.
func (s *Store) verifiedByLoad(stack state.StackID, base *state.Snapshot) bool {
	s.mu.Lock()
	l, ok := s.loaded[stack]
	s.mu.Unlock()
	return ok && l.unchanged(base)
}

// Save implements Store.
func (s *Store) Save(ctx context.Context, stack state.StackID, snap *state.Snapshot) (err error) {
	if err := stack.Check(); err != nil {
		return err
	}
	if snap == nil {
		return errors.New("Save needs a snapshot")
	}
	if err := snap.VerifyIntegrity(); err != nil {
		return fmt.Errorf("not saving stack %q: %w", stack, err)
	}
	s.mu.Lock()
	_, open := s.journals[stack]
	s.mu.Unlock()
	if open {
		return fmt.Errorf("saving stack %q: %w", stack, state.ErrJournalOpen)
	}
	if !s.holds(ctx, stack) {
		l, err := s.Lock(ctx, stack, "save")
		if err != nil {
			return err
		}
		defer func() {
			if uerr := l.Unlock(ctx); err == nil {
				err = uerr
			}
		}()
	}
	// Writing the snapshot empties the journal, which was written against
	// the snapshot replaced.
	tok, err := s.token(stack)
	if err != nil {
		return fmt.Errorf("saving stack %q: %w", stack, err)
	}
	_, err = s.writeSnapshot(ctx, stack, tok, snap)
	return err
}

// writeSnapshot stamps, encodes and atomically writes snap under the lock
// whose token is token.
func (s *Store) writeSnapshot(ctx context.Context, stack state.StackID, token string, snap *state.Snapshot) ([]byte, error) {
	mgr, err := s.manager(ctx, stack, snap.Secrets)
	if err != nil {
		return nil, err
	}
	out := *snap
	out.Manifest = s.stamp()
	// Guess the size from the stack's last snapshot, or from the number
	// of resources, so the buffer rarely has to grow and copy.
	s.mu.Lock()
	hint := max(s.sizes[stack], 512*len(snap.Resources))
	s.mu.Unlock()
	data, err := format.EncodeSnapshot(ctx, &out, mgr, hint, nil)
	if err != nil {
		return nil, fmt.Errorf("encoding stack %q: %w", stack, err)
	}
	if err := s.replaceSnapshot(ctx, stack, token, data); err != nil {
		return nil, fmt.Errorf("writing stack %q: %w", stack, err)
	}
	s.mu.Lock()
	s.sizes[stack] = len(data)
	s.mu.Unlock()
	return data, nil
}

// List implements Store.
func (s *Store) List(ctx context.Context) ([]state.StackID, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	stacks, err := s.b.List(ctx)
	if err != nil {
		return nil, err
	}
	out := stacks[:0:0]
	for _, st := range stacks {
		if st.Check() == nil {
			out = append(out, st)
		}
	}
	slices.SortFunc(out, state.CompareStackIDs)
	return out, nil
}

// Remove implements Store.
func (s *Store) Remove(ctx context.Context, stack state.StackID) error {
	l, err := s.Lock(ctx, stack, "remove")
	if err != nil {
		return err
	}
	defer l.Unlock(ctx)
	if ok, err := s.b.HasSnapshot(ctx, stack); err == nil && !ok {
		return fmt.Errorf("removing stack %q: %w", stack, state.ErrStackNotFound)
	}
	s.forget(stack)
	tok, err := s.token(stack)
	if err == nil {
		err = s.b.DeleteStack(ctx, stack, tok)
	}
	if err != nil {
		return fmt.Errorf("removing stack %q: %w", stack, err)
	}
	s.mu.Lock()
	delete(s.mgrs, stack)
	s.mu.Unlock()
	return l.Unlock(ctx)
}

// verify checks s's integrity, sparing the search for unknown values when
// known says it holds none.
func verify(s *state.Snapshot, known bool) error {
	if known {
		return s.VerifyKnownIntegrity()
	}
	return s.VerifyIntegrity()
}
