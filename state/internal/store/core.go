package store

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"sync"

	"github.com/groundwork-iac/groundwork/state"

	"github.com/groundwork-iac/groundwork/resource"
	"github.com/groundwork-iac/groundwork/state/internal/format"
	"github.com/groundwork-iac/groundwork/state/secrets"
)

// The files of one stack.
const (
	fileSnapshot = "snapshot.json"
	fileJournal  = "journal"
	fileLock     = "lock"
)

// storage is the raw I/O a store needs, per stack and file name. core builds
// every Store method on it, so the file and memory stores differ only here.
type storage interface {
	// read returns a file's content, or an error wrapping fs.ErrNotExist.
	read(ctx context.Context, stack, name string) ([]byte, error)
	// replace atomically and durably creates or replaces a file.
	replace(ctx context.Context, stack, name string, data []byte) error
	// openAppend opens an existing file for appending.
	openAppend(ctx context.Context, stack, name string) (appender, error)
	// remove deletes a file; a missing file is not an error.
	remove(ctx context.Context, stack, name string) error
	// removeStack deletes what is left of a stack once its files are gone.
	removeStack(ctx context.Context, stack string) error
	// list returns the stacks that have a snapshot, in any order.
	list(ctx context.Context) ([]string, error)
	// create makes a file that must not exist yet (else an error wrapping
	// fs.ErrExist); the file appears with its whole content at once.
	create(ctx context.Context, stack, name string, data []byte) error
	// removeIf deletes a file only if its content is data; it reports
	// whether it did.
	removeIf(ctx context.Context, stack, name string, data []byte) (bool, error)
}

// appender writes at the end of a file. Its writes are shared by the
// entries of many steps, so the context it is given carries no
// cancellation (context.WithoutCancel).
type appender interface {
	write(ctx context.Context, p []byte) error
	sync() error
	close() error
}

// core implements Store, LockBreaker and the journal's persistence on top
// of a storage.
type core struct {
	st   storage
	opts state.Options

	mu       sync.Mutex
	held     map[string][]byte   // stack → content of the lock file this store holds
	journals map[string]*journal // open journals
	mgrs     map[string]cachedManager
	sizes    map[string]int // size of each stack's last snapshot written
	// loaded is, per stack, the snapshot Load last returned just as the
	// snapshot file holds it; see continuing.
	loaded map[string]loadedSnapshot
}

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
	// lock is the record of the lock this store held on the stack when
	// Load read the file (nil for none): while the store still holds that
	// very lock, nothing can have written the stack since.
	lock []byte
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

func newCore(st storage, opts []state.Option, defaults state.Options) *core {
	o := defaults
	for _, opt := range opts {
		opt(&o)
	}
	return &core{
		st: st, opts: o,
		held: map[string][]byte{}, journals: map[string]*journal{},
		mgrs: map[string]cachedManager{}, sizes: map[string]int{},
		loaded: map[string]loadedSnapshot{},
	}
}

func (c *core) stamp() state.Manifest {
	return state.Manifest{Time: c.opts.Now().UTC(), Version: state.FormatVersion, LibraryVersion: c.opts.LibraryVersion}
}

// manager returns the stack's secrets manager for a recorded state, from
// the cache when it has one for exactly that state. With recorded nil it
// reuses the stack's current manager: the cached one, else the one
// recorded in the stack's snapshot (so a wrong passphrase is caught before
// anything overwrites it), else a fresh one. It returns nil when the store
// has no secrets provider.
func (c *core) manager(ctx context.Context, stack string, recorded *state.SecretsState) (secrets.Manager, error) {
	if c.opts.Secrets == nil {
		return nil, nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	cached, ok := c.mgrs[stack]
	if recorded == nil {
		if ok {
			return cached.mgr, nil
		}
		onDisk, err := c.recordedSecrets(ctx, stack)
		if err != nil {
			return nil, err
		}
		recorded = onDisk
	} else if ok && cached.typ == recorded.Type && sameJSON(cached.state, recorded.State) {
		return cached.mgr, nil
	}
	m, err := c.opts.Secrets.SecretsManager(ctx, stack, recorded)
	if err != nil {
		return nil, err
	}
	if m == nil {
		return nil, fmt.Errorf("the secrets provider gave no manager for stack %q", stack)
	}
	c.mgrs[stack] = cachedManager{typ: m.Type(), state: string(m.State()), mgr: m}
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
func (c *core) recordedSecrets(ctx context.Context, stack string) (*state.SecretsState, error) {
	data, err := c.st.read(ctx, stack, fileSnapshot)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	// A malformed file is reported by Load; here it only has no secrets.
	return format.RecordedSecrets(data), nil
}

func (c *core) opener(stack string) format.OpenManager {
	return func(ctx context.Context, recorded *state.SecretsState) (secrets.Manager, error) {
		return c.manager(ctx, stack, recorded)
	}
}

func readOptional(ctx context.Context, st storage, stack, name string) ([]byte, error) {
	data, err := st.read(ctx, stack, name)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	return data, err
}

// Load implements Store.
func (c *core) Load(ctx context.Context, stack string) (*state.Snapshot, error) {
	if err := state.CheckStackName(stack); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	// The journal is read first: if a checkpoint replaces both files in
	// between, the journal read is stale for the newer snapshot and is
	// ignored, which yields the newer state rather than an older one.
	journal, err := readOptional(ctx, c.st, stack, fileJournal)
	if err != nil {
		return nil, err
	}
	snapData, err := readOptional(ctx, c.st, stack, fileSnapshot)
	if err != nil {
		return nil, err
	}
	if snapData == nil {
		return &state.Snapshot{Manifest: state.Manifest{Version: state.FormatVersion}}, nil
	}
	auth := &format.SnapshotAuth{Stack: stack, Keyed: c.opts.Secrets != nil, Trust: c.opts.TrustUnauthenticated}
	// The snapshot's strings share the file's text: one copy of it.
	text := string(snapData)
	base, unknowns, err := format.DecodeSnapshot(ctx, snapData, text, c.opener(stack), auth)
	if err != nil {
		return nil, loadError(err, "loading stack %q: %w", stack)
	}
	if err := verify(base, !unknowns); err != nil {
		return nil, fmt.Errorf("loading stack %q: the snapshot file fails its integrity check (it was not changed; restore a backup or repair it): %w", stack, err)
	}
	if len(journal) == 0 {
		c.remember(stack, base, text, auth.Alg)
		return base, nil
	}
	c.forget(stack)
	mgr, err := c.manager(ctx, stack, base.Secrets)
	if err != nil {
		return nil, fmt.Errorf("loading stack %q: %w", stack, err)
	}
	var mac *format.RecordMAC
	if auth.Alg == format.AlgHMAC {
		if mac, err = format.NewRecordMAC(mgr); err != nil {
			return nil, err
		}
	}
	snap, err := replay(ctx, base, snapData, journal, mgr, stack, mac)
	if err != nil {
		return nil, loadError(err, "loading stack %q: replaying the journal: %w", stack)
	}
	if err := snap.VerifyIntegrity(); err != nil {
		return nil, fmt.Errorf("loading stack %q: the snapshot with its journal replayed fails its integrity check (neither file was changed): %w", stack, err)
	}
	return snap, nil
}

// loadError wraps err with the stack's name, unless err is an
// *AuthenticationError, which names the stack and says what to do itself.
func loadError(err error, format, stack string) error {
	if ae := (*state.AuthenticationError)(nil); errors.As(err, &ae) {
		return ae
	}
	return fmt.Errorf(format, stack, err)
}

// remember records that Load returned snap as the snapshot file data holds
// it, authenticated by a "mac" member of algorithm alg ("" for none).
func (c *core) remember(stack string, snap *state.Snapshot, data string, alg string) {
	l := loadedSnapshot{snap: snap, resources: slices.Clone(snap.Resources), secrets: snap.Secrets,
		pending: slices.Clone(snap.PendingOperations), data: data, alg: alg}
	c.mu.Lock()
	l.lock = c.held[stack]
	c.loaded[stack] = l
	c.mu.Unlock()
}

func (c *core) forget(stack string) {
	c.mu.Lock()
	delete(c.loaded, stack)
	c.mu.Unlock()
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
func (c *core) continuing(ctx context.Context, stack string, base *state.Snapshot, mgr secrets.Manager) (string, bool) {
	c.mu.Lock()
	l, ok := c.loaded[stack]
	delete(c.loaded, stack)
	c.mu.Unlock()
	if !ok || !l.unchanged(base) || l.alg != format.MACAlgorithm(mgr) {
		return "", false
	}
	if mgr != nil && (base.Secrets == nil || base.Secrets.Type != mgr.Type() || !sameJSON(string(mgr.State()), base.Secrets.State)) {
		return "", false
	}
	if l.lock != nil && c.stillHeld(ctx, stack, l.lock) {
		// Locked since Load read the file: only this store could have
		// written it, and it has not (a write forgets what Load read).
		return l.data, true
	}
	data, err := c.st.read(ctx, stack, fileSnapshot)
	if err != nil || string(data) != l.data {
		return "", false
	}
	return l.data, true
}

// replaceSnapshot writes the stack's snapshot file. What Load last read
// of it is forgotten first: a journal must not continue a file that is
// being replaced.
func (c *core) replaceSnapshot(ctx context.Context, stack string, data []byte) error {
	c.forget(stack)
	return c.st.replace(ctx, stack, fileSnapshot, data)
}

// stillHeld reports whether the lock this store holds on the stack is the
// very one whose record is lock, and storage still holds it.
func (c *core) stillHeld(ctx context.Context, stack string, lock []byte) bool {
	c.mu.Lock()
	cur := c.held[stack]
	c.mu.Unlock()
	return len(cur) > 0 && len(lock) > 0 && &cur[0] == &lock[0] && c.holds(ctx, stack)
}

// verifiedByLoad reports whether base is the very snapshot Load last
// returned for the stack, unchanged: Load checked its integrity already.
func (c *core) verifiedByLoad(stack string, base *state.Snapshot) bool {
	c.mu.Lock()
	l, ok := c.loaded[stack]
	c.mu.Unlock()
	return ok && l.unchanged(base)
}

// Save implements Store.
func (c *core) Save(ctx context.Context, stack string, snap *state.Snapshot) (err error) {
	if err := state.CheckStackName(stack); err != nil {
		return err
	}
	if snap == nil {
		return errors.New("Save needs a snapshot")
	}
	if err := snap.VerifyIntegrity(); err != nil {
		return fmt.Errorf("not saving stack %q: %w", stack, err)
	}
	c.mu.Lock()
	_, open := c.journals[stack]
	c.mu.Unlock()
	if open {
		return fmt.Errorf("saving stack %q: %w", stack, state.ErrJournalOpen)
	}
	if !c.holds(ctx, stack) {
		l, err := c.Lock(ctx, stack, "save")
		if err != nil {
			return err
		}
		defer func() {
			if uerr := l.Unlock(ctx); err == nil {
				err = uerr
			}
		}()
	}
	_, err = c.writeSnapshot(ctx, stack, snap)
	if err != nil {
		return err
	}
	// The journal, if any, was written against the previous snapshot and
	// is stale now (Load would ignore it); tidy it away.
	return c.st.remove(ctx, stack, fileJournal)
}

// writeSnapshot stamps, encodes and atomically writes snap.
func (c *core) writeSnapshot(ctx context.Context, stack string, snap *state.Snapshot) ([]byte, error) {
	mgr, err := c.manager(ctx, stack, snap.Secrets)
	if err != nil {
		return nil, err
	}
	out := *snap
	out.Manifest = c.stamp()
	// Guess the size from the stack's last snapshot, or from the number
	// of resources, so the buffer rarely has to grow and copy.
	c.mu.Lock()
	hint := max(c.sizes[stack], 512*len(snap.Resources))
	c.mu.Unlock()
	data, err := format.EncodeSnapshot(ctx, &out, mgr, hint, nil)
	if err != nil {
		return nil, fmt.Errorf("encoding stack %q: %w", stack, err)
	}
	if err := c.replaceSnapshot(ctx, stack, data); err != nil {
		return nil, fmt.Errorf("writing stack %q: %w", stack, err)
	}
	c.mu.Lock()
	c.sizes[stack] = len(data)
	c.mu.Unlock()
	return data, nil
}

// List implements Store.
func (c *core) List(ctx context.Context) ([]string, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return c.st.list(ctx)
}

// Remove implements Store.
func (c *core) Remove(ctx context.Context, stack string) error {
	l, err := c.Lock(ctx, stack, "remove")
	if err != nil {
		return err
	}
	defer l.Unlock(ctx)
	if ok, err := exists(ctx, c.st, stack, fileSnapshot); err == nil && !ok {
		return fmt.Errorf("removing stack %q: %w", stack, state.ErrStackNotFound)
	}
	c.forget(stack)
	for _, name := range []string{fileJournal, fileSnapshot} {
		if err := c.st.remove(ctx, stack, name); err != nil {
			return fmt.Errorf("removing stack %q: %w", stack, err)
		}
	}
	c.mu.Lock()
	delete(c.mgrs, stack)
	c.mu.Unlock()
	return l.Unlock(ctx) // which removes the emptied folder
}

// OpenJournal implements Store.
func (c *core) OpenJournal(ctx context.Context, stack string, base *state.Snapshot) (state.Journal, error) {
	if err := state.CheckStackName(stack); err != nil {
		return nil, err
	}
	if base == nil {
		base = &state.Snapshot{}
	}
	if !c.holds(ctx, stack) {
		return nil, fmt.Errorf("opening a journal on stack %q: %w", stack, state.ErrNotLocked)
	}
	// A stack of 10,000 resources takes milliseconds to check: not again
	// when Load just did (the engine opens its journal on what it loaded).
	if !c.verifiedByLoad(stack, base) {
		if err := base.VerifyIntegrity(); err != nil {
			return nil, fmt.Errorf("opening a journal on stack %q: the base snapshot: %w", stack, err)
		}
	}
	c.mu.Lock()
	if _, open := c.journals[stack]; open {
		c.mu.Unlock()
		return nil, fmt.Errorf("opening a journal on stack %q: %w", stack, state.ErrJournalOpen)
	}
	c.journals[stack] = nil // reserved: present but not yet open
	c.mu.Unlock()
	j, err := openJournal(ctx, c, stack, base)
	c.mu.Lock()
	if err != nil {
		delete(c.journals, stack)
	} else {
		c.journals[stack] = j
	}
	c.mu.Unlock()
	if err != nil {
		return nil, err
	}
	return j, nil
}

func (c *core) journalClosed(stack string, j *journal) {
	c.mu.Lock()
	if c.journals[stack] == j {
		delete(c.journals, stack)
	}
	c.mu.Unlock()
}

// verify checks s's integrity, sparing the search for unknown values when
// known says it holds none.
func verify(s *state.Snapshot, known bool) error {
	if known {
		return s.VerifyKnownIntegrity()
	}
	return s.VerifyIntegrity()
}
