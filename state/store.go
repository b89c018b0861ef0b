package state

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"time"

	"github.com/groundwork-iac/groundwork/state/secrets"
)

// Store keeps the state of stacks. It is what the engine uses; filestore
// (the embedded default) and memstore (for tests) implement it and pass
// the same conformance tests.
//
// An operation that changes a stack follows one pattern:
//
//	lock, err := store.Lock(ctx, stack, "update")
//	if err != nil { ... }           // *LockedError: someone else is at work
//	defer lock.Unlock(ctx)
//	base, err := store.Load(ctx, stack)
//	j, err := store.OpenJournal(ctx, stack, base)
//	defer j.Close(ctx)
//	... j.Append(ctx, begin) / provider call / j.Append(ctx, end) ...
//	final, err := j.Commit(ctx)
//
// Every method that touches storage takes a context first. Implementations
// are safe for concurrent use.
type Store interface {
	// Load returns the stack's current state: the last snapshot with any
	// journal left by a crashed operation replayed on top (steps that
	// began and never ended come back as PendingOperations). A stack that
	// does not exist loads as an empty snapshot and a nil error. A file
	// in a newer format fails with *FormatVersionError, one that breaks an
	// integrity rule with an error wrapping *IntegrityError, a damaged
	// journal with *CorruptJournalError, a snapshot or journal record
	// edited after it was written (or lacking the MAC the store requires)
	// with *AuthenticationError, a journal that does not follow the
	// stack's snapshot (or has none) with *JournalMismatchError, and a
	// wrong passphrase with an error wrapping secrets.ErrWrongPassphrase —
	// all before anything is written.
	Load(ctx context.Context, stack StackID) (*Snapshot, error)
	// Lock reserves the stack for one operation (a short name such as
	// "update", recorded for whoever finds the stack locked). It fails at
	// once with *LockedError if anyone holds the stack. Callers must
	// release the lock with Unlock, normally deferred right after Lock.
	Lock(ctx context.Context, stack StackID, operation string) (Lock, error)
	// OpenJournal starts recording an operation on base, which first
	// becomes the stack's snapshot: it is written out, unless it is,
	// unchanged, the snapshot Load just returned from the stack's file,
	// which the journal then continues. The caller must hold the stack's
	// Lock through this store, and a stack has at most one open journal.
	OpenJournal(ctx context.Context, stack StackID, base *Snapshot) (Journal, error)
	// Save replaces the stack's state with snap, atomically: readers see
	// the old state or the new one, never a mix. snap must pass
	// VerifyIntegrity; one that does not is never written. Save takes the
	// stack's lock for its duration unless the caller already holds it
	// through this store, and refuses while a journal is open.
	Save(ctx context.Context, stack StackID, snap *Snapshot) error
	// List returns the names of the stacks that have a recorded state,
	// sorted.
	List(ctx context.Context) ([]StackID, error)
	// Remove deletes a stack's state. It refuses with *LockedError while
	// the stack is locked, and fails with ErrStackNotFound for a stack
	// that has no state.
	Remove(ctx context.Context, stack StackID) error
}

// Journal records an operation step by step, so that a crash loses nothing
// that had been recorded. The engine writes each step twice: an EntryBegin
// before it calls the provider, and an EntrySuccess or EntryFailure (whose
// Begin is the Seq the EntryBegin got) after the provider answers. It
// must not call the provider before the EntryBegin's Append returns, nor
// report a step's result to the program before its end entry's Append
// returns: only then is the entry durable.
//
// The entries fold into a snapshot (see Fold) by these rules:
//
//   - EntryBegin adds the pending operation {Resource: New, or Old if New
//     is nil; Kind: Op}.
//   - EntrySuccess clears its begin's pending operation; then the resource
//     that matches Old (same URN, ID and Delete flag) is removed, with
//     every resource listed in With (matched the same way), and New is
//     recorded — in Old's place when Old has the same URN, else at the
//     end. The removals of one entry happen together or not at all.
//     When the entry condemns Old (Entry.Condemn), Old stays recorded,
//     marked Delete in its place, and New is recorded at the end.
//   - EntryFailure clears its begin's pending operation and nothing else.
//   - EntryWrite applies Old→New as EntrySuccess does, with no pending
//     operation (for instant changes such as a component's outputs).
//   - EntryClearPending drops a pending operation inherited from an earlier
//     crashed run.
//
// A snapshot materialized from the fold lists resources in a stable
// dependency order, so the order in which concurrent steps finish never
// breaks integrity.
//
// Every Seq is unique over the journal's whole life, also across the
// compactions that fold a long journal into a new snapshot mid-operation:
// the restarted journal continues the numbering and records which pending
// operations of that snapshot are steps still running, so their end
// entries still find their begins. After a crash, steps that began and did
// not end are pending operations of what Load returns.
//
// A Journal is safe for concurrent use. Appending costs time proportional
// to the entry, not to the stack. The journal keeps the *resource.State
// values it is given and shares them with the snapshots it returns: a
// recorded State is immutable (see resource.State), so callers that need a
// changed one make a copy with Clone.
type Journal interface {
	// Append records e and returns its Seq once e is durable: a crash
	// after Append returns cannot lose e. Appends that arrive while
	// storage is busy are written together and share one sync (group
	// commit), so concurrent steps pay roughly one sync per batch. An
	// entry that does not fit what the journal holds (see Fold.Apply) is
	// rejected with *EntryError and not written. ctx is checked before e
	// is recorded; once recorded, e is written whatever becomes of ctx,
	// since the entries of other steps share the write. After a storage
	// error the journal accepts no more entries.
	Append(ctx context.Context, e Entry) (seq uint64, err error)
	// Snapshot returns the current fold of the journal.
	Snapshot() (*Snapshot, error)
	// Commit folds the journal into a snapshot, writes it atomically,
	// and only then restarts the journal empty. Recording may continue
	// afterwards. A fold that fails integrity is not written; the journal
	// then stays as it is and the error wraps *IntegrityError.
	Commit(ctx context.Context) (*Snapshot, error)
	// Close ends the journal. Entries not committed stay in storage, for
	// the next Load to replay. Closing twice is a no-op.
	Close(ctx context.Context) error
}

// Lock is a held stack lock.
type Lock interface {
	// Unlock releases the lock, first closing a journal still open on the
	// stack (its durable entries stay for the next Load to replay).
	// Unlocking twice is a no-op. If someone broke the lock meanwhile,
	// Unlock leaves the new holder's lock alone and returns ErrLockLost.
	Unlock(ctx context.Context) error
}

// LockBreaker is implemented by stores whose locks can outlive their
// holder. BreakLock removes the stack's lock when its holder is provably
// gone (a process on this host that no longer runs, or for leases one
// whose lease lapsed), and refuses (with an error wrapping *LockedError)
// when the holder still runs or is elsewhere, where its liveness cannot be
// checked. Breaking an unlocked stack does nothing. Lock breaks such a
// lock by itself; BreakLock is for tidying up without locking.
type LockBreaker interface {
	BreakLock(ctx context.Context, stack StackID) error
}

// ForceUnlocker is implemented by stores whose locks can be removed
// whatever their holder, for one this process cannot check that its
// operator knows is gone. ForceUnlock removes the stack's lock if its
// token is token (a LockedError's Holder.Token) and fails with an error
// wrapping ErrLockChanged if another lock holds the stack by then. If the
// holder is still at work, its next write fails with ErrLockLost.
// Removing the lock of an unlocked stack does nothing.
type ForceUnlocker interface {
	ForceUnlock(ctx context.Context, stack StackID, token string) error
}

// Errors returned by stores.
var (
	// ErrStackNotFound: the stack has no recorded state.
	ErrStackNotFound = errors.New("the stack has no recorded state")
	// ErrNotLocked: the operation needs the stack's lock, held through
	// this store.
	ErrNotLocked = errors.New("the stack must be locked through this store first (see Store.Lock)")
	// ErrJournalOpen: a journal is open on the stack; close it first.
	ErrJournalOpen = errors.New("a journal is already open on the stack; Close it first")
	// ErrJournalClosed: the journal was closed.
	ErrJournalClosed = errors.New("the journal is closed")
	// ErrLockLost: the lock was broken by someone else while held.
	ErrLockLost = errors.New("the stack's lock was broken and taken by someone else while this operation held it")
	// ErrLockChanged: ForceUnlock found another lock than the one named.
	ErrLockChanged = errors.New("another lock holds the stack now")
)

// SecretsProvider gives a stack's secrets manager. recorded is the secrets
// state found in the stack's snapshot, or nil for a stack that has none
// yet, in which case the provider makes a fresh manager. Stores call it at
// most once per stack and recorded state, and cache the result, so an
// expensive key derivation is paid once.
type SecretsProvider interface {
	SecretsManager(ctx context.Context, stack StackID, recorded *SecretsState) (secrets.Manager, error)
}

// SecretsProviderFunc adapts a function to SecretsProvider.
type SecretsProviderFunc func(ctx context.Context, stack StackID, recorded *SecretsState) (secrets.Manager, error)

// SecretsManager calls f.
func (f SecretsProviderFunc) SecretsManager(ctx context.Context, stack StackID, recorded *SecretsState) (secrets.Manager, error) {
	return f(ctx, stack, recorded)
}

// PassphraseSecrets is a SecretsProvider of passphrase managers (see
// secrets.NewPassphrase): every stack gets its own random salt; opening a
// stack with the wrong passphrase fails with secrets.ErrWrongPassphrase.
func PassphraseSecrets(passphrase string, opts ...secrets.PassphraseOption) SecretsProvider {
	return SecretsProviderFunc(func(ctx context.Context, stack StackID, recorded *SecretsState) (secrets.Manager, error) {
		if recorded == nil {
			return secrets.NewPassphrase(passphrase, opts...)
		}
		if recorded.Type != secrets.PassphraseType {
			return nil, fmt.Errorf("stack %q records secrets of type %q, but the store was given a passphrase", stack, recorded.Type)
		}
		// The store's error names the stack.
		return secrets.OpenPassphrase(passphrase, recorded.State)
	})
}

// SyncPolicy says whether a journal's entries reach stable storage.
type SyncPolicy uint8

// The sync policies. Under both, Append returns only after its entry has
// been handed to storage; they differ in whether it has also reached
// stable storage.
const (
	// GroupCommit (the default) makes each entry durable (fsync) before
	// its Append returns, sharing one fsync among all the Appends that
	// arrive while the previous one runs. Concurrent steps therefore pay
	// roughly one fsync per batch rather than one each.
	GroupCommit SyncPolicy = iota
	// SyncNever writes entries without fsync: they survive the process
	// dying but not the machine losing power. For tests, benchmarks and
	// throw-away environments only.
	SyncNever
)

// Option configures a store.
type Option func(*Options)

// Options are a store's settings, as its Options set them. Store
// implementations read them with NewOptions; callers set them with the
// With functions.
type Options struct {
	// Secrets encrypts secret values and keys the MACs (WithSecrets).
	Secrets SecretsProvider
	// Sync is the journal's durability policy (WithSync).
	Sync SyncPolicy
	// JournalLimitFactor and JournalLimitExtra bound a journal before
	// it is compacted (WithJournalLimit).
	JournalLimitFactor, JournalLimitExtra int64
	// LibraryVersion is recorded in manifests (WithLibraryVersion).
	LibraryVersion string
	// Now is the clock of manifests and locks.
	Now func() time.Time
	// TrustUnauthenticated: Load accepts a snapshot that carries no MAC
	// the store requires (WithUnauthenticatedSnapshots).
	TrustUnauthenticated bool
	// UnlockHint is the Remedy of LockedErrors (WithUnlockHint).
	UnlockHint string
}

// NewOptions returns the default settings with opts applied in order.
func NewOptions(opts ...Option) Options {
	o := Options{
		Sync:               GroupCommit,
		JournalLimitFactor: 4,
		JournalLimitExtra:  64 << 20,
		LibraryVersion:     libraryVersion(),
		Now:                time.Now,
	}
	for _, opt := range opts {
		opt(&o)
	}
	return o
}

// WithSecrets sets how the store encrypts secret values. Without it a
// file store cannot record a secret value (it fails with
// ErrNoSecretsManager rather than write plaintext); a memory store uses a
// random passphrase of its own.
func WithSecrets(p SecretsProvider) Option { return func(o *Options) { o.Secrets = p } }

// WithUnauthenticatedSnapshots lets Load accept a snapshot that carries no
// MAC this store can check — a file in format version 1, written before
// snapshots carried MACs, or one written by a store without a secrets
// provider — which a store with a secrets provider otherwise refuses with
// an *AuthenticationError, since such a file may be one whose MAC was
// removed to get an edit past it. It is meant for one migration, by
// someone who trusts the files: the next journal opened on the stack (by
// any operation but a preview, even one that changes nothing) or Save
// rewrites the snapshot with a MAC, and the option can then be dropped.
// A MAC or checksum that is present and does not match is refused even
// so, as is a journal whose tags are missing or wrong.
func WithUnauthenticatedSnapshots() Option {
	return func(o *Options) { o.TrustUnauthenticated = true }
}

// WithUnlockHint sets how lock errors say to remove a lock whose holder
// is gone, for a host with a command of its own (say, `run "mytool unlock
// --force"`). By default they name the ForceUnlock method.
func WithUnlockHint(hint string) Option { return func(o *Options) { o.UnlockHint = hint } }

// WithSync sets the journal's durability policy (default GroupCommit) of
// a store whose backend has the choice: the file store's (see
// filestore.NewBackend). Other backends make every write durable.
func WithSync(p SyncPolicy) Option { return func(o *Options) { o.Sync = p } }

// WithJournalLimit sets when a journal is compacted mid-operation: once it
// holds more than factor × (size of the last snapshot written) + extra
// bytes, it is folded into a new snapshot and restarted. The default is
// 4 × snapshot + 64 MiB, which keeps compaction's cost per entry a small
// constant fraction of the entry's own.
func WithJournalLimit(factor, extra int64) Option {
	return func(o *Options) { o.JournalLimitFactor, o.JournalLimitExtra = max(factor, 0), max(extra, 0) }
}

// WithLibraryVersion sets the library version recorded in manifests
// (default: the groundwork module version from the build information).
func WithLibraryVersion(v string) Option { return func(o *Options) { o.LibraryVersion = v } }

// libraryVersion finds the groundwork module's version in the build
// information of the running program.
func libraryVersion() string {
	const path = "github.com/groundwork-iac/groundwork"
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "(unknown)"
	}
	if bi.Main.Path == path {
		return bi.Main.Version
	}
	for _, d := range bi.Deps {
		if d.Path == path {
			return d.Version
		}
	}
	return "(devel)"
}
