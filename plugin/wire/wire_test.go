package wire_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/testing/protocmp"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/groundwork-iac/groundwork/plugin/wire"
	"github.com/groundwork-iac/groundwork/resource"
)

const (
	urnA = resource.URN("urn:pulumi:dev::proj::mem:index:Thing::a")
	urnB = resource.URN("urn:pulumi:dev::proj::mem:index:Thing::b")
)

// mustJSON parses JSON into a wire value.
func mustJSON(t *testing.T, s string) *structpb.Value {
	t.Helper()
	var v structpb.Value
	if err := protojson.Unmarshal([]byte(s), &v); err != nil {
		t.Fatalf("bad test JSON %s: %v", s, err)
	}
	return &v
}

func sigJSON(sig, rest string) string {
	if rest != "" {
		rest = "," + rest
	}
	return `{"` + wire.SignatureKey + `":"` + sig + `"` + rest + `}`
}

var textAsset = resource.NewTextAsset("hello")

// roundTrips lists every kind with its exact wire form under KeepAll.
var roundTrips = []struct {
	name string
	v    resource.PropertyValue
	json string
}{
	{"null", resource.NewNull(), `null`},
	{"true", resource.NewBool(true), `true`},
	{"false", resource.NewBool(false), `false`},
	{"number", resource.NewNumber(4.5), `4.5`},
	{"string", resource.NewString("héllo"), `"héllo"`},
	{"empty array", resource.NewArray(), `[]`},
	{"array", resource.NewArray(resource.NewNumber(1), resource.NewString("x"), resource.NewNull()), `[1,"x",null]`},
	{"object", resource.NewObject(resource.PropertyMap{"a": resource.NewBool(true), "b": resource.NewObject(nil)}), `{"a":true,"b":{}}`},
	{"unknown", resource.NewUnknown(), `"` + wire.UnknownStringValue + `"`},
	{"secret", resource.NewSecret(resource.NewString("pw")), sigJSON(wire.SecretSig, `"value":"pw"`)},
	{"secret object", resource.NewSecret(resource.NewObject(resource.PropertyMap{"k": resource.NewUnknown()})),
		sigJSON(wire.SecretSig, `"value":{"k":"`+wire.UnknownStringValue+`"}`)},
	{"text asset", resource.NewAssetValue(textAsset), sigJSON(wire.AssetSig, `"hash":"`+textAsset.Hash+`","text":"hello"`)},
	{"path asset", resource.NewAssetValue(resource.NewPathAsset("a/b.txt")), sigJSON(wire.AssetSig, `"path":"a/b.txt"`)},
	{"uri asset", resource.NewAssetValue(&resource.Asset{URI: "https://example.com/x", Hash: "abc"}), sigJSON(wire.AssetSig, `"hash":"abc","uri":"https://example.com/x"`)},
	{"path archive", resource.NewArchiveValue(resource.NewPathArchive("dir")), sigJSON(wire.ArchiveSig, `"path":"dir"`)},
	{"uri archive", resource.NewArchiveValue(&resource.Archive{URI: "file:///x.zip", Hash: "h"}), sigJSON(wire.ArchiveSig, `"hash":"h","uri":"file:///x.zip"`)},
	{"asset archive", resource.NewArchiveValue(&resource.Archive{Assets: map[string]resource.AssetOrArchive{
		"a.txt": {Asset: resource.NewPathAsset("a.txt")},
		"sub":   {Archive: resource.NewPathArchive("sub")},
	}}), sigJSON(wire.ArchiveSig, `"assets":{"a.txt":`+sigJSON(wire.AssetSig, `"path":"a.txt"`)+`,"sub":`+sigJSON(wire.ArchiveSig, `"path":"sub"`)+`}`)},
	{"component reference", resource.NewResourceReference(resource.ResourceReference{URN: urnA, PackageVersion: "1.2.3"}),
		sigJSON(wire.ResourceReferenceSig, `"urn":"`+string(urnA)+`","packageVersion":"1.2.3"`)},
	{"custom reference", resource.NewResourceReference(resource.ResourceReference{URN: urnA, ID: "id-1"}),
		sigJSON(wire.ResourceReferenceSig, `"urn":"`+string(urnA)+`","id":"id-1"`)},
	{"reference with unknown ID", resource.NewResourceReference(resource.ResourceReference{URN: urnA, IDUnknown: true}),
		sigJSON(wire.ResourceReferenceSig, `"urn":"`+string(urnA)+`","id":""`)},
	{"known output", resource.NewOutput(resource.Output{Element: resource.NewNumber(2), Known: true, Dependencies: []resource.URN{urnA, urnB}}),
		sigJSON(wire.OutputValueSig, `"value":2,"dependencies":["`+string(urnA)+`","`+string(urnB)+`"]`)},
	{"unknown secret output", resource.NewOutput(resource.Output{Secret: true}), sigJSON(wire.OutputValueSig, `"secret":true`)},
	{"nested", resource.NewObject(resource.PropertyMap{
		"list": resource.NewArray(resource.NewSecret(resource.NewNumber(1)), resource.NewUnknown()),
	}), `{"list":[` + sigJSON(wire.SecretSig, `"value":1`) + `,"` + wire.UnknownStringValue + `"]}`},
}

func TestRoundTrip(t *testing.T) {
	for _, tt := range roundTrips {
		t.Run(tt.name, func(t *testing.T) {
			w, err := wire.MarshalValue(tt.v, wire.KeepAll())
			if err != nil {
				t.Fatalf("MarshalValue(%v): %v", tt.v, err)
			}
			if diff := cmp.Diff(mustJSON(t, tt.json), w, protocmp.Transform()); diff != "" {
				t.Errorf("MarshalValue(%v) wire form (-want +got):\n%s", tt.v, diff)
			}
			got, err := wire.UnmarshalValue(w, wire.KeepAll())
			if err != nil {
				t.Fatalf("UnmarshalValue: %v", err)
			}
			if diff := cmp.Diff(tt.v, got); diff != "" {
				t.Errorf("round trip (-want +got):\n%s", diff)
			}
		})
	}
}

func TestRoundTripProperties(t *testing.T) {
	m := resource.PropertyMap{}
	for _, tt := range roundTrips {
		m[resource.PropertyKey(tt.name)] = tt.v
	}
	s, err := wire.MarshalProperties(m, wire.KeepAll())
	if err != nil {
		t.Fatal(err)
	}
	got, err := wire.UnmarshalProperties(s, wire.KeepAll())
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(m, got); diff != "" {
		t.Errorf("round trip (-want +got):\n%s", diff)
	}
	if got, err := wire.UnmarshalProperties(nil, wire.KeepAll()); err != nil || len(got) != 0 {
		t.Errorf("UnmarshalProperties(nil) = %v, %v; want an empty map", got, err)
	}
}

func TestEverySentinelIsUnknown(t *testing.T) {
	for _, s := range []string{wire.UnknownBoolValue, wire.UnknownNumberValue, wire.UnknownStringValue,
		wire.UnknownArrayValue, wire.UnknownAssetValue, wire.UnknownArchiveValue, wire.UnknownObjectValue} {
		if !wire.IsUnknownSentinel(s) {
			t.Errorf("IsUnknownSentinel(%s) = false", s)
		}
		v, err := wire.UnmarshalValue(structpb.NewStringValue(s), wire.KeepAll())
		if err != nil || !v.IsUnknown() {
			t.Errorf("UnmarshalValue(%s) = %v, %v; want unknown", s, v, err)
		}
		back, err := wire.MarshalValue(v, wire.KeepAll())
		if err != nil || back.GetStringValue() != wire.UnknownStringValue {
			t.Errorf("MarshalValue(unknown from %s) = %v, %v; want the string sentinel", s, back, err)
		}
		// Without KeepUnknowns, the sentinel is dropped from objects.
		m, err := wire.UnmarshalProperties(&structpb.Struct{Fields: map[string]*structpb.Value{"k": structpb.NewStringValue(s)}}, wire.Options{})
		if err != nil || len(m) != 0 {
			t.Errorf("UnmarshalProperties without KeepUnknowns = %v, %v; want {}", m, err)
		}
		// An unknown reference ID may be spelled with any sentinel.
		ref := mustJSON(t, sigJSON(wire.ResourceReferenceSig, `"urn":"`+string(urnA)+`","id":"`+s+`"`))
		if v, err := wire.UnmarshalValue(ref, wire.KeepAll()); err != nil || !v.ResourceReferenceValue().IDUnknown {
			t.Errorf("reference with id %s = %v, %v; want an unknown ID", s, v, err)
		}
	}
	if wire.IsUnknownSentinel("04da6b54") {
		t.Error("IsUnknownSentinel accepts a prefix")
	}
}
