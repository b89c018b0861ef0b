package random_test

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/groundwork-iac/groundwork/providers"
	"github.com/groundwork-iac/groundwork/providers/random"
	"github.com/groundwork-iac/groundwork/resource"
)

// The schema describes package random at pulumi-random's version, with
// every type the provider serves; its inputs are those Check accepts, and
// its secret outputs are those Create makes secret.
func TestGetSchema(t *testing.T) {
	p := random.New()
	resp, err := providers.GetSchema(t.Context(), p, providers.GetSchemaRequest{})
	if err != nil {
		t.Fatal(err)
	}
	var spec struct {
		Name, Version string
		Resources     map[string]struct {
			InputProperties map[string]json.RawMessage
			Properties      map[string]struct{ Secret bool }
			RequiredInputs  []string
			Required        []string
		}
	}
	if err := json.Unmarshal(resp.Schema, &spec); err != nil {
		t.Fatalf("the schema is not JSON: %v", err)
	}
	if spec.Name != "random" || spec.Version != random.PulumiVersion {
		t.Errorf("schema of %s %s, want random %s", spec.Name, spec.Version, random.PulumiVersion)
	}
	var tokens []string
	for tok := range spec.Resources {
		tokens = append(tokens, tok)
	}
	slices.Sort(tokens)
	if diff := cmp.Diff(random.Tokens(), tokens); diff != "" {
		t.Errorf("schema resources (-served +described):\n%s", diff)
	}
	// pulumi-random's published schema: required outputs and secrets.
	published := map[string]struct{ required, secret []string }{
		random.RandomPetType:      {[]string{"length", "separator"}, nil},
		random.RandomPasswordType: {[]string{"bcryptHash", "length", "lower", "minLower", "minNumeric", "minSpecial", "minUpper", "number", "numeric", "result", "special", "upper"}, []string{"bcryptHash", "result"}},
		random.RandomStringType:   {[]string{"length", "lower", "minLower", "minNumeric", "minSpecial", "minUpper", "number", "numeric", "result", "special", "upper"}, nil},
		random.RandomIntegerType:  {[]string{"max", "min", "result"}, nil},
		random.RandomIDType:       {[]string{"b64Std", "b64Url", "byteLength", "dec", "hex"}, nil},
		random.RandomUUIDType:     {[]string{"result"}, nil},
		random.RandomUUID4Type:    {[]string{"result"}, nil},
		random.RandomUUID7Type:    {[]string{"result"}, nil},
		random.RandomShuffleType:  {[]string{"inputs", "results"}, nil},
		random.RandomBytesType:    {[]string{"base64", "hex", "length"}, []string{"base64", "hex"}},
	}
	for tok, want := range published {
		r := spec.Resources[tok]
		if diff := cmp.Diff(want.required, r.Required); diff != "" {
			t.Errorf("%s: required outputs (-published +got):\n%s", tok, diff)
		}
		var secret []string
		for k, p := range r.Properties {
			if p.Secret {
				secret = append(secret, k)
			}
		}
		slices.Sort(secret)
		if diff := cmp.Diff(want.secret, secret); diff != "" {
			t.Errorf("%s: secret outputs (-published +got):\n%s", tok, diff)
		}
	}
	for tok, r := range spec.Resources {
		// Every input the schema lists is one Check accepts.
		news := resource.PropertyMap{}
		for k := range r.InputProperties {
			news[resource.PropertyKey(k)] = resource.NewUnknown()
		}
		resp, err := p.Check(t.Context(), providers.CheckRequest{URN: urnOf(tok), News: news})
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range resp.Failures {
			if strings.Contains(f.Reason, "unknown property") {
				t.Errorf("%s: the schema's input %s is not one Check accepts", tok, f.Property)
			}
		}
	}
}

// Register claims pulumi-random 4.x beside groundwork's own version: a
// program that asks for any 4.x release gets the built-in provider, and
// one that asks for another major is told which plugin to install.
func TestRegisterClaimsPulumiRandom(t *testing.T) {
	reg := providers.NewRegistry()
	defer reg.Close(t.Context())
	if err := random.Register(reg); err != nil {
		t.Fatal(err)
	}
	for version, want := range map[string]string{
		"": random.PulumiVersion, "4.0.0": random.PulumiVersion, "4.18.4": random.PulumiVersion, "4.99.1": random.PulumiVersion,
		random.Version: random.Version,
		"5.0.0":        `"pulumi plugin install resource random v5.0.0" installs its plugin`,
		"3.6.0":        `"pulumi plugin install resource random v3.6.0" installs its plugin`,
	} {
		info, err := reg.Lookup(random.Package, version)
		got := info.Version
		if err != nil {
			got = err.Error()
		}
		if !strings.Contains(got, want) {
			t.Errorf("Lookup(random, %q) = %s, want %s", version, got, want)
		}
	}
}
