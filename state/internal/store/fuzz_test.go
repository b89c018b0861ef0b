package store_test

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/groundwork-iac/groundwork/state"

	"github.com/google/go-cmp/cmp"

	"github.com/groundwork-iac/groundwork/resource"
	"github.com/groundwork-iac/groundwork/state/internal/format"
	"github.com/groundwork-iac/groundwork/state/internal/journal"
	"github.com/groundwork-iac/groundwork/state/secrets"
)

// The fuzz targets read untrusted bytes as a snapshot or a journal and
// must never panic. Their seed corpus under testdata/fuzz is checked in;
// "go test ./state -run TestFuzzSeeds -update-seeds" regenerates it with
// testdata/fuzz-base.json, the snapshot every journal seed continues. The
// seeds are a few kilobytes, so fuzz with a short -fuzzminimizetime (say
// 2s): minimizing each new input for the default minute stalls the run.

var updateSeeds = flag.Bool("update-seeds", false, "rewrite the fuzz seed corpus in testdata")

const fuzzBasePath = "testdata/fuzz-base.json"

// fuzzFixture is the checked-in base snapshot and its secrets manager.
type fuzzFixture struct {
	data []byte
	snap *state.Snapshot
	mgr  secrets.Manager
	mac  *format.RecordMAC // keyed by mgr: the fixture's journals are tagged
}

func loadFuzzFixture(t testing.TB) *fuzzFixture {
	data, err := os.ReadFile(fuzzBasePath)
	if err != nil {
		t.Fatalf("%v (regenerate with -update-seeds)", err)
	}
	fx := &fuzzFixture{data: data}
	fx.snap, err = decodeSnapshot(context.Background(), data, func(ctx context.Context, rec *state.SecretsState) (secrets.Manager, error) {
		fx.mgr, err = secrets.OpenPassphrase(testPassphrase, rec.State)
		return fx.mgr, err
	}, &format.SnapshotAuth{Stack: state.StackID{Project: "test", Stack: "fuzz"}, Keyed: true})
	if err != nil {
		t.Fatal(err)
	}
	if fx.mac, err = format.NewRecordMAC(fx.mgr); err != nil || fx.mac == nil {
		t.Fatalf("the fixture's manager gives no record MAC: %v", err)
	}
	return fx
}

// open gives the fixture's manager for its own secrets state only, so a
// mutated iteration count cannot make one input take minutes.
func (fx *fuzzFixture) open(ctx context.Context, rec *state.SecretsState) (secrets.Manager, error) {
	if rec == nil || fx.mgr == nil || !bytes.Equal(rec.State, fx.mgr.State()) {
		return nil, fmt.Errorf("fuzz: unknown secrets state")
	}
	return fx.mgr, nil
}

// FuzzDecodeSnapshot reads raw bytes as a snapshot twice: as Load does,
// checking its MAC first, and without the check, so that the fuzzer also
// reaches the decoder behind it.
func FuzzDecodeSnapshot(f *testing.F) {
	fx := loadFuzzFixture(f)
	f.Add(fx.data)
	f.Fuzz(func(t *testing.T, data []byte) {
		ctx := context.Background()
		for _, keyed := range []bool{false, true} {
			_, _ = decodeSnapshot(ctx, data, fx.open, &format.SnapshotAuth{Stack: state.StackID{Project: "test", Stack: "fuzz"}, Keyed: keyed})
		}
		snap, err := decodeSnapshot(ctx, data, fx.open, nil)
		if err != nil {
			return
		}
		_ = snap.VerifyIntegrity()
		if f, err := state.NewFold(snap, 0, nil); err == nil {
			_ = f.Snapshot() // orders the resources
		}
		// Whatever decodes must encode, and read back the same.
		again, err := format.EncodeSnapshot(ctx, snap, fx.mgr, 0, nil)
		if err != nil {
			t.Fatalf("a decoded snapshot does not encode: %v", err)
		}
		back, err := decodeSnapshot(ctx, again, fx.open, &format.SnapshotAuth{Stack: state.StackID{Project: "test", Stack: "fuzz"}, Keyed: true})
		if err != nil {
			t.Fatalf("a re-encoded snapshot does not decode: %v\n%s", err, again)
		}
		if diff := cmp.Diff(snap, back, snapshotOpts, propertyOpts); diff != "" {
			t.Fatalf("round trip changed the snapshot:\n%s", diff)
		}
	})
}

// FuzzReplayJournal replays raw bytes as a journal on the fixture's base,
// twice: as a keyed journal, whose records must carry tags, and as a
// journal behind a snapshot without a keyed MAC, whose records must not
// (so that plain journals, those of format 1 among them, reach the entry
// decoder too). With framed set, data is instead split at 0x1e into entry
// payloads that get valid frames and tags behind a valid header, so the
// fuzzer reaches the entry decoder and the fold rather than stopping at a
// checksum or a MAC.
func FuzzReplayJournal(f *testing.F) {
	fx := loadFuzzFixture(f)
	f.Fuzz(func(t *testing.T, data []byte, framed bool) {
		ctx := context.Background()
		records := data
		if framed {
			records = tagJournal(fx, 1, bytes.Split(data, []byte{0x1e}))
		}
		for _, mac := range []*format.RecordMAC{fx.mac, nil} {
			snap, err := journal.Replay(ctx, fx.snap, string(fx.data), records, fx.mgr, state.StackID{Project: "test", Stack: "fuzz"}, mac)
			if err != nil {
				continue
			}
			_ = snap.VerifyIntegrity()
		}
	})
}

// tagJournal frames payloads as the entries, from Seq first on, of a
// journal that continues the fixture's base, tagged as a journal keyed by
// the fixture's manager is.
func tagJournal(fx *fuzzFixture, first uint64, payloads [][]byte) []byte {
	journal := format.HeaderRecord(format.BaseID(fx.data), first, nil, fx.mac)
	var prev [format.MACSize]byte
	copy(prev[:], journal[len(journal)-format.MACSize:])
	for i, p := range payloads {
		journal = format.AppendTagged(journal, format.RecordTaggedEntry, first+uint64(i), p, fx.mac, &prev)
		copy(prev[:], journal[len(journal)-format.MACSize:])
	}
	return journal
}

// TestFuzzSeeds checks the corpus is in place, and rewrites it with
// -update-seeds.
func TestFuzzSeeds(t *testing.T) {
	if !*updateSeeds {
		loadFuzzFixture(t)
		return
	}
	ctx := context.Background()
	mgr, err := secrets.NewPassphrase(testPassphrase, secrets.WithIterations(1000))
	if err != nil {
		t.Fatal(err)
	}
	base := chainStack(2)
	base.Resources[1].Inputs["s"] = resource.NewSecret(resource.NewString("fuzz"))
	data, err := format.EncodeSnapshot(ctx, base, mgr, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	write(t, fuzzBasePath, data)

	// Snapshot seeds: the base and a snapshot holding every property kind.
	full := &state.Snapshot{Resources: []*resource.State{fullState()}, PendingOperations: []resource.Operation{{Resource: fullState(), Kind: resource.OperationDeleting}}}
	fullData, err := format.EncodeSnapshot(ctx, full, mgr, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	writeSeed(t, "FuzzDecodeSnapshot", "base", data)
	writeSeed(t, "FuzzDecodeSnapshot", "every-kind", fullData)
	writeSeed(t, "FuzzDecodeSnapshot", "small", []byte(`{"version":1,"manifest":{"time":"2024-01-01T00:00:00Z"},"resources":[{"urn":"u","type":"a:b:C","inputs":{"x":[1,{"$number":"NaN"},{"$object":{"$y":true}}]}}]}`))
	unkeyed, err := format.EncodeSnapshot(ctx, chainStack(1), nil, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	writeSeed(t, "FuzzDecodeSnapshot", "unkeyed", unkeyed)

	// Journal seeds: raw journals continuing the base, and framed entry
	// lists.
	prov := base.Resources[0]
	b := newBucket("new", prov)
	b.Outputs["pw"] = resource.NewSecret(resource.NewString("p"))
	old := base.Resources[2]
	marked := old.Clone()
	marked.Delete = true
	entries := []state.Entry{
		{Kind: state.EntryBegin, Seq: 1, Op: resource.OperationCreating, New: b},
		{Kind: state.EntrySuccess, Seq: 2, Begin: 1, New: b},
		{Kind: state.EntryBegin, Seq: 3, Op: resource.OperationDeleting, Old: old},
		{Kind: state.EntryFailure, Seq: 4, Begin: 3},
		{Kind: state.EntryWrite, Seq: 5, Old: old, New: marked},
		{Kind: state.EntryBegin, Seq: 6, Op: resource.OperationUpdating, Old: b, New: b},
		// Format 2: a delete that takes another record with it.
		{Kind: state.EntryBegin, Seq: 7, Op: resource.OperationDeleting, Old: base.Resources[1]},
		{Kind: state.EntrySuccess, Seq: 8, Begin: 7, Old: base.Resources[1], With: []*resource.State{marked}},
	}
	// A journal of format 1, as an older groundwork wrote it: plain
	// records, as behind a snapshot without a keyed MAC.
	v1, err := json.Marshal(format.JournalHeader{Format: 1, Base: format.BaseID(data), FirstSeq: 1})
	if err != nil {
		t.Fatal(err)
	}
	raw1 := format.AppendRecord(nil, format.RecordHeader, 0, v1)
	var payloads [][]byte
	for _, e := range entries {
		p, _, _, err := format.EncodeEntry(ctx, nil, &e, mgr)
		if err != nil {
			t.Fatal(err)
		}
		payloads = append(payloads, p)
		if e.Seq <= 6 {
			raw1 = format.AppendRecord(raw1, format.RecordEntry, e.Seq, p)
		}
	}
	mac, err := format.NewRecordMAC(mgr)
	if err != nil {
		t.Fatal(err)
	}
	raw := tagJournal(&fuzzFixture{data: data, mac: mac}, 1, payloads)
	writeSeed(t, "FuzzReplayJournal", "raw", raw, false)
	writeSeed(t, "FuzzReplayJournal", "raw-torn", raw[:len(raw)-7], false)
	writeSeed(t, "FuzzReplayJournal", "raw-format1", raw1, false)
	writeSeed(t, "FuzzReplayJournal", "framed", bytes.Join(payloads, []byte{0x1e}), true)
}

func write(t *testing.T, path string, data []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// writeSeed writes one corpus file in the "go test fuzz v1" format.
func writeSeed(t *testing.T, target, name string, data []byte, more ...bool) {
	var b bytes.Buffer
	b.WriteString("go test fuzz v1\n[]byte(" + strconv.Quote(string(data)) + ")\n")
	for _, v := range more {
		b.WriteString("bool(" + strconv.FormatBool(v) + ")\n")
	}
	write(t, filepath.Join("testdata", "fuzz", target, name), b.Bytes())
}
