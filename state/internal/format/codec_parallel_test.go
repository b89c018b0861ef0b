package format

import (
	"bytes"
	"context"
	"fmt"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/groundwork-iac/groundwork/state"

	"github.com/google/go-cmp/cmp"

	"github.com/groundwork-iac/groundwork/resource"
	"github.com/groundwork-iac/groundwork/state/secrets"
)

// bigSnapshot encodes a stack large enough to be read in chunks, and the
// manager of its secrets.
func bigSnapshot(t *testing.T) ([]byte, secrets.Manager) {
	t.Helper()
	mgr := testManager(t)
	data, err := EncodeSnapshot(context.Background(), benchStack(3000), mgr, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(data) < 4*parallelChunk {
		t.Fatalf("the test stack is only %d bytes", len(data))
	}
	return data, mgr
}

// readResources reads the resources array of data, in chunks or serially.
func readResources(t *testing.T, data []byte, mgr secrets.Manager, parallel bool) ([]*resource.State, bool, error) {
	t.Helper()
	d := newSharingDecoder(string(data), mgr)
	i := bytes.Index(data, []byte(`"resources":`))
	if i < 0 {
		t.Fatal("no resources")
	}
	d.pos = i + len(`"resources":`)
	if parallel {
		out, ok := d.statesParallel(context.Background())
		return out, ok, nil
	}
	out, err := d.statesSerial(context.Background())
	return out, true, err
}

func TestParallelResourcesMatchSerial(t *testing.T) {
	data, mgr := bigSnapshot(t)
	ser, _, err := readResources(t, data, mgr, false)
	if err != nil {
		t.Fatal(err)
	}
	if len(ser) != 3001 {
		t.Fatalf("read %d resources", len(ser))
	}
	for _, procs := range []int{2, 3, 8} {
		old := runtime.GOMAXPROCS(procs) // the number of chunks
		par, ok, _ := readResources(t, data, mgr, true)
		runtime.GOMAXPROCS(old)
		if !ok {
			t.Fatalf("%d chunks of a snapshot laid out as writers lay it out did not line up", procs)
		}
		if !reflect.DeepEqual(ser, par) {
			t.Fatalf("a read in %d chunks differs (-serial +parallel):\n%s", procs, cmp.Diff(ser, par, snapshotOpts, propertyOpts))
		}
	}
}

// TestParallelResourcesFallBack covers files where a cut can fall where no
// record begins, and damage in the last chunk: the result, and the error,
// are those of a serial read.
func TestParallelResourcesFallBack(t *testing.T) {
	ctx := context.Background()
	data, mgr := bigSnapshot(t)
	open := func(context.Context, *state.SecretsState) (secrets.Manager, error) { return mgr, nil }

	// Record separators inside every record: a member whose value is an
	// array of objects, one per line.
	padded := bytes.ReplaceAll(data, []byte(`"inputs":{`), []byte("\"inputs\":{\"pad\":[1,\n{\"a\":1},\n{\"b\":2}],"))
	got, err := decodeSnapshot(ctx, padded, open, nil)
	if err != nil {
		t.Fatal(err)
	}
	want, _, err := readResources(t, padded, mgr, false)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(want, got.Resources) {
		t.Fatalf("a file with separators inside records read differently (-serial +got):\n%s", cmp.Diff(want, got.Resources, snapshotOpts, propertyOpts))
	}

	// Damage in the last record: the error is the serial read's, naming
	// the record by its position.
	at := bytes.LastIndex(data, []byte(`"region":`)) + len(`"region":`)
	broken := append(append(bytes.Clone(data[:at]), "tru"...), data[at:]...)
	_, err = decodeSnapshot(ctx, broken, open, nil)
	_, _, serr := readResources(t, broken, mgr, false)
	if err == nil || serr == nil || !strings.Contains(err.Error(), "resource 3000: ") || !strings.HasSuffix(err.Error(), serr.Error()) {
		t.Fatalf("want the serial read's error %v, got %v", serr, err)
	}
}

// TestParallelEncodingMatchesSerial encodes a large stack on one core and
// on several: the bytes are the same, and so is the error when two records
// cannot be encoded (the first one's).
func TestParallelEncodingMatchesSerial(t *testing.T) {
	ctx := context.Background()
	prov := newProvider("default", "p1")
	snap := &state.Snapshot{Resources: []*resource.State{prov}}
	for i := range 3000 {
		snap.Resources = append(snap.Resources, newBucket(fmt.Sprintf("b%d", i), prov))
	}
	encode := func(procs int, s *state.Snapshot) ([]byte, error) {
		old := runtime.GOMAXPROCS(procs)
		defer runtime.GOMAXPROCS(old)
		return EncodeSnapshot(ctx, s, nil, 0, nil)
	}
	want, err := encode(1, snap)
	if err != nil {
		t.Fatal(err)
	}
	broken := *snap
	broken.Resources = slices.Clone(snap.Resources)
	for _, i := range []int{1700, 2900} { // a secret, and no manager to seal it
		r := broken.Resources[i].Clone()
		r.Outputs = resource.PropertyMap{"s": resource.NewSecret(resource.NewString("x"))}
		broken.Resources[i] = r
	}
	_, wantErr := encode(1, &broken)
	if wantErr == nil || !strings.Contains(wantErr.Error(), "b1699") {
		t.Fatalf("want an error naming b1699, got %v", wantErr)
	}
	for _, procs := range []int{2, 3, 8} {
		got, err := encode(procs, snap)
		if err != nil || !bytes.Equal(got, want) {
			t.Fatalf("%d cores: the encoding differs (%v)", procs, err)
		}
		if _, err := encode(procs, &broken); err == nil || err.Error() != wantErr.Error() {
			t.Fatalf("%d cores: error %v, want %v", procs, err, wantErr)
		}
	}
}
