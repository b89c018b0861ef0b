package store_test

import (
	"context"
	"math"
	"strconv"
	"testing"
	"time"

	"github.com/groundwork-iac/groundwork/state"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/groundwork-iac/groundwork/resource"
	"github.com/groundwork-iac/groundwork/state/internal/format"
	"github.com/groundwork-iac/groundwork/state/secrets"
)

// Helpers shared by the tests: small stacks built from a provider and some
// custom resources, fast secrets, and go-cmp options for snapshots.

const testPassphrase = "correct horse battery staple"

func fastSecrets() state.Option {
	return state.WithSecrets(state.PassphraseSecrets(testPassphrase, secrets.WithIterations(1000)))
}

func testURN(typ, name string) resource.URN { return resource.NewURN("dev", "proj", "", typ, name) }

func newProvider(name, id string) *resource.State {
	return &resource.State{Type: "pulumi:providers:aws", URN: testURN("pulumi:providers:aws", name), Custom: true, ID: resource.ID(id)}
}

func providerRef(p *resource.State) string { return string(p.URN) + "::" + string(p.ID) }

// newBucket is a custom resource managed by prov, depending on deps.
func newBucket(name string, prov *resource.State, deps ...resource.URN) *resource.State {
	return &resource.State{
		Type: "aws:s3/bucket:Bucket", URN: testURN("aws:s3/bucket:Bucket", name), Custom: true,
		ID: resource.ID(name + "-id"), Provider: providerRef(prov), Dependencies: deps,
		Inputs:  resource.PropertyMap{"name": resource.NewString(name)},
		Outputs: resource.PropertyMap{"name": resource.NewString(name), "arn": resource.NewString("arn:" + name)},
	}
}

// chainStack returns a provider followed by n buckets, each depending on
// the one before.
func chainStack(n int) *state.Snapshot {
	p := newProvider("default", "p1")
	s := &state.Snapshot{Resources: []*resource.State{p}}
	var prev resource.URN
	for i := range n {
		var deps []resource.URN
		if prev != "" {
			deps = []resource.URN{prev}
		}
		b := newBucket(name(i), p, deps...)
		s.Resources = append(s.Resources, b)
		prev = b.URN
	}
	return s
}

func name(i int) string { return "b" + strconv.Itoa(i) }

// snapshotOpts compare snapshots by content: empty and nil slices and maps
// are the same, manifests and secrets states are ignored.
var snapshotOpts = cmp.Options{
	cmpopts.EquateEmpty(),
	cmpopts.IgnoreFields(state.Snapshot{}, "Manifest", "Secrets"),
}

func urns(s *state.Snapshot) []resource.URN {
	var out []resource.URN
	for _, r := range s.Resources {
		out = append(out, r.URN)
	}
	return out
}

func mustLock(t testing.TB, s state.Store, stack state.StackID) state.Lock {
	t.Helper()
	l, err := s.Lock(context.Background(), stack, "update")
	if err != nil {
		t.Fatalf("Lock: %v", err)
	}
	t.Cleanup(func() { _ = l.Unlock(context.Background()) })
	return l
}

func mustAppend(t testing.TB, j state.Journal, e state.Entry) uint64 {
	t.Helper()
	seq, err := j.Append(context.Background(), e)
	if err != nil {
		t.Fatalf("Append(%s %s): %v", e.Kind, entryURN(e), err)
	}
	return seq
}

func entryURN(e state.Entry) resource.URN {
	if e.New != nil {
		return e.New.URN
	}
	if e.Old != nil {
		return e.Old.URN
	}
	return ""
}

// create records a whole create step: begin, then success.
func create(t testing.TB, j state.Journal, r *resource.State) {
	t.Helper()
	b := mustAppend(t, j, state.Entry{Kind: state.EntryBegin, Op: resource.OperationCreating, New: r})
	mustAppend(t, j, state.Entry{Kind: state.EntrySuccess, Begin: b, New: r})
}

// propertyOpts compare property values exactly: DeepEquals treats assets
// with equal hashes as equal, which would hide a lost field.
var propertyOpts = cmp.Options{
	cmp.Comparer(func(a, b resource.PropertyValue) bool {
		return a.DeepEquals(b) && a.String() == b.String() && deepAssets(a, b)
	}),
}

// deepAssets compares the assets and archives inside two values field by
// field, and NaN-aware numbers bit for bit.
func deepAssets(a, b resource.PropertyValue) bool {
	switch a.Kind() {
	case resource.KindNumber:
		return math.Float64bits(a.NumberValue()) == math.Float64bits(b.NumberValue()) ||
			(math.IsNaN(a.NumberValue()) && math.IsNaN(b.NumberValue()))
	case resource.KindAsset:
		return cmp.Equal(a.AssetValue(), b.AssetValue())
	case resource.KindArchive:
		return cmp.Equal(a.ArchiveValue(), b.ArchiveValue())
	case resource.KindArray:
		x, y := a.ArrayValue(), b.ArrayValue()
		for i := range x {
			if !deepAssets(x[i], y[i]) {
				return false
			}
		}
	case resource.KindObject:
		for k, v := range a.ObjectValue() {
			if !deepAssets(v, b.ObjectValue()[k]) {
				return false
			}
		}
	case resource.KindSecret:
		return deepAssets(a.SecretElement(), b.SecretElement())
	case resource.KindOutput:
		return deepAssets(a.OutputValue().Element, b.OutputValue().Element)
	}
	return true
}

// decodeSnapshot decodes a whole snapshot file, as Load does before it
// replays the journal.
func decodeSnapshot(ctx context.Context, data []byte, open format.OpenManager, auth *format.SnapshotAuth) (*state.Snapshot, error) {
	s, _, err := format.DecodeSnapshot(ctx, string(data), open, auth)
	return s, err
}

// propertyCases holds one value of every kind, and the shapes that need
// care in JSON.
func propertyCases() map[string]resource.PropertyValue {
	archive := &resource.Archive{Hash: "ab12", Assets: map[string]resource.AssetOrArchive{
		"a.txt": {Asset: &resource.Asset{Hash: "cd34", Text: "hello"}},
		"sub":   {Archive: &resource.Archive{Path: "./sub"}},
	}}
	return map[string]resource.PropertyValue{
		"null":           resource.NewNull(),
		"true":           resource.NewBool(true),
		"false":          resource.NewBool(false),
		"int":            resource.NewNumber(42),
		"negative zero":  resource.NewNumber(math.Copysign(0, -1)),
		"fraction":       resource.NewNumber(-3.25),
		"huge":           resource.NewNumber(1e300),
		"tiny":           resource.NewNumber(5e-324),
		"big int":        resource.NewNumber(1 << 53),
		"nan":            resource.NewNumber(math.NaN()),
		"+inf":           resource.NewNumber(math.Inf(1)),
		"-inf":           resource.NewNumber(math.Inf(-1)),
		"string":         resource.NewString("plain"),
		"escapes":        resource.NewString("quote\" backslash\\ nl\n tab\t ctl\x01 uni é 😀 \u2028"),
		"empty string":   resource.NewString(""),
		"array":          resource.NewArray(resource.NewNumber(1), resource.NewString("x"), resource.NewNull()),
		"empty array":    resource.NewArray(),
		"object":         resource.NewObject(resource.PropertyMap{"a": resource.NewNumber(1), "b": resource.NewArray()}),
		"empty object":   resource.NewObject(resource.PropertyMap{}),
		"dollar object":  resource.NewObject(resource.PropertyMap{"$secret": resource.NewString("not a tag")}),
		"dollar keys":    resource.NewObject(resource.PropertyMap{"$a": resource.NewNumber(1), "$b": resource.NewNumber(2)}),
		"asset text":     resource.NewAssetValue(&resource.Asset{Hash: "0123abcd", Text: "content"}),
		"asset path":     resource.NewAssetValue(&resource.Asset{Hash: "99", Path: "./file.txt"}),
		"asset uri":      resource.NewAssetValue(&resource.Asset{URI: "https://example.com/x"}),
		"archive":        resource.NewArchiveValue(archive),
		"empty archive":  resource.NewArchiveValue(&resource.Archive{Assets: map[string]resource.AssetOrArchive{}}),
		"archive uri":    resource.NewArchiveValue(&resource.Archive{Hash: "ff", URI: "s3://b/k.zip"}),
		"ref custom":     resource.NewResourceReference(resource.ResourceReference{URN: testURN("a:b:C", "r"), ID: "id-1", PackageVersion: "1.2.3"}),
		"ref component":  resource.NewResourceReference(resource.ResourceReference{URN: testURN("a:b:C", "c")}),
		"ref unknown id": resource.NewResourceReference(resource.ResourceReference{URN: testURN("a:b:C", "u"), IDUnknown: true}),
		"unknown":        resource.NewUnknown(),
		"secret":         resource.NewSecret(resource.NewString("hunter2")),
		"secret object":  resource.NewSecret(resource.NewObject(resource.PropertyMap{"k": resource.NewSecret(resource.NewNumber(7))})),
		"output known": resource.NewOutput(resource.Output{Element: resource.NewString("v"), Known: true,
			Dependencies: []resource.URN{testURN("a:b:C", "d")}}),
		"output secret":  resource.NewOutput(resource.Output{Element: resource.NewNumber(3), Known: true, Secret: true}),
		"output unknown": resource.NewOutput(resource.Output{Secret: true, Dependencies: []resource.URN{testURN("a:b:C", "d")}}),
		"nested": resource.NewArray(resource.NewObject(resource.PropertyMap{
			"deep": resource.NewArray(resource.NewSecret(resource.NewArray(resource.NewAssetValue(&resource.Asset{Text: "t"})))),
		})),
	}
}

// fullState sets every field of resource.State; the test below fails if a
// field is added to State and not set here.
func fullState() *resource.State {
	props := resource.PropertyMap{}
	for name, v := range propertyCases() {
		if name != "unknown" && name != "output unknown" && name != "ref unknown id" {
			props[resource.PropertyKey(name)] = v
		}
	}
	return &resource.State{
		Type: "aws:s3/bucket:Bucket", URN: testURN("aws:s3/bucket:Bucket", "full"), Custom: true, Delete: true,
		ID: "bucket-123", Inputs: props, Outputs: resource.PropertyMap{"arn": resource.NewString("arn:x")},
		Parent: testURN("my:component:C", "parent"), Protect: true, External: true,
		Dependencies:         []resource.URN{testURN("a:b:C", "d1"), testURN("a:b:C", "d2")},
		PropertyDependencies: map[resource.PropertyKey][]resource.URN{"name": {testURN("a:b:C", "d1")}, "x": {}},
		Provider:             "urn:pulumi:dev::proj::pulumi:providers:aws::default::p1",
		InitErrors:           []string{"timed out", "half done"}, PendingReplacement: true, RetainOnDelete: true,
		DeletedWith: testURN("a:b:C", "d2"), IgnoreChanges: []string{"tags", "a.b[0]"}, ReplaceOnChanges: []string{"name"},
		CustomTimeouts:          resource.CustomTimeouts{Create: 90 * time.Second, Update: time.Hour + 3*time.Nanosecond, Delete: time.Minute},
		ImportID:                "import-1",
		AdditionalSecretOutputs: []resource.PropertyKey{"password"},
		Aliases:                 []resource.URN{testURN("aws:s3/bucket:Bucket", "old")},
		Hooks:                   resource.Hooks{resource.HookBeforeCreate: {"audit", "check"}, resource.HookAfterDelete: {"notify"}},
		Created:                 time.Date(2024, 5, 6, 7, 8, 9, 123456789, time.UTC),
		Modified:                time.Date(2025, 1, 2, 3, 4, 5, 6, time.FixedZone("x", 3600)),
	}
}

// The names of a stack's files in the file store, which the memory store
// keeps under the same names (see its Files).
const (
	fileSnapshot = "snapshot.json"
	fileJournal  = "journal"
	fileLock     = "lock"
)

// dev is the stack most tests work on.
var dev = state.StackID{Project: "test", Stack: "dev"}
