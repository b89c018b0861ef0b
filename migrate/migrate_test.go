package migrate_test

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/groundwork-iac/groundwork/migrate"
	"github.com/groundwork-iac/groundwork/resource"
	"github.com/groundwork-iac/groundwork/state"
	"github.com/groundwork-iac/groundwork/state/memstore"
	"github.com/groundwork-iac/groundwork/state/secrets"
)

const passphrase = "migrate test passphrase"

func urn(typ, name string) resource.URN { return resource.NewURN("dev", "site", "", typ, name) }

func str(s string) resource.PropertyValue { return resource.NewString(s) }

// values holds one property value of every kind a recorded state holds.
func values() resource.PropertyMap {
	archive, err := resource.NewAssetArchive(map[string]resource.AssetOrArchive{
		"a.txt": {Asset: resource.NewTextAsset("a")},
		"sub":   {Archive: resource.NewPathArchive("./sub")},
	})
	if err != nil {
		panic(err)
	}
	return resource.PropertyMap{
		"null":    resource.NewNull(),
		"bool":    resource.NewBool(true),
		"number":  resource.NewNumber(2.5),
		"nan":     resource.NewNumber(math.NaN()),
		"inf":     resource.NewNumber(math.Inf(-1)),
		"string":  str("hello"),
		"array":   resource.NewArray(str("x"), resource.NewNumber(1)),
		"object":  resource.NewObject(resource.PropertyMap{"k": str("v"), "nested": resource.NewObject(resource.PropertyMap{})}),
		"secret":  resource.NewSecret(str("hunter2")),
		"deep":    resource.NewSecret(resource.NewObject(resource.PropertyMap{"inner": resource.NewSecret(str("s3cr3t-inner"))})),
		"asset":   resource.NewAssetValue(&resource.Asset{Text: "body", Hash: "abc"}),
		"uri":     resource.NewAssetValue(resource.NewURIAsset("https://example.com/x")),
		"archive": resource.NewArchiveValue(archive),
		"ref":     resource.NewResourceReference(resource.ResourceReference{URN: urn("a:b:C", "r"), ID: "r-1", PackageVersion: "1.2.3"}),
		"compref": resource.NewResourceReference(resource.ResourceReference{URN: urn("a:b:C", "comp")}),
	}
}

// fullState sets every field of resource.State.
func fullState() *resource.State {
	return &resource.State{
		Type: "aws:s3/bucket:Bucket", URN: urn("aws:s3/bucket:Bucket", "full"), Custom: true, Delete: true,
		ID: "bucket-123", Inputs: values(), Outputs: resource.PropertyMap{"arn": str("arn:x"), "pw": resource.NewSecret(str("out-secret"))},
		Parent: urn("my:component:C", "parent"), Protect: true, External: true,
		Dependencies:         []resource.URN{urn("a:b:C", "d1"), urn("a:b:C", "d2")},
		PropertyDependencies: map[resource.PropertyKey][]resource.URN{"string": {urn("a:b:C", "d1")}},
		Provider:             providerRef,
		InitErrors:           []string{"timed out"}, PendingReplacement: true, RetainOnDelete: true,
		DeletedWith: urn("a:b:C", "d2"), IgnoreChanges: []string{"tags", "a.b[0]"}, ReplaceOnChanges: []string{"name"},
		CustomTimeouts:          resource.CustomTimeouts{Create: 90 * time.Second, Update: time.Hour + 500*time.Millisecond, Delete: time.Minute},
		ImportID:                "import-1",
		AdditionalSecretOutputs: []resource.PropertyKey{"pw"},
		Aliases:                 []resource.URN{urn("aws:s3/bucket:Bucket", "old")},
		Hooks:                   resource.Hooks{resource.HookBeforeCreate: {"check", "tag"}, resource.HookAfterDelete: {"notify"}},
		Created:                 time.Date(2024, 5, 6, 7, 8, 9, 123456789, time.UTC),
		Modified:                time.Date(2025, 1, 2, 3, 4, 5, 6, time.UTC),
	}
}

func TestFullStateSetsEveryField(t *testing.T) {
	v := reflect.ValueOf(*fullState())
	for i := range v.NumField() {
		if v.Field(i).IsZero() {
			t.Errorf("fullState does not set State.%s: the round trip would not check it", v.Type().Field(i).Name)
		}
	}
}

const providerRef = "urn:pulumi:dev::site::pulumi:providers:aws::default::p1"

// stack returns a snapshot of states after what they refer to: the aws
// provider, the parent component and the two dependencies fullState names.
func stack(states ...*resource.State) *state.Snapshot {
	custom := func(name string) *resource.State {
		return &resource.State{Type: "a:b:C", URN: urn("a:b:C", name), Custom: true, ID: resource.ID(name + "-1"), Provider: providerRef}
	}
	snap := &state.Snapshot{Resources: []*resource.State{
		{Type: "pulumi:providers:aws", URN: urn("pulumi:providers:aws", "default"), Custom: true, ID: "p1", Inputs: resource.PropertyMap{}},
		{Type: "my:component:C", URN: urn("my:component:C", "parent")},
		custom("d1"), custom("d2"),
	}}
	snap.Resources = append(snap.Resources, states...)
	return snap
}

var cmpStates = []cmp.Option{
	cmp.Comparer(func(a, b resource.PropertyValue) bool { return a.DeepEquals(b) }),
	cmpopts.EquateEmpty(),
}

func TestRoundTripKeepsEverything(t *testing.T) {
	ctx := context.Background()
	snap := stack(fullState())
	snap.PendingOperations = []resource.Operation{{Kind: resource.OperationUpdating, Resource: &resource.State{
		Type: "a:b:C", URN: urn("a:b:C", "busy"), Custom: true, ID: "b-1", Provider: providerRef,
		Inputs: resource.PropertyMap{"token": resource.NewSecret(str("pending-secret"))},
	}}}
	data, err := migrate.ToPulumi(ctx, snap, migrate.ToOptions{Passphrase: passphrase})
	if err != nil {
		t.Fatal(err)
	}
	for _, plain := range []string{"hunter2", "s3cr3t-inner", "out-secret", "pending-secret"} {
		if bytes.Contains(data, []byte(plain)) {
			t.Errorf("the deployment holds the secret %q in plaintext", plain)
		}
	}
	imp, err := migrate.FromPulumi(ctx, data, migrate.FromOptions{Passphrase: passphrase, Stack: "dev", Project: "site"})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(snap.Resources, imp.Snapshot.Resources, cmpStates...); diff != "" {
		t.Errorf("resources after a round trip (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(snap.PendingOperations, imp.Snapshot.PendingOperations, cmpStates...); diff != "" {
		t.Errorf("pending operations after a round trip (-want +got):\n%s", diff)
	}
	if len(imp.Dropped) != 0 {
		t.Errorf("dropped = %v, want nothing", imp.Dropped)
	}
}

// exported is a deployment as `pulumi stack export` writes it, with the
// resource records given.
func exported(t *testing.T, version int, secretsProviders string, resources ...string) []byte {
	t.Helper()
	sp := ""
	if secretsProviders != "" {
		sp = `"secrets_providers":` + secretsProviders + `,`
	}
	provider := `{"urn":"urn:pulumi:dev::site::pulumi:providers:a::default","type":"pulumi:providers:a","custom":true,"id":"p1"}`
	doc := `{"version":` + string(rune('0'+version)) + `,"deployment":{"manifest":{"time":"2025-01-01T00:00:00Z","magic":"","version":"v3.220.0"},` +
		sp + `"resources":[` + strings.Join(append([]string{provider}, resources...), ",") + `]}}`
	if !json.Valid([]byte(doc)) {
		t.Fatalf("invalid test deployment: %s", doc)
	}
	return []byte(doc)
}

// aProvider is the provider member of a resource record in exported.
const aProvider = `"provider":"urn:pulumi:dev::site::pulumi:providers:a::default::p1"`

func TestFromPulumiSecrets(t *testing.T) {
	ctx := context.Background()
	m, err := secrets.NewPulumiPassphrase(passphrase)
	if err != nil {
		t.Fatal(err)
	}
	ct, err := m.Encrypt(ctx, []byte(`"sealed value"`))
	if err != nil {
		t.Fatal(err)
	}
	sealed := `{"urn":"urn:pulumi:dev::site::a:b:C::s","type":"a:b:C","custom":true,"id":"s-1",` + aProvider + `,` +
		`"inputs":{"pw":{"4dabf18193072939515e22adb298388d":"1b47061264138c4ac30d75fd1eb44270","ciphertext":"` + ct + `"}}}`
	plain := `{"urn":"urn:pulumi:dev::site::a:b:C::p","type":"a:b:C","custom":true,"id":"p-1",` + aProvider + `,` +
		`"inputs":{"pw":{"4dabf18193072939515e22adb298388d":"1b47061264138c4ac30d75fd1eb44270","plaintext":"\"shown value\""}}}`
	provider := `{"type":"passphrase","state":{"salt":"` + m.EncryptionSalt() + `"}}`
	tests := []struct {
		name    string
		data    []byte
		opts    migrate.FromOptions
		want    string // the secret read, or
		wantErr string
	}{
		{"sealed, passphrase given", exported(t, 3, provider, sealed), migrate.FromOptions{Passphrase: passphrase}, "sealed value", ""},
		{"sealed, salt given", exported(t, 3, "", sealed), migrate.FromOptions{Passphrase: passphrase, EncryptionSalt: m.EncryptionSalt()}, "sealed value", ""},
		{"shown with --show-secrets", exported(t, 3, "", plain), migrate.FromOptions{}, "shown value", ""},
		{"no passphrase", exported(t, 3, provider, sealed), migrate.FromOptions{}, "", "give the Pulumi stack's passphrase"},
		{"wrong passphrase", exported(t, 3, provider, sealed), migrate.FromOptions{Passphrase: "nope"}, "", "passphrase is wrong"},
		{"cloud secrets", exported(t, 3, `{"type":"service","state":{}}`, sealed), migrate.FromOptions{Passphrase: passphrase}, "", "change-secrets-provider passphrase"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			imp, err := migrate.FromPulumi(ctx, tt.data, tt.opts)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want one containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got := imp.Snapshot.Resources[1].Inputs["pw"]
			if !got.DeepEquals(resource.NewSecret(str(tt.want))) {
				t.Errorf("pw = %#v, want the secret %q", got, tt.want)
			}
		})
	}
}

func TestFromPulumiRefusesAndDrops(t *testing.T) {
	ctx := context.Background()
	res := func(extra string) string {
		return `{"urn":"urn:pulumi:dev::site::a:b:C::r","type":"a:b:C","custom":true,"id":"r-1",` + aProvider + extra + `}`
	}
	tests := []struct {
		name    string
		data    []byte
		opts    migrate.FromOptions
		wantErr string
		dropped []string
	}{
		{"plain", exported(t, 3, "", res("")), migrate.FromOptions{}, "", nil},
		{"error hooks and refresh", exported(t, 4, "", res(`,"resourceHooks":{"BeforeCreate":["h"],"OnError":["e"]},"refreshBeforeUpdate":true,"sourcePosition":"x"`)),
			migrate.FromOptions{}, "", []string{"refreshBeforeUpdate", "resourceHooks.OnError"}},
		{"tainted", exported(t, 4, "", res(`,"taint":true`)), migrate.FromOptions{}, "is tainted", nil},
		{"view", exported(t, 4, "", res(`,"viewOf":"urn:pulumi:dev::site::a:b:C::o"`)), migrate.FromOptions{}, "is a view of", nil},
		{"another stack", exported(t, 3, "", res("")), migrate.FromOptions{Stack: "prod"}, `belongs to stack "dev", not "prod"`, nil},
		{"old version", exported(t, 2, "", res("")), migrate.FromOptions{}, "version 2", nil},
		{"not an export", []byte(`{"resources":[]}`), migrate.FromOptions{}, "not the output of `pulumi stack export`", nil},
		{"broken order", exported(t, 3, "", res(`,"parent":"urn:pulumi:dev::site::a:b:C::later"`),
			`{"urn":"urn:pulumi:dev::site::a:b:C::later","type":"a:b:C"}`), migrate.FromOptions{}, "parent-order", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			imp, err := migrate.FromPulumi(ctx, tt.data, tt.opts)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want one containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, d := range imp.Dropped {
				got = append(got, d.Field)
			}
			if diff := cmp.Diff(tt.dropped, got, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("dropped (-want +got):\n%s", diff)
			}
		})
	}
}

func TestImportStackRecordsAndSeals(t *testing.T) {
	ctx := context.Background()
	snap := stack(&resource.State{
		Type: "a:b:C", URN: urn("a:b:C", "r"), Custom: true, ID: "r-1", Provider: providerRef,
		Inputs: resource.PropertyMap{"pw": resource.NewSecret(str("topsecret"))},
	})
	data, err := migrate.ToPulumi(ctx, snap, migrate.ToOptions{Passphrase: passphrase})
	if err != nil {
		t.Fatal(err)
	}
	store := memstore.New()
	opts := migrate.FromOptions{Passphrase: passphrase}
	if _, err := migrate.ImportStack(ctx, store, state.StackID{Project: "site", Stack: "dev"}, data, opts); err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(store.Files(state.StackID{Project: "site", Stack: "dev"})["snapshot.json"], []byte("topsecret")) {
		t.Error("the store holds the secret in plaintext")
	}
	got, err := store.Load(ctx, state.StackID{Project: "site", Stack: "dev"})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(snap.Resources, got.Resources, cmpStates...); diff != "" {
		t.Errorf("recorded (-want +got):\n%s", diff)
	}
	if _, err := migrate.ImportStack(ctx, store, state.StackID{Project: "site", Stack: "dev"}, data, opts); err == nil || !strings.Contains(err.Error(), "already has 5 resources") {
		t.Errorf("a second import: err = %v, want it refused", err)
	}
	opts.Overwrite = true
	if _, err := migrate.ImportStack(ctx, store, state.StackID{Project: "site", Stack: "dev"}, data, opts); err != nil {
		t.Errorf("an import that overwrites: %v", err)
	}
	if _, err := migrate.ImportStack(ctx, store, state.StackID{Project: "site", Stack: "prod"}, data, opts); err == nil {
		t.Error("an import into a stack of another name succeeded")
	}

	out, err := migrate.ExportStack(ctx, store, state.StackID{Project: "site", Stack: "dev"}, migrate.ToOptions{})
	if out != nil || err == nil || !strings.Contains(err.Error(), "give the Pulumi passphrase") {
		t.Errorf("export without a passphrase: err = %v, want it to ask for one", err)
	}
}
