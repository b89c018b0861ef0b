package store_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"testing"

	"github.com/groundwork-iac/groundwork/state"
	"github.com/groundwork-iac/groundwork/state/internal/format"

	"github.com/google/go-cmp/cmp"

	"github.com/groundwork-iac/groundwork/resource"
)

// withStack is a provider, a database, two tables deleted with it (one
// through the other: a chain), and an unrelated bucket.
func withStack() (s *state.Snapshot, db, t1, t2, other *resource.State) {
	prov := newProvider("default", "p1")
	db = newBucket("db", prov)
	t1 = newBucket("t1", prov, db.URN)
	t1.DeletedWith = db.URN
	t2 = newBucket("t2", prov)
	t2.DeletedWith = t1.URN
	other = newBucket("other", prov)
	return &state.Snapshot{Resources: []*resource.State{prov, db, t1, t2, other}}, db, t1, t2, other
}

func withList(rs ...*resource.State) []*resource.State { return rs }

// TestJournalWithCrash records the delete of db with the tables deleted
// with it, then cuts the journal at every byte: whatever a crash left, the
// stack loads; the tables leave the state exactly when db's delete is
// recorded (the one record holding all three), never before.
func TestJournalWithCrash(t *testing.T) {
	ctx := context.Background()
	forEachStore(t, func(t *testing.T, h harness) {
		s := h.open()
		mustLock(t, s, dev)
		base, db, t1, t2, _ := withStack()
		j := openJournalT(t, s, dev, base)
		begin := mustAppend(t, j, state.Entry{Kind: state.EntryBegin, Op: resource.OperationDeleting, Old: db})
		running, _ := j.Snapshot()
		mustAppend(t, j, state.Entry{Kind: state.EntrySuccess, Begin: begin, Old: db, With: withList(t1, t2)})
		done, _ := j.Snapshot()
		if diff := cmp.Diff([]string{"p1", "other-id"}, idsOf(done)); diff != "" {
			t.Fatalf("after the delete (-want +got):\n%s", diff)
		}
		journal := h.files(dev)[fileJournal]
		var starts []int
		if _, err := format.ScanRecords(journal, func(r format.Record) error { starts = append(starts, int(r.Offset)); return nil }); err != nil {
			t.Fatal(err)
		}
		if len(starts) != 3 {
			t.Fatalf("the journal holds %d records, want a header and two entries", len(starts))
		}
		loader := h.open()
		for cut := starts[1]; cut <= len(journal); cut++ {
			h.setFile(dev, fileJournal, journal[:cut])
			got, err := loader.Load(ctx, dev)
			if err != nil {
				t.Fatalf("cut at %d of %d: %v", cut, len(journal), err)
			}
			want := base
			switch {
			case cut == len(journal):
				want = done
			case cut >= starts[2]:
				want = running
			}
			if diff := cmp.Diff(want, got, snapshotOpts, propertyOpts); diff != "" {
				t.Fatalf("cut at %d of %d (-want +got):\n%s", cut, len(journal), diff)
			}
		}
	})
}

// TestJournalCondemnCrash records the create of db's replacement, which
// condemns the old db, then cuts the journal at every byte: whatever a
// crash left, the old db is either live (with the create pending) or
// marked Delete beside its recorded replacement, never condemned alone.
func TestJournalCondemnCrash(t *testing.T) {
	ctx := context.Background()
	forEachStore(t, func(t *testing.T, h harness) {
		s := h.open()
		mustLock(t, s, dev)
		base, db, _, _, _ := withStack()
		next := db.Clone()
		next.ID = "db-2"
		j := openJournalT(t, s, dev, base)
		begin := mustAppend(t, j, state.Entry{Kind: state.EntryBegin, Op: resource.OperationCreating, New: next})
		running, _ := j.Snapshot()
		mustAppend(t, j, state.Entry{Kind: state.EntrySuccess, Begin: begin, Old: db, New: next, Condemn: true})
		done, _ := j.Snapshot()
		var marks []string
		for _, r := range done.Resources {
			if r.URN == db.URN {
				marks = append(marks, fmt.Sprintf("%s delete=%t", r.ID, r.Delete))
			}
		}
		if diff := cmp.Diff([]string{"db-id delete=true", "db-2 delete=false"}, marks); diff != "" {
			t.Fatalf("after the create (-want +got):\n%s", diff)
		}
		journal := h.files(dev)[fileJournal]
		var starts []int
		if _, err := format.ScanRecords(journal, func(r format.Record) error { starts = append(starts, int(r.Offset)); return nil }); err != nil {
			t.Fatal(err)
		}
		if len(starts) != 3 {
			t.Fatalf("the journal holds %d records, want a header and two entries", len(starts))
		}
		loader := h.open()
		for cut := starts[1]; cut <= len(journal); cut++ {
			h.setFile(dev, fileJournal, journal[:cut])
			got, err := loader.Load(ctx, dev)
			if err != nil {
				t.Fatalf("cut at %d of %d: %v", cut, len(journal), err)
			}
			want := base
			switch {
			case cut == len(journal):
				want = done
			case cut >= starts[2]:
				want = running
			}
			if diff := cmp.Diff(want, got, snapshotOpts, propertyOpts); diff != "" {
				t.Fatalf("cut at %d of %d (-want +got):\n%s", cut, len(journal), diff)
			}
		}
	})
}

// TestJournalFormatVersions: the journal header says format
// JournalFormatVersion; journals of formats 1 (before With) and 2 (before
// tags), whose records are plain, still replay behind a snapshot without
// a keyed MAC; a newer one is refused with *FormatVersionError, and left
// as it is, whether the store is keyed or not.
func TestJournalFormatVersions(t *testing.T) {
	ctx := context.Background()
	for _, keyed := range []bool{true, false} {
		var opts []state.Option
		if !keyed {
			opts = append(opts, noSecrets)
		}
		t.Run(fmt.Sprintf("keyed=%t", keyed), func(t *testing.T) {
			forEachStore(t, func(t *testing.T, h harness) {
				s := h.open(opts...)
				mustLock(t, s, dev)
				base := chainStack(1)
				j := openJournalT(t, s, dev, base)
				create(t, j, newBucket("a", base.Resources[0]))
				live, _ := j.Snapshot()
				journal := h.files(dev)[fileJournal]
				var header format.JournalHeader
				var typ byte
				var rest []byte // the entries, after the header
				if _, err := format.ScanRecords(journal, func(r format.Record) error {
					if r.Type == format.RecordHeader || r.Type == format.RecordTaggedHeader {
						typ = r.Type
						payload, err := format.Untag(r)
						if err != nil {
							return err
						}
						return json.Unmarshal(payload, &header)
					}
					if rest == nil {
						rest = journal[r.Offset:]
					}
					return nil
				}); err != nil {
					t.Fatal(err)
				}
				if header.Format != state.JournalFormatVersion {
					t.Errorf("the header says format %d, want %d", header.Format, state.JournalFormatVersion)
				}
				if want := map[bool]byte{true: format.RecordTaggedHeader, false: format.RecordHeader}[keyed]; typ != want {
					t.Errorf("the header is a record of type %d, want %d", typ, want)
				}
				withFormat := func(v int) []byte {
					h := header
					h.Format = v
					payload, err := json.Marshal(h)
					if err != nil {
						t.Fatal(err)
					}
					// A newer header is refused before its tag is read:
					// one with room for a tag will do.
					if keyed {
						return append(refresh(format.AppendUnsealed(nil, format.RecordTaggedHeader, 0, payload)), rest...)
					}
					return append(format.AppendRecord(nil, format.RecordHeader, 0, payload), rest...)
				}

				if !keyed {
					for _, v := range []int{1, 2, 3} {
						h.setFile(dev, fileJournal, withFormat(v))
						got, err := h.open(opts...).Load(ctx, dev)
						if err != nil {
							t.Fatalf("a format %d journal: %v", v, err)
						}
						if diff := cmp.Diff(live, got, snapshotOpts, propertyOpts); diff != "" {
							t.Errorf("a format %d journal replays (-want +got):\n%s", v, diff)
						}
					}
				}

				newer := withFormat(state.JournalFormatVersion + 1)
				h.setFile(dev, fileJournal, newer)
				var fv *state.FormatVersionError
				if _, err := h.open(opts...).Load(ctx, dev); !errors.As(err, &fv) || fv.What != "journal" || fv.Supported != state.JournalFormatVersion {
					t.Errorf("a newer journal: Load = %v; want *FormatVersionError for the journal", err)
				}
				if after := h.files(dev)[fileJournal]; !cmp.Equal(newer, after) {
					t.Error("Load changed a journal it cannot read")
				}
			})
		})
	}
}

// TestEntryCondemnRoundTrip: Condemn is written on a success or a write
// and read back; a journal that holds it replays to the old copy marked
// Delete beside its replacement.
func TestEntryCondemnRoundTrip(t *testing.T) {
	ctx := context.Background()
	_, db, _, _, _ := withStack()
	next := db.Clone()
	next.ID = "db-2"
	for _, e := range []state.Entry{
		{Kind: state.EntrySuccess, Begin: 7, Old: db, New: next, Condemn: true},
		{Kind: state.EntryWrite, Old: db, New: next, Condemn: true},
		{Kind: state.EntryWrite, Old: db, New: next},
	} {
		payload, _, _, err := format.EncodeEntry(ctx, nil, &e, nil)
		if err != nil {
			t.Fatal(err)
		}
		got, err := format.NewEntryDecoder(nil).Decode(ctx, string(payload), 0, true)
		if err != nil {
			t.Fatalf("%s: %v", payload, err)
		}
		if got.Condemn != e.Condemn {
			t.Errorf("%s: Condemn read back as %t, want %t", payload, got.Condemn, e.Condemn)
		}
	}
}

// TestEntryWithRoundTrip: With is written as the identities of its records
// and read back as such, in order.
func TestEntryWithRoundTrip(t *testing.T) {
	ctx := context.Background()
	_, db, t1, t2, _ := withStack()
	t2old := t2.Clone()
	t2old.Delete = true
	for _, e := range []state.Entry{
		{Kind: state.EntrySuccess, Begin: 7, Old: db, With: withList(t1, t2old)},
		{Kind: state.EntryWrite, Old: db, With: withList()},
		{Kind: state.EntryWrite, Old: db},
	} {
		payload, _, _, err := format.EncodeEntry(ctx, nil, &e, nil)
		if err != nil {
			t.Fatal(err)
		}
		got, err := format.NewEntryDecoder(nil).Decode(ctx, string(payload), 0, true)
		if err != nil {
			t.Fatalf("%s: %v", payload, err)
		}
		if len(got.With) != len(e.With) {
			t.Fatalf("%s: With read back as %v", payload, got.With)
		}
		var want, read []string
		for _, s := range e.With {
			want = append(want, string(s.URN)+"/"+string(s.ID)+"/"+boolName(s.Delete))
		}
		for _, s := range got.With {
			read = append(read, string(s.URN)+"/"+string(s.ID)+"/"+boolName(s.Delete))
		}
		if diff := cmp.Diff(want, read); diff != "" {
			t.Errorf("%s: With (-want +got):\n%s", payload, diff)
		}
	}
}

func boolName(b bool) string {
	if b {
		return "delete"
	}
	return "live"
}

func idsOf(s *state.Snapshot) []string {
	var out []string
	for _, r := range s.Resources {
		out = append(out, string(r.ID))
	}
	return out
}
