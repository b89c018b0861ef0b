package random_test

import (
	"context"
	"regexp"
	"strings"
	"testing"
	"unicode"

	"github.com/google/go-cmp/cmp"
	"github.com/groundwork-iac/groundwork/providers"
	"github.com/groundwork-iac/groundwork/providers/random"
	"github.com/groundwork-iac/groundwork/resource"
)

func num(n float64) resource.PropertyValue { return resource.NewNumber(n) }
func str(s string) resource.PropertyValue  { return resource.NewString(s) }
func boolean(b bool) resource.PropertyValue {
	return resource.NewBool(b)
}

func urnOf(typ string) resource.URN { return resource.NewURN("test", "random", "", typ, "r") }

// live is a resource a test created, with what the engine would record.
type live struct {
	urn             resource.URN
	id              resource.ID
	inputs, outputs resource.PropertyMap
}

func check(t *testing.T, p providers.Provider, typ string, news resource.PropertyMap) resource.PropertyMap {
	t.Helper()
	resp, err := p.Check(t.Context(), providers.CheckRequest{URN: urnOf(typ), News: news})
	if err != nil || len(resp.Failures) > 0 {
		t.Fatalf("Check(%v) = %v, %v", news, resp.Failures, err)
	}
	return resp.Inputs
}

func create(t *testing.T, p providers.Provider, typ string, news resource.PropertyMap) live {
	t.Helper()
	inputs := check(t, p, typ, news)
	resp, err := p.Create(t.Context(), providers.CreateRequest{URN: urnOf(typ), Inputs: inputs})
	if err != nil {
		t.Fatalf("Create: %v", err)
	}
	return live{urn: urnOf(typ), id: resp.ID, inputs: inputs, outputs: resp.Outputs}
}

// result is the generated value, unwrapped.
func (r live) result() resource.PropertyValue { return r.outputs["result"].Unwrap() }

func TestCheck(t *testing.T) {
	p := random.New()
	tests := []struct {
		name       string
		typ        string
		news       resource.PropertyMap
		wantFailed []string
	}{
		{"string", random.StringType, resource.PropertyMap{"length": num(8)}, nil},
		{"string without length", random.StringType, resource.PropertyMap{}, []string{"length"}},
		{"string too long", random.StringType, resource.PropertyMap{"length": num(4097)}, []string{"length"}},
		{"string of zero length", random.StringType, resource.PropertyMap{"length": num(0)}, []string{"length"}},
		{"fractional length", random.StringType, resource.PropertyMap{"length": num(2.5)}, []string{"length"}},
		{"length as a string", random.StringType, resource.PropertyMap{"length": str("8")}, []string{"length"}},
		{"no classes", random.StringType, resource.PropertyMap{"length": num(8), "upper": boolean(false), "lower": boolean(false), "numeric": boolean(false), "special": boolean(false)}, []string{""}},
		{"minimum of a disabled class", random.StringType, resource.PropertyMap{"length": num(8), "numeric": boolean(false), "minNumeric": num(1)}, []string{"minNumeric"}},
		{"minimums exceed length", random.StringType, resource.PropertyMap{"length": num(3), "minUpper": num(2), "minLower": num(2)}, []string{"length"}},
		{"negative minimum", random.StringType, resource.PropertyMap{"length": num(3), "minUpper": num(-1)}, []string{"minUpper"}},
		{"upper not a bool", random.StringType, resource.PropertyMap{"length": num(3), "upper": str("yes")}, []string{"upper"}},
		{"keepers not an object", random.StringType, resource.PropertyMap{"length": num(3), "keepers": str("x")}, []string{"keepers"}},
		{"misspelt input", random.StringType, resource.PropertyMap{"length": num(3), "lenght": num(3)}, []string{"lenght"}},
		{"unknowns in a preview", random.StringType, resource.PropertyMap{"length": resource.NewUnknown(), "minUpper": resource.NewUnknown(), "keepers": resource.NewUnknown()}, nil},
		{"integer", random.IntegerType, resource.PropertyMap{"min": num(-5), "max": num(5)}, nil},
		{"integer of one value", random.IntegerType, resource.PropertyMap{"min": num(5), "max": num(5)}, nil},
		{"integer without bounds", random.IntegerType, resource.PropertyMap{}, []string{"min", "max"}},
		{"min above max", random.IntegerType, resource.PropertyMap{"min": num(6), "max": num(5)}, []string{"max"}},
		{"bound beyond 2^53", random.IntegerType, resource.PropertyMap{"min": num(0), "max": num(1 << 60)}, []string{"max"}},
		{"seed not a string", random.IntegerType, resource.PropertyMap{"min": num(0), "max": num(1), "seed": num(1)}, []string{"seed"}},
		{"unknown max", random.IntegerType, resource.PropertyMap{"min": num(6), "max": resource.NewUnknown()}, nil},
		{"uuid", random.UUIDType, resource.PropertyMap{"keepers": resource.NewObject(resource.PropertyMap{"a": num(1)})}, nil},
		{"uuid takes only keepers", random.UUIDType, resource.PropertyMap{"length": num(1)}, []string{"length"}},
		{"pet", random.PetType, resource.PropertyMap{}, nil},
		{"pet of no words", random.PetType, resource.PropertyMap{"length": num(0)}, []string{"length"}},
		{"separator not a string", random.PetType, resource.PropertyMap{"separator": boolean(true)}, []string{"separator"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp, err := p.Check(t.Context(), providers.CheckRequest{URN: urnOf(tt.typ), News: tt.news})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, f := range resp.Failures {
				got = append(got, f.Property)
			}
			if diff := cmp.Diff(tt.wantFailed, got); diff != "" {
				t.Errorf("failed properties (-want +got):\n%s\nfailures: %v", diff, resp.Failures)
			}
		})
	}
}

func TestCheckDefaults(t *testing.T) {
	p := random.New()
	got := check(t, p, random.StringType, resource.PropertyMap{"length": num(8), "special": boolean(false)})
	want := resource.PropertyMap{
		"length": num(8), "upper": boolean(true), "lower": boolean(true), "numeric": boolean(true), "special": boolean(false),
		"minUpper": num(0), "minLower": num(0), "minNumeric": num(0), "minSpecial": num(0),
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("checked String inputs (-want +got):\n%s", diff)
	}
	got = check(t, p, random.PetType, resource.PropertyMap{})
	if diff := cmp.Diff(resource.PropertyMap{"length": num(2), "separator": str("-")}, got); diff != "" {
		t.Errorf("checked Pet inputs (-want +got):\n%s", diff)
	}
}

func TestString(t *testing.T) {
	p := random.New()
	tests := []struct {
		name   string
		inputs resource.PropertyMap
		// ok says whether a generated string is right.
		ok func(s string) bool
	}{
		{"all classes", resource.PropertyMap{"length": num(64)}, func(s string) bool { return len(s) == 64 }},
		{"lower only", resource.PropertyMap{"length": num(32), "upper": boolean(false), "numeric": boolean(false), "special": boolean(false)},
			func(s string) bool { return strings.Trim(s, "abcdefghijklmnopqrstuvwxyz") == "" }},
		{"minimums", resource.PropertyMap{"length": num(6), "minUpper": num(2), "minNumeric": num(2), "minSpecial": num(2)},
			func(s string) bool {
				return count(s, unicode.IsUpper) == 2 && count(s, unicode.IsDigit) == 2 && count(s, func(r rune) bool { return strings.ContainsRune("!#%&*()-_=+[]{}<>:?", r) }) == 2
			}},
		{"override special", resource.PropertyMap{"length": num(16), "upper": boolean(false), "lower": boolean(false), "numeric": boolean(false), "overrideSpecial": str("@€")},
			func(s string) bool { return strings.Trim(s, "@€") == "" && len([]rune(s)) == 16 }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for range 50 {
				r := create(t, p, random.StringType, tt.inputs)
				if !r.outputs["result"].IsSecret() {
					t.Fatalf("result %v is not a secret", r.outputs["result"])
				}
				if s := r.result().StringValue(); !tt.ok(s) {
					t.Fatalf("generated %q, which does not fit %v", s, tt.inputs)
				}
			}
		})
	}
}

func count(s string, f func(rune) bool) int {
	n := 0
	for _, r := range s {
		if f(r) {
			n++
		}
	}
	return n
}

func TestInteger(t *testing.T) {
	p := random.New()
	seen := map[float64]bool{}
	for range 200 {
		n := create(t, p, random.IntegerType, resource.PropertyMap{"min": num(-2), "max": num(2)}).result().NumberValue()
		if n < -2 || n > 2 || n != float64(int(n)) {
			t.Fatalf("generated %v, want a whole number in [-2, 2]", n)
		}
		seen[n] = true
	}
	if len(seen) != 5 {
		t.Errorf("200 draws from [-2, 2] gave only %v", seen)
	}

	seeded := resource.PropertyMap{"min": num(1), "max": num(1 << 40), "seed": str("s")}
	a := create(t, p, random.IntegerType, seeded).result()
	b := create(t, p, random.IntegerType, seeded).result()
	if !a.DeepEquals(b) {
		t.Errorf("the same seed gave %v and %v", a, b)
	}
}

var (
	uuidV4 = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)
	uuidV7 = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)
)

func TestUUID(t *testing.T) {
	p := random.New()
	r := create(t, p, random.UUIDType, resource.PropertyMap{})
	if s := r.result().StringValue(); !uuidV4.MatchString(s) {
		t.Errorf("generated %q, want a version 4 UUID", s)
	}
}

func TestPet(t *testing.T) {
	p := random.New()
	tests := []struct {
		inputs resource.PropertyMap
		want   *regexp.Regexp
	}{
		{resource.PropertyMap{}, regexp.MustCompile(`^[a-z]+-[a-z]+$`)},
		{resource.PropertyMap{"length": num(1)}, regexp.MustCompile(`^[a-z]+$`)},
		{resource.PropertyMap{"length": num(3), "separator": str("_"), "prefix": str("web")}, regexp.MustCompile(`^web_[a-z]+_[a-z]+_[a-z]+$`)},
	}
	for _, tt := range tests {
		if s := create(t, p, random.PetType, tt.inputs).result().StringValue(); !tt.want.MatchString(s) {
			t.Errorf("Pet %v = %q, want a match for %s", tt.inputs, s, tt.want)
		}
	}
}

func TestDiffReplacesOnEveryChange(t *testing.T) {
	p := random.New()
	keepers := func(v string) resource.PropertyValue {
		return resource.NewObject(resource.PropertyMap{"image": str(v)})
	}
	base := resource.PropertyMap{"length": num(8), "keepers": keepers("v1")}
	r := create(t, p, random.StringType, base)
	tests := []struct {
		name    string
		news    resource.PropertyMap
		changes resource.DiffChanges
		want    map[string]string
	}{
		{"unchanged", base, resource.DiffNone, map[string]string{}},
		{"keeper changed", resource.PropertyMap{"length": num(8), "keepers": keepers("v2")}, resource.DiffSome, map[string]string{"keepers.image": "update-replace"}},
		{"keepers removed", resource.PropertyMap{"length": num(8)}, resource.DiffSome, map[string]string{"keepers": "delete-replace"}},
		{"unknown keeper", resource.PropertyMap{"length": num(8), "keepers": resource.NewObject(resource.PropertyMap{"image": resource.NewUnknown()})}, resource.DiffSome, map[string]string{"keepers.image": "update-replace"}},
		{"length", resource.PropertyMap{"length": num(9), "keepers": keepers("v1")}, resource.DiffSome, map[string]string{"length": "update-replace"}},
		{"class", resource.PropertyMap{"length": num(8), "special": boolean(false), "keepers": keepers("v1")}, resource.DiffSome, map[string]string{"special": "update-replace"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			news := check(t, p, random.StringType, tt.news)
			d, err := p.Diff(t.Context(), providers.DiffRequest{URN: r.urn, ID: r.id, OldInputs: r.inputs, OldOutputs: r.outputs, NewInputs: news})
			if err != nil {
				t.Fatal(err)
			}
			got := map[string]string{}
			for path, pd := range d.DetailedDiff {
				got[path] = pd.Kind.String()
			}
			if d.Changes != tt.changes {
				t.Errorf("Changes = %v, want %v", d.Changes, tt.changes)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("detailed diff (-want +got):\n%s", diff)
			}
			if d.Replace() != (tt.changes == resource.DiffSome) {
				t.Errorf("Replace() = %v for %v", d.Replace(), d)
			}
		})
	}
}

func TestValueStableAcrossUpdateAndRead(t *testing.T) {
	p := random.New()
	r := create(t, p, random.StringType, resource.PropertyMap{"length": num(12)})
	news := check(t, p, random.StringType, resource.PropertyMap{"length": num(12), "keepers": resource.NewObject(resource.PropertyMap{"a": num(1)})})
	for _, preview := range []bool{true, false} {
		resp, err := p.Update(t.Context(), providers.UpdateRequest{URN: r.urn, ID: r.id, OldInputs: r.inputs, OldOutputs: r.outputs, NewInputs: news, Preview: preview})
		if err != nil {
			t.Fatal(err)
		}
		if !resp.Outputs["result"].DeepEquals(r.outputs["result"]) || !resp.Outputs["keepers"].DeepEquals(news["keepers"]) {
			t.Errorf("Update (preview %v) outputs = %v, want the old result and the new keepers", preview, resp.Outputs)
		}
	}
	got, err := p.Read(t.Context(), providers.ReadRequest{URN: r.urn, ID: r.id, Inputs: r.inputs, State: r.outputs})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(providers.ReadResponse{ID: r.id, Inputs: r.inputs, Outputs: r.outputs}, got); diff != "" {
		t.Errorf("Read (-want +got):\n%s", diff)
	}
	if _, err := p.Delete(t.Context(), providers.DeleteRequest{URN: r.urn, ID: r.id, Inputs: r.inputs, Outputs: r.outputs}); err != nil {
		t.Fatal(err)
	}
	if got, _ := p.Read(t.Context(), providers.ReadRequest{URN: r.urn, ID: r.id, Inputs: r.inputs, State: r.outputs}); got.ID != "" {
		t.Errorf("Read after Delete returned ID %q, want empty", got.ID)
	}
}

func TestPreviewResultUnknown(t *testing.T) {
	p := random.New()
	for _, typ := range []string{random.StringType, random.IntegerType, random.UUIDType, random.PetType} {
		inputs := check(t, p, typ, map[string]resource.PropertyMap{
			random.StringType:  {"length": resource.NewUnknown()},
			random.IntegerType: {"min": num(1), "max": num(2)},
		}[typ])
		resp, err := p.Create(t.Context(), providers.CreateRequest{URN: urnOf(typ), Inputs: inputs, Preview: true})
		if err != nil {
			t.Fatalf("%s: %v", typ, err)
		}
		if resp.ID != "" || !resp.Outputs["result"].IsUnknown() {
			t.Errorf("%s: preview Create = %q, %v; want no ID and an unknown result", typ, resp.ID, resp.Outputs)
		}
	}
}

func TestImport(t *testing.T) {
	p := random.New()
	tests := []struct {
		name        string
		typ, id     string
		wantInputs  resource.PropertyMap
		wantResult  resource.PropertyValue
		wantFreshID bool
	}{
		{"string", random.StringType, "s3cr3t!", resource.PropertyMap{"length": num(7)}, resource.NewSecret(str("s3cr3t!")), true},
		{"integer", random.IntegerType, "7", resource.PropertyMap{"min": num(7), "max": num(7)}, num(7), false},
		{"integer with range", random.IntegerType, "7,1,10", resource.PropertyMap{"min": num(1), "max": num(10)}, num(7), false},
		{"negative integer", random.IntegerType, "-3,-5,0", resource.PropertyMap{"min": num(-5), "max": num(0)}, num(-3), false},
		{"uuid", random.UUIDType, "2F1C7A4E-8B1D-4C5E-9F3A-0D6B7E8C9A10", resource.PropertyMap{}, str("2f1c7a4e-8b1d-4c5e-9f3a-0d6b7e8c9a10"), false},
		{"pet", random.PetType, "brave-otter", resource.PropertyMap{"length": num(2)}, str("brave-otter"), false},
		{"pet with a prefix", random.PetType, "web-01-sunny-brave-otter", resource.PropertyMap{"length": num(3), "prefix": str("web-01")}, str("web-01-sunny-brave-otter"), false},
		{"pet not from the lists", random.PetType, "foo-bar", resource.PropertyMap{"length": num(2)}, str("foo-bar"), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := p.Read(t.Context(), providers.ReadRequest{URN: urnOf(tt.typ), ID: resource.ID(tt.id)})
			if err != nil {
				t.Fatal(err)
			}
			if freshID := got.ID != resource.ID(tt.id); freshID != tt.wantFreshID || got.ID == "" {
				t.Errorf("imported ID = %q (from %q), want a fresh ID: %v", got.ID, tt.id, tt.wantFreshID)
			}
			// The inputs come back checked, so the program that declares the
			// same inputs sees no change.
			if want := check(t, p, tt.typ, tt.wantInputs); !got.Inputs.DeepEquals(want) {
				t.Errorf("imported inputs = %v, want %v", got.Inputs, want)
			}
			if !got.Outputs["result"].DeepEquals(tt.wantResult) {
				t.Errorf("imported result = %v, want %v", got.Outputs["result"], tt.wantResult)
			}
		})
	}
	for _, bad := range []struct{ typ, id string }{
		{random.IntegerType, "seven"}, {random.IntegerType, "11,1,10"}, {random.UUIDType, "not-a-uuid"},
		{random.PetType, "double--dash"}, {random.StringType, ""},
	} {
		if _, err := p.Read(t.Context(), providers.ReadRequest{URN: urnOf(bad.typ), ID: resource.ID(bad.id)}); err == nil {
			t.Errorf("import of %s %q succeeded, want an error", bad.typ, bad.id)
		}
	}
}

func TestUnknownType(t *testing.T) {
	p := random.New()
	_, err := p.Create(t.Context(), providers.CreateRequest{URN: urnOf("random:index:Password")})
	if err == nil || !strings.Contains(err.Error(), "random:index:Password") {
		t.Errorf("Create of an unknown type = %v, want an error naming it", err)
	}
}

func TestRegister(t *testing.T) {
	reg := providers.NewRegistry()
	defer reg.Close(context.Background())
	if err := random.Register(reg); err != nil {
		t.Fatal(err)
	}
	// The registry starts, configures and hands out an instance that
	// serves the provider's resources.
	ctx := t.Context()
	provURN := resource.NewURN("test", "random", "", providers.ProviderType(random.Package), providers.DefaultProviderName(""))
	checked, err := reg.Check(ctx, providers.CheckRequest{URN: provURN, News: resource.PropertyMap{"version": str(random.Version)}})
	if err != nil || len(checked.Failures) > 0 {
		t.Fatalf("Check of the provider resource = %v, %v", checked.Failures, err)
	}
	created, err := reg.Create(ctx, providers.CreateRequest{URN: provURN, Inputs: checked.Inputs})
	if err != nil {
		t.Fatal(err)
	}
	p, ok := reg.Get(providers.NewReference(provURN, created.ID))
	if !ok {
		t.Fatal("the registry has no instance for the provider resource")
	}
	if r := create(t, p, random.UUIDType, resource.PropertyMap{}); !uuidV4.MatchString(r.result().StringValue()) {
		t.Errorf("the registry's instance made %v, want a UUID", r.result())
	}
}
