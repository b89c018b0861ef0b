package store_test

import (
	"context"
	"fmt"
	"github.com/groundwork-iac/groundwork/state/secrets"
	"os"
	"path/filepath"
	"testing"

	"github.com/groundwork-iac/groundwork/state"
	"github.com/groundwork-iac/groundwork/state/internal/format"

	"github.com/groundwork-iac/groundwork/resource"
	"github.com/groundwork-iac/groundwork/state/filestore"
	"github.com/groundwork-iac/groundwork/state/internal/journal"
	"github.com/groundwork-iac/groundwork/state/memstore"
)

// reportCPU adds a "cpu-ns/op" metric: the process's CPU time (user and
// system, garbage collection included) per iteration. On a shared machine
// it is steadier than wall time, which also counts waiting for a CPU.
// Call it right before the timed loop and defer the function it returns.
func reportCPU(b *testing.B) func() {
	start := cpuTime()
	return func() {
		if b.N > 0 {
			b.ReportMetric(float64((cpuTime()-start).Nanoseconds())/float64(b.N), "cpu-ns/op")
		}
	}
}

// benchResource is a custom resource of typical size: about ten inputs and
// a dozen outputs, one of them secret, with a nested object and an array.
func benchResource(i int, prov *resource.State) *resource.State {
	n := fmt.Sprintf("res-%06d", i)
	tags := resource.NewObject(resource.PropertyMap{
		"team": resource.NewString("platform"), "env": resource.NewString("prod"), "index": resource.NewNumber(float64(i)),
	})
	inputs := resource.PropertyMap{
		"name": resource.NewString(n), "region": resource.NewString("eu-west-1"), "size": resource.NewNumber(20),
		"enabled": resource.NewBool(true), "tags": tags,
		"ports":  resource.NewArray(resource.NewNumber(80), resource.NewNumber(443)),
		"policy": resource.NewString(`{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"s3:GetObject"}]}`),
		"owner":  resource.NewString("someone@example.com"),
	}
	outputs := inputs.Copy()
	outputs["id"] = resource.NewString(n + "-id")
	outputs["arn"] = resource.NewString("arn:aws:s3:::" + n)
	outputs["createdAt"] = resource.NewString("2025-01-01T00:00:00Z")
	outputs["password"] = resource.NewSecret(resource.NewString("hunter2-" + n))
	return &resource.State{
		Type: "aws:s3/bucket:Bucket", URN: testURN("aws:s3/bucket:Bucket", n), Custom: true,
		ID: resource.ID(n + "-id"), Provider: providerRef(prov), Inputs: inputs, Outputs: outputs,
		Dependencies: []resource.URN{prov.URN},
	}
}

func benchStack(n int) *state.Snapshot {
	prov := newProvider("default", "p1")
	s := &state.Snapshot{Resources: []*resource.State{prov}}
	for i := range n {
		s.Resources = append(s.Resources, benchResource(i, prov))
	}
	return s
}

// BenchmarkJournalAppend measures one update step (a begin and a success
// entry) on stacks of different sizes. It uses SyncNever so that the
// figure is the journal's own work — encoding, encryption, framing, the
// fold, the write — rather than the disk's fsync latency, which is the same
// for any stack size and which group commit shares among concurrent steps.
func BenchmarkJournalAppend(b *testing.B) {
	for _, n := range []int{1_000, 100_000} {
		b.Run(fmt.Sprintf("stack=%d", n), func(b *testing.B) {
			ctx := context.Background()
			s, err := filestore.New(b.TempDir(), fastSecrets(), state.WithSync(state.SyncNever))
			if err != nil {
				b.Fatal(err)
			}
			mustLock(b, s, dev)
			base := benchStack(n)
			j, err := s.OpenJournal(ctx, dev, base)
			if err != nil {
				b.Fatal(err)
			}
			defer j.Close(ctx)
			b.ReportAllocs()
			defer reportCPU(b)()
			for i := 0; b.Loop(); i++ {
				r := base.Resources[1+i%n]
				seq, err := j.Append(ctx, state.Entry{Kind: state.EntryBegin, Op: resource.OperationUpdating, Old: r, New: r})
				if err == nil {
					_, err = j.Append(ctx, state.Entry{Kind: state.EntrySuccess, Begin: seq, Old: r, New: r})
				}
				if err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkJournalConcurrent measures steps from 16 goroutines with real
// fsyncs: group commit shares each fsync among the steps waiting for it,
// so its cost per step is a fraction of one fsync.
func BenchmarkJournalConcurrent(b *testing.B) {
	ctx := context.Background()
	s, err := filestore.New(b.TempDir(), fastSecrets())
	if err != nil {
		b.Fatal(err)
	}
	mustLock(b, s, dev)
	base := benchStack(1000)
	j, err := s.OpenJournal(ctx, dev, base)
	if err != nil {
		b.Fatal(err)
	}
	defer j.Close(ctx)
	b.SetParallelism(8) // 16 goroutines on 2 CPUs
	defer reportCPU(b)()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		i := 0
		for pb.Next() {
			r := base.Resources[1+i%1000]
			i++
			seq, err := j.Append(ctx, state.Entry{Kind: state.EntryBegin, Op: resource.OperationUpdating, Old: r, New: r})
			if err == nil {
				_, err = j.Append(ctx, state.Entry{Kind: state.EntrySuccess, Begin: seq, Old: r, New: r})
			}
			if err != nil {
				b.Error(err)
				return
			}
		}
	})
}

// journalOf10k returns a journal that creates 10,000 resources on an empty
// stack, and the snapshot bytes it continues.
func journalOf10k(b *testing.B) (base *state.Snapshot, baseData, journal []byte, fx *fuzzFixture) {
	ctx := context.Background()
	s := memstore.New(fastSecrets())
	mustLock(b, s, dev)
	stack := benchStack(10_000)
	j, err := s.OpenJournal(ctx, dev, &state.Snapshot{Resources: stack.Resources[:1]})
	if err != nil {
		b.Fatal(err)
	}
	for _, r := range stack.Resources[1:] {
		create(b, j, r)
	}
	files := s.Files(dev)
	base, err = decodeSnapshot(ctx, files[fileSnapshot], func(ctx context.Context, recorded *state.SecretsState) (secrets.Manager, error) {
		return s.SecretsManager(ctx, dev, recorded)
	}, &format.SnapshotAuth{Stack: dev, Keyed: true})
	if err != nil {
		b.Fatal(err)
	}
	mgr, _ := s.SecretsManager(ctx, dev, base.Secrets)
	mac, err := format.NewRecordMAC(mgr)
	if err != nil || mac == nil {
		b.Fatalf("no record MAC: %v", err)
	}
	return base, files[fileSnapshot], files[fileJournal], &fuzzFixture{mgr: mgr, mac: mac}
}

// BenchmarkReplay10k folds a 20,000-entry journal (10,000 creates) into a
// snapshot: framing checks, entry decoding and decryption, the fold, and
// the final dependency sort.
func BenchmarkReplay10k(b *testing.B) {
	base, baseData, records, fx := journalOf10k(b)
	b.SetBytes(int64(len(records)))
	b.ReportAllocs()
	defer reportCPU(b)()
	for b.Loop() {
		snap, err := journal.Replay(context.Background(), base, string(baseData), records, fx.mgr, dev, fx.mac)
		if err != nil || len(snap.Resources) != 10_001 {
			b.Fatal(err)
		}
	}
}

// BenchmarkFold10k is the fold alone, as replay and the journal run it: 20,000
// entries applied (references checked; unknown values are left to the
// encoder or to Load's final integrity check), then one snapshot
// materialized.
func BenchmarkFold10k(b *testing.B) {
	stack := benchStack(10_000)
	var entries []state.Entry
	for _, r := range stack.Resources[1:] {
		entries = append(entries, state.Entry{Kind: state.EntryBegin, Op: resource.OperationCreating, New: r})
		entries = append(entries, state.Entry{Kind: state.EntrySuccess, Begin: uint64(len(entries)), New: r})
	}
	for i := range entries {
		entries[i].Seq = uint64(i + 1)
	}
	b.ReportAllocs()
	defer reportCPU(b)()
	for b.Loop() {
		f, _ := state.NewFold(&state.Snapshot{Resources: stack.Resources[:1]}, 0, nil)
		for i := range entries {
			if err := f.ApplyKnown(&entries[i]); err != nil {
				b.Fatal(err)
			}
		}
		if s := f.Snapshot(); len(s.Resources) != 10_001 {
			b.Fatal(len(s.Resources))
		}
	}
}

// BenchmarkLoad10k loads a 10,000-resource stack from a FileStore: read,
// decode (with 10,000 secrets to decrypt) and integrity check.
func BenchmarkLoad10k(b *testing.B) {
	ctx := context.Background()
	s, err := filestore.New(b.TempDir(), fastSecrets())
	if err != nil {
		b.Fatal(err)
	}
	if err := s.Save(ctx, dev, benchStack(10_000)); err != nil {
		b.Fatal(err)
	}
	data, _ := os.ReadFile(filepath.Join(s.Root(), "test", "dev", fileSnapshot))
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	defer reportCPU(b)()
	for b.Loop() {
		snap, err := s.Load(ctx, dev)
		if err != nil || len(snap.Resources) != 10_001 {
			b.Fatal(err)
		}
	}
}

// BenchmarkSave10k writes a 10,000-resource stack: integrity check, encode
// (with 10,000 secrets to encrypt), and the atomic, fsynced replace.
func BenchmarkSave10k(b *testing.B) {
	ctx := context.Background()
	s, err := filestore.New(b.TempDir(), fastSecrets())
	if err != nil {
		b.Fatal(err)
	}
	stack := benchStack(10_000)
	b.ReportAllocs()
	defer reportCPU(b)()
	for b.Loop() {
		if err := s.Save(ctx, dev, stack); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkUnchangedRerun10k is what the store does for an operation that
// records nothing on a 10,000-resource stack with no secrets manager (so
// a snapshot sealed by no MAC): Load, open the journal on what it
// loaded, commit and close.
func BenchmarkUnchangedRerun10k(b *testing.B) {
	ctx := context.Background()
	s, err := filestore.New(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	stack := benchStack(10_000)
	for _, r := range stack.Resources {
		delete(r.Outputs, "password") // no secret: there is no secrets manager
	}
	if err := s.Save(ctx, dev, stack); err != nil {
		b.Fatal(err)
	}
	mustLock(b, s, dev)
	b.ReportAllocs()
	defer reportCPU(b)()
	for b.Loop() {
		snap, err := s.Load(ctx, dev)
		if err != nil {
			b.Fatal(err)
		}
		j, err := s.OpenJournal(ctx, dev, snap)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := j.Commit(ctx); err != nil {
			b.Fatal(err)
		}
		if err := j.Close(ctx); err != nil {
			b.Fatal(err)
		}
	}
}
