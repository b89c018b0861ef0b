package wire_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/protobuf/testing/protocmp"

	"github.com/groundwork-iac/groundwork/plugin/wire"
	"github.com/groundwork-iac/groundwork/resource"
)

// A peer that lacks an ability gets the value degraded to what it stands
// for.
func TestMarshalDegrades(t *testing.T) {
	all := wire.KeepAll()
	noSecrets, noRefs, noOutputs, noUnknowns := all, all, all, all
	noSecrets.KeepSecrets = false
	noRefs.KeepResources = false
	noOutputs.KeepOutputValues = false
	noUnknowns.KeepUnknowns = false
	unk := `"` + wire.UnknownStringValue + `"`
	tests := []struct {
		name string
		v    resource.PropertyValue
		opts wire.Options
		json string
	}{
		{"secret", resource.NewSecret(resource.NewString("pw")), noSecrets, `"pw"`},
		{"custom reference", resource.NewResourceReference(resource.ResourceReference{URN: urnA, ID: "i"}), noRefs, `"i"`},
		{"component reference", resource.NewResourceReference(resource.ResourceReference{URN: urnA}), noRefs, `"` + string(urnA) + `"`},
		{"reference with unknown ID", resource.NewResourceReference(resource.ResourceReference{URN: urnA, IDUnknown: true}), noRefs, unk},
		{"reference with unknown ID, no unknowns", resource.NewResourceReference(resource.ResourceReference{URN: urnA, IDUnknown: true}),
			wire.Options{}, `null`},
		{"known output", resource.NewOutput(resource.Output{Element: resource.NewString("x"), Known: true}), noOutputs, `"x"`},
		{"unknown output", resource.NewOutput(resource.Output{}), noOutputs, unk},
		{"secret output", resource.NewOutput(resource.Output{Element: resource.NewString("x"), Known: true, Secret: true}), noOutputs,
			sigJSON(wire.SecretSig, `"value":"x"`)},
		{"unknown secret output", resource.NewOutput(resource.Output{Secret: true}), noOutputs, sigJSON(wire.SecretSig, `"value":`+unk)},
		{"secret output, no secrets", resource.NewOutput(resource.Output{Element: resource.NewString("x"), Known: true, Secret: true}),
			wire.Options{KeepUnknowns: true}, `"x"`},
		{"output known as unknown", resource.NewOutput(resource.Output{Element: resource.NewUnknown(), Known: true}), all,
			sigJSON(wire.OutputValueSig, "")},
		{"unknown in array", resource.NewArray(resource.NewUnknown(), resource.NewBool(true)), noUnknowns, `[null,true]`},
		{"unknown in object", resource.NewObject(resource.PropertyMap{"u": resource.NewUnknown(), "k": resource.NewNull()}), noUnknowns, `{"k":null}`},
		{"secret unknown", resource.NewObject(resource.PropertyMap{"s": resource.NewSecret(resource.NewUnknown())}), noUnknowns, `{}`},
		{"skip nulls", resource.NewObject(resource.PropertyMap{"n": resource.NewNull(), "a": resource.NewArray(resource.NewNull())}),
			wire.Options{SkipNulls: true}, `{"a":[null]}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w, err := wire.MarshalValue(tt.v, tt.opts)
			if err != nil {
				t.Fatalf("MarshalValue: %v", err)
			}
			if diff := cmp.Diff(mustJSON(t, tt.json), w, protocmp.Transform()); diff != "" {
				t.Errorf("MarshalValue(%v, %+v) (-want +got):\n%s", tt.v, tt.opts, diff)
			}
		})
	}
}

func TestUnmarshalDegrades(t *testing.T) {
	all := wire.KeepAll()
	noSecrets, noRefs, noOutputs := all, all, all
	noSecrets.KeepSecrets = false
	noRefs.KeepResources = false
	noOutputs.KeepOutputValues = false
	secretX := sigJSON(wire.SecretSig, `"value":"x"`)
	tests := []struct {
		name string
		json string
		opts wire.Options
		want resource.PropertyValue
	}{
		{"secret", secretX, noSecrets, resource.NewString("x")},
		{"secret without value", sigJSON(wire.SecretSig, ""), all, resource.NewSecret(resource.NewNull())},
		{"custom reference", sigJSON(wire.ResourceReferenceSig, `"urn":"`+string(urnA)+`","id":"i"`), noRefs, resource.NewString("i")},
		{"component reference", sigJSON(wire.ResourceReferenceSig, `"urn":"`+string(urnA)+`"`), noRefs, resource.NewString(string(urnA))},
		{"reference with unknown ID", sigJSON(wire.ResourceReferenceSig, `"urn":"`+string(urnA)+`","id":""`), noRefs, resource.NewUnknown()},
		{"known output", sigJSON(wire.OutputValueSig, `"value":"x","dependencies":[]`), noOutputs, resource.NewString("x")},
		{"unknown output", sigJSON(wire.OutputValueSig, `"dependencies":["`+string(urnA)+`"]`), noOutputs, resource.NewUnknown()},
		{"secret output", sigJSON(wire.OutputValueSig, `"value":"x","secret":true`), noOutputs, resource.NewSecret(resource.NewString("x"))},
		{"unknown secret output", sigJSON(wire.OutputValueSig, `"secret":true`), noOutputs, resource.NewSecret(resource.NewUnknown())},
		{"secret output, no secrets", sigJSON(wire.OutputValueSig, `"value":"x","secret":true`), wire.Options{}, resource.NewString("x")},
		{"output with sentinel value", sigJSON(wire.OutputValueSig, `"value":"`+wire.UnknownNumberValue+`"`), all, resource.NewOutput(resource.Output{})},
		{"unknown in array", `["` + wire.UnknownArrayValue + `",1]`, wire.Options{}, resource.NewArray(resource.NewNull(), resource.NewNumber(1))},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := wire.UnmarshalValue(mustJSON(t, tt.json), tt.opts)
			if err != nil {
				t.Fatalf("UnmarshalValue: %v", err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("UnmarshalValue(%s, %+v) (-want +got):\n%s", tt.json, tt.opts, diff)
			}
		})
	}
}

func TestMalformed(t *testing.T) {
	tests := []struct {
		name, json, path, reason string
	}{
		{"unknown signature", `{"a":` + sigJSON("nope", "") + `}`, "a", `unrecognized signature "nope"`},
		{"signature not a string", `{"a":[{"` + wire.SignatureKey + `":1}]}`, "a[0]", "want a signature string"},
		{"asset hash", `{"a":` + sigJSON(wire.AssetSig, `"hash":1`) + `}`, "a", "malformed asset: hash is a number"},
		{"archive assets", sigJSON(wire.ArchiveSig, `"assets":[]`), "", "assets is an array"},
		{"archive member", sigJSON(wire.ArchiveSig, `"assets":{"x":"y"}`), `assets.x`, "malformed archive member"},
		{"reference without urn", sigJSON(wire.ResourceReferenceSig, `"id":"i"`), "", "no urn"},
		{"reference id", sigJSON(wire.ResourceReferenceSig, `"urn":"u","id":true`), "", "id is a bool"},
		{"output secret", sigJSON(wire.OutputValueSig, `"secret":"yes"`), "", "secret is a string"},
		{"output dependencies", sigJSON(wire.OutputValueSig, `"dependencies":"u"`), "", "dependencies is a string"},
		{"output dependency", sigJSON(wire.OutputValueSig, `"dependencies":[1]`), "", "dependency 0 is a number"},
		{"nested in secret", `{"a b":` + sigJSON(wire.SecretSig, `"value":`+sigJSON("x", "")) + `}`, `["a b"].value`, "unrecognized"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := wire.UnmarshalValue(mustJSON(t, tt.json), wire.KeepAll())
			var we *wire.Error
			if !errors.As(err, &we) {
				t.Fatalf("UnmarshalValue(%s) = %v, want a *wire.Error", tt.json, err)
			}
			if we.Path != tt.path || !strings.Contains(we.Reason, tt.reason) {
				t.Errorf("error = path %q reason %q; want path %q and a reason containing %q", we.Path, we.Reason, tt.path, tt.reason)
			}
		})
	}
}

func TestMarshalRejects(t *testing.T) {
	tests := []struct {
		name string
		v    resource.PropertyValue
		want string
	}{
		{"invalid UTF-8", resource.NewObject(resource.PropertyMap{"s": resource.NewString("\xff")}), "property s: string is not valid UTF-8"},
		{"reserved key", resource.NewObject(resource.PropertyMap{wire.SignatureKey: resource.NewNull()}), "reserved key"},
		{"bad archive member", resource.NewArchiveValue(&resource.Archive{Assets: map[string]resource.AssetOrArchive{"m": {}}}), "property assets.m: archive member"},
		{"nil asset", resource.NewAssetValue(nil), "asset is nil"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := wire.MarshalValue(tt.v, wire.KeepAll())
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("MarshalValue(%v) = %v, want an error containing %q", tt.v, err, tt.want)
			}
		})
	}
}

func TestConfigVariables(t *testing.T) {
	config := resource.PropertyMap{
		"region":  resource.NewString("us-east-1"),
		"retries": resource.NewNumber(3),
		"token":   resource.NewSecret(resource.NewString("s3cret")),
		"tags":    resource.NewObject(resource.PropertyMap{"a": resource.NewBool(true)}),
		"later":   resource.NewUnknown(),
	}
	vars, err := wire.ConfigVariables("aws", config)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"aws:config:region":  "us-east-1",
		"aws:config:retries": "3",
		"aws:config:token":   "s3cret",
		"aws:config:tags":    `{"a":true}`,
		"aws:config:later":   wire.UnknownStringValue,
	}
	if diff := cmp.Diff(want, vars); diff != "" {
		t.Errorf("ConfigVariables (-want +got):\n%s", diff)
	}
	back, err := wire.ParseConfigVariables(vars)
	if err != nil {
		t.Fatal(err)
	}
	wantBack := config.Copy()
	wantBack["token"] = resource.NewString("s3cret")
	if diff := cmp.Diff(wantBack, back); diff != "" {
		t.Errorf("ParseConfigVariables (-want +got):\n%s", diff)
	}
	if got, err := wire.ParseConfigVariables(map[string]string{"aws:region": "x"}); err != nil || got["region"].StringValue() != "x" {
		t.Errorf("short key form = %v, %v", got, err)
	}
	if _, err := wire.ParseConfigVariables(map[string]string{"a:b:c": "x"}); err == nil {
		t.Error("a malformed key was accepted")
	}
}
