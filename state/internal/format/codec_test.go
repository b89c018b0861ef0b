package format

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"reflect"
	"testing"
	"time"

	"github.com/groundwork-iac/groundwork/state"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/groundwork-iac/groundwork/resource"
	"github.com/groundwork-iac/groundwork/state/secrets"
)

func decodeMap(ctx context.Context, data []byte, mgr secrets.Manager) (resource.PropertyMap, error) {
	d := newDecoder(string(data), mgr)
	m, err := d.propertyMap(ctx)
	if err == nil {
		err = d.end()
	}
	return m, err
}

func testManager(t testing.TB) secrets.Manager {
	t.Helper()
	m, err := secrets.NewPassphrase(testPassphrase, secrets.WithIterations(1000))
	if err != nil {
		t.Fatal(err)
	}
	return m
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

func TestPropertyValueRoundTrip(t *testing.T) {
	ctx := context.Background()
	mgr := testManager(t)
	for name, v := range propertyCases() {
		// Snapshots sort object keys; journal entries do not.
		for _, unsorted := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/unsorted=%t", name, unsorted), func(t *testing.T) {
				in := resource.PropertyMap{"v": v, "w": v}
				e := valueEncoder{mgr: mgr, unsorted: unsorted}
				data, err := e.appendMap(ctx, nil, in)
				if err != nil {
					t.Fatalf("encode: %v", err)
				}
				if !json.Valid(data) {
					t.Fatalf("encoding is not valid JSON: %s", data)
				}
				out, err := decodeMap(ctx, data, mgr)
				if err != nil {
					t.Fatalf("decode %s: %v", data, err)
				}
				if diff := cmp.Diff(in, out, propertyOpts); diff != "" {
					t.Errorf("round trip changed the value (-in +out):\n%s\nencoding: %s", diff, data)
				}
			})
		}
	}
}

// TestPropertyMapWithOneDollarKey covers a whole inputs map shaped like a
// tag.
func TestPropertyMapWithOneDollarKey(t *testing.T) {
	ctx := context.Background()
	in := resource.PropertyMap{"$unknown": resource.NewBool(true)}
	e := valueEncoder{}
	data, err := e.appendMap(ctx, nil, in)
	if err != nil {
		t.Fatal(err)
	}
	out, err := decodeMap(ctx, data, nil)
	if err != nil {
		t.Fatalf("decode %s: %v", data, err)
	}
	if diff := cmp.Diff(in, out, propertyOpts); diff != "" {
		t.Errorf("(-in +out):\n%s", diff)
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

func TestFullStateSetsEveryField(t *testing.T) {
	// Every field must differ from its zero value, so that a round trip
	// that drops one is caught. A field added to State fails here until
	// fullState (and the codec) know it.
	v := reflect.ValueOf(*fullState())
	for i := range v.NumField() {
		if v.Field(i).IsZero() {
			t.Errorf("fullState does not set State.%s", v.Type().Field(i).Name)
		}
	}
}

func TestSnapshotRoundTrip(t *testing.T) {
	ctx := context.Background()
	mgr := testManager(t)
	full := fullState()
	full.Delete = false
	in := &state.Snapshot{
		Manifest: state.Manifest{Time: time.Date(2025, 6, 1, 12, 0, 0, 5, time.UTC), LibraryVersion: "v0.1.0"},
		Resources: []*resource.State{
			newProvider("default", "p1"),
			{Type: "my:component:C", URN: testURN("my:component:C", "parent")},
			{Type: "a:b:C", URN: testURN("a:b:C", "d1"), Custom: true, Provider: "urn:pulumi:dev::proj::pulumi:providers:aws::default::p1"},
			{Type: "a:b:C", URN: testURN("a:b:C", "d2"), Custom: true, Provider: "urn:pulumi:dev::proj::pulumi:providers:aws::default::p1", Inputs: resource.PropertyMap{}},
			full,
		},
		PendingOperations: []resource.Operation{{Resource: fullState(), Kind: resource.OperationUpdating}},
	}
	data, err := EncodeSnapshot(ctx, in, mgr, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	out, err := decodeSnapshot(ctx, data, func(ctx context.Context, rec *state.SecretsState) (secrets.Manager, error) {
		if rec == nil || rec.Type != secrets.PassphraseType || !bytes.Equal(rec.State, mgr.State()) {
			t.Errorf("decode asked for manager %+v; want the one that wrote the file", rec)
		}
		return mgr, nil
	}, &SnapshotAuth{Stack: state.StackID{Project: "test", Stack: "dev"}, Keyed: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := out.VerifyIntegrity(); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(in, out, cmpopts.EquateEmpty(), propertyOpts, cmpopts.IgnoreFields(state.Snapshot{}, "Secrets", "Manifest.Version")); diff != "" {
		t.Errorf("round trip (-in +out):\n%s", diff)
	}
	if out.Manifest.Version != state.FormatVersion {
		t.Errorf("Manifest.Version = %d, want %d", out.Manifest.Version, state.FormatVersion)
	}
	// Inputs that were an empty map stay an empty map, not nil.
	if out.Resources[3].Inputs == nil || out.Resources[2].Inputs != nil {
		t.Errorf("nil and empty inputs did not survive: %v, %v", out.Resources[2].Inputs, out.Resources[3].Inputs)
	}
	if bytes.Contains(data, []byte("hunter2")) {
		t.Errorf("the encoded snapshot holds a secret's plaintext")
	}
}

func TestDecodeRejectsNewerFormat(t *testing.T) {
	for _, data := range []string{
		`{"version":3,"manifest":{},"resources":[]}`,
		`{"resources":[], "version": 7}`,
	} {
		_, err := decodeSnapshot(context.Background(), []byte(data), nil, nil)
		var fv *state.FormatVersionError
		if !errors.As(err, &fv) || fv.Found <= state.FormatVersion {
			t.Errorf("decode(%s) = %v; want *FormatVersionError", data, err)
		}
	}
}

func TestDecodeErrors(t *testing.T) {
	cases := map[string]string{
		"not json":        `{"version":1,`,
		"no version":      `{"resources":[]}`,
		"version zero":    `{"version":0}`,
		"bad inputs":      `{"version":1,"resources":[{"urn":"u","type":"t","inputs":[1]}]}`,
		"unknown tag":     `{"version":1,"resources":[{"urn":"u","type":"t","inputs":{"a":{"$what":1}}}]}`,
		"secret no mgr":   `{"version":1,"resources":[{"urn":"u","type":"t","inputs":{"a":{"$secret":"v1:xx"}}}]}`,
		"bad timeout":     `{"version":1,"resources":[{"urn":"u","type":"t","customTimeouts":{"create":"soon"}}]}`,
		"no urn":          `{"version":1,"resources":[{"type":"t"}]}`,
		"null resource":   `{"version":1,"resources":[null]}`,
		"pending no kind": `{"version":1,"resources":[],"pendingOperations":[{"resource":{"urn":"u","type":"t"}}]}`,
		"secrets no type": `{"version":1,"secrets":{},"resources":[]}`,
	}
	for name, data := range cases {
		t.Run(name, func(t *testing.T) {
			open := func(context.Context, *state.SecretsState) (secrets.Manager, error) { return nil, nil }
			if _, err := decodeSnapshot(context.Background(), []byte(data), open, nil); err == nil {
				t.Errorf("decode succeeded; want an error")
			}
		})
	}
}
