package store_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"hash/crc32"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/groundwork-iac/groundwork/state"

	"github.com/google/go-cmp/cmp"

	"github.com/groundwork-iac/groundwork/resource"
	"github.com/groundwork-iac/groundwork/state/backendstore"
	"github.com/groundwork-iac/groundwork/state/internal/format"
	"github.com/groundwork-iac/groundwork/state/memstore"
	"github.com/groundwork-iac/groundwork/state/secrets"
)

// The tests of this file edit what a store wrote, as someone with access
// to the files might, and check what Load makes of it (FORMAT.md,
// "Authentication").

const secretText = "s3cr3t-plaintext"

var noSecrets = state.WithSecrets(nil)

// writeStack saves chainStack(2) — with a secret input when the store has
// a secrets provider — through a memory store opened with opts, and
// returns the store and what it saved.
func writeStack(t *testing.T, opts ...state.Option) (*memstore.Store, *state.Snapshot) {
	t.Helper()
	s := memstore.New(opts...)
	snap := chainStack(2)
	if _, err := s.SecretsManager(context.Background(), dev, nil); err == nil {
		snap.Resources[1].Inputs["token"] = resource.NewSecret(resource.NewString(secretText))
	}
	if err := s.Save(context.Background(), dev, snap); err != nil {
		t.Fatal(err)
	}
	return s, snap
}

// withoutMAC removes the "mac" member that ends a snapshot.
func withoutMAC(t *testing.T, data []byte) []byte {
	t.Helper()
	i := bytes.LastIndex(data, []byte(format.MACMember))
	if i < 0 {
		t.Fatalf("no \"mac\" member in:\n%s", data)
	}
	return append(bytes.Clone(data[:i]), "}\n"...)
}

// resealed replaces a snapshot's "mac" member by the unkeyed checksum of
// what precedes it, as anyone can compute.
func resealed(t *testing.T, data []byte) []byte {
	t.Helper()
	i := bytes.LastIndex(data, []byte(format.MACMember))
	if i < 0 {
		t.Fatalf("no \"mac\" member in:\n%s", data)
	}
	out, err := format.SealSnapshot(bytes.Clone(data[:i]), nil)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func replace(t *testing.T, data []byte, old, new string) []byte {
	t.Helper()
	if !bytes.Contains(data, []byte(old)) {
		t.Fatalf("no %s in:\n%s", old, data)
	}
	return bytes.Replace(data, []byte(old), []byte(new), 1)
}

// formatOne rewrites a snapshot as format version 1, which had no MAC.
func formatOne(t *testing.T, data []byte) []byte {
	return replace(t, withoutMAC(t, data), `{"version":2,`, `{"version":1,`)
}

// authError returns a check that err is an *AuthenticationError of the
// stack "test/dev" and file, missing or not, whose message says what to do.
func authError(file string, missing bool) func(t *testing.T, err error) {
	return func(t *testing.T, err error) {
		t.Helper()
		var ae *state.AuthenticationError
		if !errors.As(err, &ae) {
			t.Fatalf("err = %v; want an *AuthenticationError", err)
		}
		if ae.Stack != dev || ae.File != file || ae.Missing != missing {
			t.Errorf("err = %+v; want stack dev, file %s, missing %t", ae, file, missing)
		}
		msg := err.Error()
		advice := "backup"
		if missing && file == "snapshot" {
			advice = "WithUnauthenticatedSnapshots"
		}
		if !strings.Contains(msg, `"test/dev"`) || !strings.Contains(msg, advice) {
			t.Errorf("the error %q does not name the stack or say what to do (%s)", msg, advice)
		}
		if strings.Contains(msg, secretText) {
			t.Errorf("the error quotes a secret: %s", msg)
		}
	}
}

func errorIs(target error) func(t *testing.T, err error) {
	return func(t *testing.T, err error) {
		t.Helper()
		var ae *state.AuthenticationError
		if !errors.Is(err, target) || errors.As(err, &ae) {
			t.Errorf("err = %v; want one wrapping %v", err, target)
		}
	}
}

func TestSnapshotAuthentication(t *testing.T) {
	keyed := fastSecrets()
	loads := func(t *testing.T, err error) {
		t.Helper()
		if err != nil {
			t.Fatalf("Load: %v", err)
		}
	}
	tests := []struct {
		name    string
		written []state.Option // the options of the store that wrote the stack
		loader  []state.Option // and those of the store that loads it
		edit    func(t *testing.T, data []byte) []byte
		check   func(t *testing.T, err error)
		value   string // with check loads: the arn of b0 Load returns
	}{
		{name: "untouched", written: []state.Option{keyed}, check: loads},
		{
			name: "a plain value edited", written: []state.Option{keyed},
			edit:  func(t *testing.T, d []byte) []byte { return replace(t, d, `"arn:b0"`, `"arn:b9"`) },
			check: authError("snapshot", false),
		},
		{
			name: "the MAC's last digit changed", written: []state.Option{keyed},
			edit: func(t *testing.T, d []byte) []byte {
				i := bytes.LastIndexByte(d, '"') - 1
				d = bytes.Clone(d)
				if d[i] == '0' {
					d[i] = '1'
				} else {
					d[i] = '0'
				}
				return d
			},
			check: authError("snapshot", false),
		},
		{
			name: "a malformed MAC", written: []state.Option{keyed},
			edit: func(t *testing.T, d []byte) []byte {
				return replace(t, d, format.MACMember+format.AlgHMAC+":", format.MACMember+format.AlgHMAC+":zz")
			},
			check: authError("snapshot", false),
		},
		{
			name: "the MAC removed", written: []state.Option{keyed},
			edit:  withoutMAC,
			check: authError("snapshot", true),
		},
		{
			name: "the MAC removed and the file made format 1", written: []state.Option{keyed},
			edit:  formatOne,
			check: authError("snapshot", true),
		},
		{
			name: "the MAC replaced by an unkeyed checksum", written: []state.Option{keyed},
			edit: func(t *testing.T, d []byte) []byte {
				return resealed(t, replace(t, d, `"arn:b0"`, `"arn:b9"`))
			},
			check: authError("snapshot", true),
		},
		{
			name: "cut short", written: []state.Option{keyed},
			edit:  func(t *testing.T, d []byte) []byte { return d[:len(d)-20] },
			check: authError("snapshot", false),
		},
		{
			name: "a wrong passphrase", written: []state.Option{keyed},
			loader: []state.Option{state.WithSecrets(state.PassphraseSecrets("not the passphrase", secrets.WithIterations(1000)))},
			check:  errorIs(secrets.ErrWrongPassphrase),
		},
		{
			name: "format 1, trusted: loads, edit and all", written: []state.Option{keyed},
			loader: []state.Option{state.WithUnauthenticatedSnapshots()},
			edit:   func(t *testing.T, d []byte) []byte { return replace(t, formatOne(t, d), `"arn:b0"`, `"arn:b9"`) },
			check:  loads, value: "arn:b9",
		},
		{
			name: "trusted, but the MAC does not match", written: []state.Option{keyed},
			loader: []state.Option{state.WithUnauthenticatedSnapshots()},
			edit:   func(t *testing.T, d []byte) []byte { return replace(t, d, `"arn:b0"`, `"arn:b9"`) },
			check:  authError("snapshot", false),
		},
		// A stack with no secrets manager carries a checksum: it catches
		// accidents, not someone who recomputes it.
		{name: "no secrets manager: untouched", written: []state.Option{noSecrets}, check: loads},
		{
			name: "no secrets manager: a plain value edited", written: []state.Option{noSecrets},
			edit:  func(t *testing.T, d []byte) []byte { return replace(t, d, `"arn:b0"`, `"arn:b9"`) },
			check: authError("snapshot", false),
		},
		{
			name: "no secrets manager: edited, checksum recomputed", written: []state.Option{noSecrets},
			edit:  func(t *testing.T, d []byte) []byte { return resealed(t, replace(t, d, `"arn:b0"`, `"arn:b9"`)) },
			check: loads, value: "arn:b9",
		},
		{
			name: "no secrets manager: the checksum removed", written: []state.Option{noSecrets},
			edit:  withoutMAC,
			check: authError("snapshot", true),
		},
		{
			name: "no secrets manager: format 1", written: []state.Option{noSecrets},
			edit:  formatOne,
			check: loads,
		},
		// Between stores with and without a secrets provider.
		{
			name: "a store with secrets, a stack written without", written: []state.Option{noSecrets},
			loader: []state.Option{keyed},
			check:  authError("snapshot", true),
		},
		{
			name: "a store with secrets, a stack written without, trusted", written: []state.Option{noSecrets},
			loader: []state.Option{keyed, state.WithUnauthenticatedSnapshots()},
			check:  loads,
		},
		{
			name: "a store without secrets, a stack written with", written: []state.Option{keyed},
			loader: []state.Option{noSecrets},
			check:  errorIs(state.ErrNoSecretsManager),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, saved := writeStack(t, tt.written...)
			data := s.Files(dev)[fileSnapshot]
			if tt.edit != nil {
				edited := tt.edit(t, data)
				if bytes.Equal(edited, data) {
					t.Fatal("the edit changed nothing")
				}
				data = edited
				s.SetFile(dev, fileSnapshot, data)
			}
			loader := s.Reopen(tt.loader...)
			got, err := loader.Load(context.Background(), dev)
			tt.check(t, err)
			if err != nil {
				if after := s.Files(dev)[fileSnapshot]; !bytes.Equal(after, data) {
					t.Error("a refused Load changed the snapshot")
				}
				return
			}
			want := saved
			if tt.value != "" {
				want = chainStack(2)
				want.Resources[1].Outputs["arn"] = resource.NewString(tt.value)
				want.Resources[1].Inputs = saved.Resources[1].Inputs
			}
			if diff := cmp.Diff(want, got, snapshotOpts, propertyOpts); diff != "" {
				t.Errorf("Load (-want +got):\n%s", diff)
			}
		})
	}
}

// A stack accepted with WithUnauthenticatedSnapshots is authenticated by
// the next operation, after which a store without the option loads it.
func TestUnauthenticatedSnapshotIsSealedByTheNextWrite(t *testing.T) {
	ctx := context.Background()
	s, _ := writeStack(t, fastSecrets())
	s.SetFile(dev, fileSnapshot, formatOne(t, s.Files(dev)[fileSnapshot]))
	if _, err := s.Reopen().Load(ctx, dev); err == nil {
		t.Fatal("a format 1 snapshot loaded without WithUnauthenticatedSnapshots")
	}
	trusting := s.Reopen(state.WithUnauthenticatedSnapshots())
	mustLock(t, trusting, dev)
	base, err := trusting.Load(ctx, dev)
	if err != nil {
		t.Fatal(err)
	}
	j, err := trusting.OpenJournal(ctx, dev, base)
	if err != nil {
		t.Fatal(err)
	}
	create(t, j, newBucket("new", base.Resources[0]))
	if err := j.Close(ctx); err != nil { // a crash: the journal stays
		t.Fatal(err)
	}
	if !bytes.Contains(s.Files(dev)[fileSnapshot], []byte(format.MACMember+format.AlgHMAC)) {
		t.Fatal("the journal did not write an authenticated snapshot")
	}
	got, err := s.Reopen().Load(ctx, dev)
	if err != nil {
		t.Fatalf("Load after the trusted run: %v", err)
	}
	if n := len(got.Resources); n != 4 {
		t.Errorf("Load = %v; want the 3 resources and the new one", urns(got))
	}
}

// journalStack leaves a stack whose journal holds two creates (4 entries
// after its header), as a crash would, and returns the store and the
// state Load should give.
func journalStack(t *testing.T, opts ...state.Option) (*memstore.Store, *state.Snapshot) {
	t.Helper()
	ctx := context.Background()
	s := memstore.New(opts...)
	l := mustLock(t, s, dev)
	base := chainStack(1)
	j, err := s.OpenJournal(ctx, dev, base)
	if err != nil {
		t.Fatal(err)
	}
	a := newBucket("a", base.Resources[0])
	if _, err := s.SecretsManager(context.Background(), dev, nil); err == nil {
		a.Outputs["token"] = resource.NewSecret(resource.NewString(secretText))
	}
	create(t, j, a)
	create(t, j, newBucket("c", base.Resources[0]))
	want, err := j.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	if err := l.Unlock(ctx); err != nil { // closes the journal, which keeps its entries
		t.Fatal(err)
	}
	return s, want
}

// frames returns the records of a journal, each with its frame.
func frames(t *testing.T, journal []byte) [][]byte {
	t.Helper()
	var out [][]byte
	for off := 0; off < len(journal); {
		end := off + frameHeaderSize + int(binary.LittleEndian.Uint32(journal[off:]))
		out = append(out, journal[off:end])
		off = end
	}
	return out
}

// refresh recomputes the body checksum of a framed record, as someone
// editing the journal would.
func refresh(frame []byte) []byte {
	frame = bytes.Clone(frame)
	binary.LittleEndian.PutUint32(frame[8:], crc32.Checksum(frame[frameHeaderSize:], castagnoli))
	return frame
}

// untagged rewrites a tagged record as the plain record of the same type.
func untagged(frame []byte) []byte {
	body := frame[frameHeaderSize : len(frame)-format.MACSize]
	typ := format.RecordHeader
	if body[0] == format.RecordTaggedEntry {
		typ = format.RecordEntry
	}
	return format.AppendRecord(nil, typ, binary.LittleEndian.Uint64(body[1:]), body[bodyHeaderSize:])
}

func TestJournalAuthentication(t *testing.T) {
	join := func(frames ...[]byte) []byte { return bytes.Join(frames, nil) }
	tests := []struct {
		name  string
		edit  func(t *testing.T, f [][]byte) []byte // f: header and 4 entries
		check func(t *testing.T, err error)
	}{
		{
			name: "a plain value edited",
			edit: func(t *testing.T, f [][]byte) []byte {
				return join(f[0], refresh(replace(t, f[1], `"arn:a"`, `"arn:b"`)), f[2], f[3], f[4])
			},
			check: authError("journal", false),
		},
		{
			name:  "a step removed from the middle",
			edit:  func(t *testing.T, f [][]byte) []byte { return join(f[0], f[3], f[4]) },
			check: authError("journal", false),
		},
		{
			name:  "two steps swapped",
			edit:  func(t *testing.T, f [][]byte) []byte { return join(f[0], f[3], f[4], f[1], f[2]) },
			check: authError("journal", false),
		},
		{
			name: "the last record's MAC changed",
			edit: func(t *testing.T, f [][]byte) []byte {
				last := bytes.Clone(f[4])
				last[len(last)-1] ^= 1
				return join(f[0], f[1], f[2], f[3], refresh(last))
			},
			check: authError("journal", false),
		},
		{
			name: "the MACs removed",
			edit: func(t *testing.T, f [][]byte) []byte {
				return join(untagged(f[0]), untagged(f[1]), untagged(f[2]), untagged(f[3]), untagged(f[4]))
			},
			check: authError("journal", true),
		},
		{
			name: "a record without its MAC",
			edit: func(t *testing.T, f [][]byte) []byte {
				return join(f[0], f[1], untagged(f[2]), f[3], f[4])
			},
			check: authError("journal", true),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, want := journalStack(t, fastSecrets())
			journal := s.Files(dev)[fileJournal]
			if got, err := s.Reopen().Load(context.Background(), dev); err != nil || !cmp.Equal(want, got, snapshotOpts, propertyOpts) {
				t.Fatalf("the untouched journal: Load = %v, %v", got, err)
			}
			f := frames(t, journal)
			if len(f) != 5 || f[0][frameHeaderSize] != format.RecordTaggedHeader || f[1][frameHeaderSize] != format.RecordTaggedEntry {
				t.Fatalf("want a tagged header and 4 tagged entries; got %d records", len(f))
			}
			edited := tt.edit(t, f)
			if bytes.Equal(edited, journal) {
				t.Fatal("the edit changed nothing")
			}
			s.SetFile(dev, fileJournal, edited)
			_, err := s.Reopen().Load(context.Background(), dev)
			tt.check(t, err)
			if !bytes.Equal(s.Files(dev)[fileJournal], edited) {
				t.Error("a refused Load changed the journal")
			}
		})
	}
}

// A journal written before journals were tagged (format 1), behind a
// format 1 snapshot, replays once the snapshot is trusted.
func TestFormatOneJournalReplaysWhenTrusted(t *testing.T) {
	s, want := journalStack(t, fastSecrets())
	snap := formatOne(t, s.Files(dev)[fileSnapshot])
	f := frames(t, s.Files(dev)[fileJournal])
	header := format.HeaderRecord(format.BaseID(snap), 1, nil, nil)
	header = refresh(replace(t, header, fmt.Sprintf(`{"format":%d,`, state.JournalFormatVersion), `{"format":1,`))
	journal := header
	for _, e := range f[1:] {
		journal = append(journal, untagged(e)...)
	}
	s.SetFile(dev, fileSnapshot, snap)
	s.SetFile(dev, fileJournal, journal)
	authError("snapshot", true)(t, func() error {
		_, err := s.Reopen().Load(context.Background(), dev)
		return err
	}())
	got, err := s.Reopen(state.WithUnauthenticatedSnapshots()).Load(context.Background(), dev)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got, snapshotOpts, propertyOpts); diff != "" {
		t.Errorf("Load (-want +got):\n%s", diff)
	}
}

// A stack without a secrets manager keeps plain journal records: their
// checksums catch accidents, as the snapshot's does.
func TestUnkeyedJournalIsPlain(t *testing.T) {
	s, want := journalStack(t, noSecrets)
	for i, f := range frames(t, s.Files(dev)[fileJournal]) {
		if typ := f[frameHeaderSize]; format.Tagged(typ) {
			t.Errorf("record %d has type %d; want a plain record", i, typ)
		}
	}
	if !bytes.Contains(s.Files(dev)[fileSnapshot], []byte(format.MACMember+format.AlgCRC+":")) {
		t.Errorf("the snapshot carries no checksum:\n%s", s.Files(dev)[fileSnapshot])
	}
	got, err := s.Reopen().Load(context.Background(), dev)
	if err != nil || !cmp.Equal(want, got, snapshotOpts, propertyOpts) {
		t.Fatalf("Load = %v, %v", got, err)
	}
}

// snapshotWritesFail is a memory store's backend whose snapshot writes
// fail while fail is set.
type snapshotWritesFail struct {
	*memstore.Backend
	fail atomic.Bool
}

func (s *snapshotWritesFail) WriteSnapshot(ctx context.Context, stack state.StackID, token string, data []byte) error {
	if s.fail.Load() {
		return errors.New("disk full")
	}
	return s.Backend.WriteSnapshot(ctx, stack, token, data)
}

// A compaction that fails to write its snapshot leaves the journal going
// on as it was: the entries after it chain to the entries before it, not
// to the header it computed and never wrote.
func TestFailedCompactionKeepsTheChain(t *testing.T) {
	ctx := context.Background()
	st := &snapshotWritesFail{Backend: memstore.NewBackend()}
	open := func() state.Store {
		return backendstore.New(st, fastSecrets(), state.WithJournalLimit(0, 2048))
	}
	c := open()
	mustLock(t, c, dev)
	base := chainStack(1)
	j, err := c.OpenJournal(ctx, dev, base)
	if err != nil {
		t.Fatal(err)
	}
	st.fail.Store(true)
	for i := range 20 {
		create(t, j, newBucket("new"+name(i), base.Resources[0]))
	}
	want, err := j.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	st.fail.Store(false)
	got, err := open().Load(ctx, dev)
	if err != nil {
		t.Fatalf("Load after failed compactions: %v", err)
	}
	if diff := cmp.Diff(want, got, snapshotOpts, propertyOpts); diff != "" {
		t.Errorf("Load (-want +got):\n%s", diff)
	}
}

// A journal's header names the snapshot it continues by the snapshot's
// HMAC when it has one (no second pass over its bytes), else by the
// SHA-256 of the file.
func TestJournalBase(t *testing.T) {
	for _, tt := range []struct {
		name string
		opts []state.Option
		base func(snapshot []byte) string
	}{
		{"keyed", []state.Option{fastSecrets()}, func(snapshot []byte) string {
			i := bytes.LastIndex(snapshot, []byte(format.MACMember))
			return string(snapshot[i+len(format.MACMember) : bytes.LastIndexByte(snapshot, '"')])
		}},
		{"unkeyed", []state.Option{noSecrets}, func(snapshot []byte) string {
			sum := sha256.Sum256(snapshot)
			return hex.EncodeToString(sum[:])
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s, _ := journalStack(t, tt.opts...)
			files := s.Files(dev)
			payload, err := format.Untag(format.Record{Type: files[fileJournal][frameHeaderSize], Payload: frames(t, files[fileJournal])[0][frameHeaderSize+bodyHeaderSize:]})
			if err != nil {
				t.Fatal(err)
			}
			h, err := format.DecodeHeader(payload)
			if err != nil {
				t.Fatal(err)
			}
			if want := tt.base(files[fileSnapshot]); h.Base != want {
				t.Errorf("the header's base is %q; want %q", h.Base, want)
			}
		})
	}
}

// writeBlockingBackend holds journal appends, once hold is set, until
// release is closed, telling writing when the first held one starts.
type writeBlockingBackend struct {
	state.Backend
	hold             atomic.Bool
	writing, release chan struct{}
	once             sync.Once
}

func (b *writeBlockingBackend) AppendJournal(ctx context.Context, stack state.StackID, token string, p []byte) error {
	if b.hold.Load() {
		b.once.Do(func() { close(b.writing) })
		<-b.release
	}
	return b.Backend.AppendJournal(ctx, stack, token, p)
}

// A keyed journal's Append seals its batch (the HMAC of each tag) and
// writes it outside the journal's mutex: while that write is under way the
// journal answers, and an entry appended meanwhile is folded at once and
// written in the next batch, chained after it.
func TestKeyedAppendIsSealedOutsideTheMutex(t *testing.T) {
	ctx := context.Background()
	bs := &writeBlockingBackend{Backend: memstore.NewBackend(), writing: make(chan struct{}), release: make(chan struct{})}
	s := backendstore.New(bs, fastSecrets())
	mustLock(t, s, dev)
	base := chainStack(0)
	prov := base.Resources[0]
	j := openJournalT(t, s, dev, base)
	a, b := newBucket("a", prov), newBucket("b", prov)
	seqA := mustAppend(t, j, state.Entry{Kind: state.EntryBegin, Op: resource.OperationCreating, New: a})
	seqB := mustAppend(t, j, state.Entry{Kind: state.EntryBegin, Op: resource.OperationCreating, New: b})

	bs.hold.Store(true)
	first := make(chan error, 1)
	go func() {
		_, err := j.Append(ctx, state.Entry{Kind: state.EntrySuccess, Begin: seqA, New: a})
		first <- err
	}()
	<-bs.writing
	second := make(chan error, 1)
	folded := make(chan error, 1)
	go func() {
		_, err := j.Snapshot()
		folded <- err
		_, err = j.Append(ctx, state.Entry{Kind: state.EntrySuccess, Begin: seqB, New: b})
		second <- err
	}()
	select {
	case err := <-folded:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the journal's mutex was held while an Append's batch was sealed and written")
	}
	// The second end is folded while the first batch is still held.
	deadline := time.Now().Add(10 * time.Second)
	for {
		snap, err := j.Snapshot()
		if err != nil {
			t.Fatal(err)
		}
		if len(snap.Resources) == 3 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("an Append made while a batch was being written was not folded")
		}
		time.Sleep(time.Millisecond)
	}
	bs.hold.Store(false)
	close(bs.release)
	for _, ch := range []chan error{first, second} {
		if err := <-ch; err != nil {
			t.Fatal(err)
		}
	}

	// The process dies here.
	got, err := s.Load(ctx, dev)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Resources) != 3 || len(got.PendingOperations) != 0 {
		t.Errorf("after both Appends: %v, pending %v; want a and b recorded", urns(got), pendingOf(got))
	}
}

// Steps that begin and end with Append, many at once, with slow syncs so
// that flushes and the batches gathered behind them overlap, and entries
// large enough that batches outgrow the spare buffer: the journal replays
// whole, its chain of tags unbroken (and, under -race, no two writers seal
// at once).
func TestConcurrentAppendsKeepTheChain(t *testing.T) {
	for _, tt := range []struct {
		name string
		opt  state.Option
	}{{"keyed", fastSecrets()}, {"unkeyed", noSecrets}} {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			cs := &countingBackend{Backend: memstore.NewBackend()}
			s := backendstore.New(cs, tt.opt)
			mustLock(t, s, dev)
			base := chainStack(0)
			j := openJournalT(t, s, dev, base)
			blob := resource.NewString(strings.Repeat("x", 96<<10))
			const workers, steps = 16, 12
			var wg sync.WaitGroup
			for w := range workers {
				wg.Go(func() {
					for i := range steps {
						r := newBucket("w"+name(w)+"-"+name(i), base.Resources[0])
						if i%3 == 0 {
							r.Inputs["blob"] = blob
						}
						b, err := j.Append(ctx, state.Entry{Kind: state.EntryBegin, Op: resource.OperationCreating, New: r})
						if err == nil {
							_, err = j.Append(ctx, state.Entry{Kind: state.EntrySuccess, Begin: b, New: r})
						}
						if err != nil {
							t.Error(err)
							return
						}
					}
				})
			}
			wg.Wait()
			got, err := s.Load(ctx, dev)
			if err != nil {
				t.Fatalf("Load: %v", err)
			}
			if len(got.Resources) != 1+workers*steps || len(got.PendingOperations) != 0 {
				t.Errorf("replayed %d resources, %d pending", len(got.Resources), len(got.PendingOperations))
			}
		})
	}
}

// The sizes of a journal frame's parts (FORMAT.md, "Journal").
const (
	frameHeaderSize = 12 // length, its checksum, the body's checksum
	bodyHeaderSize  = 9  // record type and Seq
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)
