package random_test

import (
	"encoding/base64"
	"encoding/hex"
	"math/big"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/crypto/bcrypt"

	"github.com/groundwork-iac/groundwork/providers"
	"github.com/groundwork-iac/groundwork/providers/providertest"
	"github.com/groundwork-iac/groundwork/providers/random"
	"github.com/groundwork-iac/groundwork/resource"
)

func keepers(v string) resource.PropertyValue {
	return resource.NewObject(resource.PropertyMap{"k": str(v)})
}

func strs(ss ...string) resource.PropertyValue {
	vs := make([]resource.PropertyValue, len(ss))
	for i, s := range ss {
		vs[i] = str(s)
	}
	return resource.NewArray(vs...)
}

// stringDefaults are the outputs a RandomString or RandomPassword of
// length n has for the inputs left out.
func stringDefaults(n float64) resource.PropertyMap {
	return resource.PropertyMap{
		"length": num(n), "lower": boolean(true), "upper": boolean(true), "numeric": boolean(true), "number": boolean(true), "special": boolean(true),
		"minLower": num(0), "minUpper": num(0), "minNumeric": num(0), "minSpecial": num(0),
	}
}

// Each of pulumi-random's types, created through the provider: the
// checked inputs are what the program gave, the outputs add the defaults
// and the generated values (secret where pulumi-random makes them so), and
// the ID is what pulumi-random uses.
func TestPulumiTypes(t *testing.T) {
	p := random.New()
	tests := []struct {
		typ    string
		inputs resource.PropertyMap
		// fixed are the outputs that are not generated.
		fixed resource.PropertyMap
		// generated are the generated outputs, and secret those kept
		// secret.
		generated, secret []string
		// ok checks the generated outputs (unwrapped) and the ID.
		ok func(t *testing.T, id resource.ID, outs resource.PropertyMap)
	}{{
		typ: random.RandomPetType, inputs: resource.PropertyMap{},
		fixed: resource.PropertyMap{"length": num(2), "separator": str("-")},
		ok: func(t *testing.T, id resource.ID, _ resource.PropertyMap) {
			if !regexp.MustCompile(`^[a-z]+-[a-z]+$`).MatchString(string(id)) {
				t.Errorf("ID %q is not a two-word pet name", id)
			}
		},
	}, {
		typ: random.RandomPetType, inputs: resource.PropertyMap{"length": num(3), "prefix": str("web"), "separator": str("_"), "keepers": keepers("a")},
		fixed: resource.PropertyMap{"length": num(3), "prefix": str("web"), "separator": str("_"), "keepers": keepers("a")},
		ok: func(t *testing.T, id resource.ID, _ resource.PropertyMap) {
			if !regexp.MustCompile(`^web_[a-z]+_[a-z]+_[a-z]+$`).MatchString(string(id)) {
				t.Errorf("ID %q is not web_ and three words", id)
			}
		},
	}, {
		typ: random.RandomStringType, inputs: resource.PropertyMap{"length": num(16)},
		fixed: stringDefaults(16), generated: []string{"result"},
		ok: func(t *testing.T, id resource.ID, outs resource.PropertyMap) {
			s := outs["result"].StringValue()
			if string(id) != s || len(s) != 16 {
				t.Errorf("ID %q, result %q: want the 16-character result as the ID", id, s)
			}
		},
	}, {
		typ:       random.RandomStringType,
		inputs:    resource.PropertyMap{"length": num(12), "upper": boolean(false), "number": boolean(false), "special": boolean(false), "minLower": num(12)},
		fixed:     withOverrides(stringDefaults(12), resource.PropertyMap{"upper": boolean(false), "number": boolean(false), "numeric": boolean(false), "special": boolean(false), "minLower": num(12)}),
		generated: []string{"result"},
		ok: func(t *testing.T, _ resource.ID, outs resource.PropertyMap) {
			if s := outs["result"].StringValue(); strings.Trim(s, "abcdefghijklmnopqrstuvwxyz") != "" {
				t.Errorf("result %q has more than lower-case letters", s)
			}
		},
	}, {
		typ:       random.RandomStringType,
		inputs:    resource.PropertyMap{"length": num(40), "upper": boolean(false), "lower": boolean(false), "numeric": boolean(false), "overrideSpecial": str("/@")},
		fixed:     withOverrides(stringDefaults(40), resource.PropertyMap{"upper": boolean(false), "lower": boolean(false), "numeric": boolean(false), "number": boolean(false), "overrideSpecial": str("/@")}),
		generated: []string{"result"},
		ok: func(t *testing.T, _ resource.ID, outs resource.PropertyMap) {
			if s := outs["result"].StringValue(); strings.Trim(s, "/@") != "" {
				t.Errorf("result %q has more than the override's special characters", s)
			}
		},
	}, {
		typ: random.RandomPasswordType, inputs: resource.PropertyMap{"length": num(20), "minSpecial": num(3)},
		fixed:     withOverrides(stringDefaults(20), resource.PropertyMap{"minSpecial": num(3)}),
		generated: []string{"result", "bcryptHash"}, secret: []string{"result", "bcryptHash"},
		ok: func(t *testing.T, id resource.ID, outs resource.PropertyMap) {
			s := outs["result"].StringValue()
			if id != "none" || len(s) != 20 || countIn(s, "!@#$%&*()-_=+[]{}<>:?") < 3 {
				t.Errorf("ID %q, result %q: want \"none\" and 20 characters, 3 of them special", id, s)
			}
			if err := bcrypt.CompareHashAndPassword([]byte(outs["bcryptHash"].StringValue()), []byte(s)); err != nil {
				t.Errorf("bcryptHash is not a hash of the result: %v", err)
			}
		},
	}, {
		typ: random.RandomIntegerType, inputs: resource.PropertyMap{"min": num(1), "max": num(6)},
		fixed: resource.PropertyMap{"min": num(1), "max": num(6)}, generated: []string{"result"},
		ok: func(t *testing.T, id resource.ID, outs resource.PropertyMap) {
			n := outs["result"].NumberValue()
			if n < 1 || n > 6 || string(id) != strconv.Itoa(int(n)) {
				t.Errorf("ID %q, result %v: want a number from 1 to 6, the ID in decimal", id, n)
			}
		},
	}, {
		typ: random.RandomIDType, inputs: resource.PropertyMap{"byteLength": num(8), "prefix": str("p-")},
		fixed: resource.PropertyMap{"byteLength": num(8), "prefix": str("p-")}, generated: []string{"b64Std", "b64Url", "dec", "hex"},
		ok: func(t *testing.T, id resource.ID, outs resource.PropertyMap) {
			url := strings.TrimPrefix(outs["b64Url"].StringValue(), "p-")
			b, err := base64.RawURLEncoding.DecodeString(url)
			if err != nil || len(b) != 8 || string(id) != "p-"+url {
				t.Fatalf("ID %q, b64Url %q: want p- and 8 bytes in unpadded URL base64, as the ID too (%v)", id, url, err)
			}
			want := map[string]string{
				"b64Std": "p-" + base64.StdEncoding.EncodeToString(b),
				"hex":    "p-" + hex.EncodeToString(b),
				"dec":    "p-" + new(big.Int).SetBytes(b).String(),
			}
			for k, w := range want {
				if got := outs[resource.PropertyKey(k)].StringValue(); got != w {
					t.Errorf("%s = %q, want %q", k, got, w)
				}
			}
		},
	}, {
		typ: random.RandomUUIDType, inputs: resource.PropertyMap{},
		fixed: resource.PropertyMap{}, generated: []string{"result"},
		ok: func(t *testing.T, id resource.ID, outs resource.PropertyMap) {
			if s := outs["result"].StringValue(); !uuidV4.MatchString(s) || string(id) != s {
				t.Errorf("ID %q, result %q: want a UUID as both", id, s)
			}
		},
	}, {
		typ: random.RandomUUID4Type, inputs: resource.PropertyMap{"keepers": keepers("a")},
		fixed: resource.PropertyMap{"keepers": keepers("a")}, generated: []string{"result"},
		ok: func(t *testing.T, id resource.ID, outs resource.PropertyMap) {
			if s := outs["result"].StringValue(); !uuidV4.MatchString(s) || string(id) != s {
				t.Errorf("ID %q, result %q: want a version 4 UUID as both", id, s)
			}
		},
	}, {
		typ: random.RandomUUID7Type, inputs: resource.PropertyMap{},
		fixed: resource.PropertyMap{}, generated: []string{"result"},
		ok: func(t *testing.T, id resource.ID, outs resource.PropertyMap) {
			s := outs["result"].StringValue()
			if !uuidV7.MatchString(s) || string(id) != s {
				t.Fatalf("ID %q, result %q: want a version 7 UUID as both", id, s)
			}
			ms, err := strconv.ParseInt(strings.ReplaceAll(s[:13], "-", ""), 16, 64)
			if made := time.UnixMilli(ms); err != nil || time.Since(made) < 0 || time.Since(made) > time.Minute {
				t.Errorf("result %q was made at %v, want the time of its creation", s, made)
			}
		},
	}, {
		typ: random.RandomShuffleType, inputs: resource.PropertyMap{"inputs": strs("a", "b", "c", "d")},
		fixed: resource.PropertyMap{"inputs": strs("a", "b", "c", "d")}, generated: []string{"results"},
		ok: func(t *testing.T, id resource.ID, outs resource.PropertyMap) {
			got := stringsOf(outs["results"])
			slices.Sort(got)
			if id != "-" || !slices.Equal(got, []string{"a", "b", "c", "d"}) {
				t.Errorf("ID %q, results %v: want \"-\" and a permutation of a, b, c, d", id, outs["results"])
			}
		},
	}, {
		typ: random.RandomShuffleType, inputs: resource.PropertyMap{"inputs": strs("a", "b"), "resultCount": num(5)},
		fixed: resource.PropertyMap{"inputs": strs("a", "b"), "resultCount": num(5)}, generated: []string{"results"},
		ok: func(t *testing.T, _ resource.ID, outs resource.PropertyMap) {
			got := stringsOf(outs["results"])
			// Whole permutations one after another: each pair holds a and b.
			if len(got) != 5 || got[0] == got[1] || got[2] == got[3] {
				t.Errorf("results %v: want 5, each whole permutation of a and b", got)
			}
		},
	}, {
		typ: random.RandomShuffleType, inputs: resource.PropertyMap{"inputs": strs("a", "b", "c"), "resultCount": num(0)},
		fixed: resource.PropertyMap{"inputs": strs("a", "b", "c"), "resultCount": num(0)}, generated: []string{"results"},
		ok: func(t *testing.T, _ resource.ID, outs resource.PropertyMap) {
			if got := stringsOf(outs["results"]); len(got) != 3 {
				t.Errorf("results %v: a resultCount of 0 means all three", got)
			}
		},
	}, {
		typ: random.RandomBytesType, inputs: resource.PropertyMap{"length": num(32)},
		fixed: resource.PropertyMap{"length": num(32)}, generated: []string{"base64", "hex"}, secret: []string{"base64", "hex"},
		ok: func(t *testing.T, id resource.ID, outs resource.PropertyMap) {
			b, err := base64.StdEncoding.DecodeString(outs["base64"].StringValue())
			if id != "none" || err != nil || len(b) != 32 || outs["hex"].StringValue() != hex.EncodeToString(b) {
				t.Errorf("ID %q, outputs %v: want \"none\" and 32 bytes in base64 and hex", id, outs)
			}
		},
	}}
	for _, tt := range tests {
		t.Run(tt.typ, func(t *testing.T) {
			if got := check(t, p, tt.typ, tt.inputs); !got.DeepEquals(tt.inputs) {
				t.Errorf("checked inputs = %v, want them as given: %v", got, tt.inputs)
			}
			r := create(t, p, tt.typ, tt.inputs)
			fixed, plain := resource.PropertyMap{}, resource.PropertyMap{}
			for k, v := range r.outputs {
				plain[k] = v.Unwrap()
				if slices.Contains(tt.generated, string(k)) {
					if v.IsSecret() != slices.Contains(tt.secret, string(k)) {
						t.Errorf("output %s is secret: %v, want %v", k, v.IsSecret(), !v.IsSecret())
					}
					continue
				}
				fixed[k] = v
			}
			if diff := cmp.Diff(tt.fixed.Mappable(), fixed.Mappable()); diff != "" {
				t.Errorf("outputs besides the generated ones (-want +got):\n%s", diff)
			}
			for _, k := range tt.generated {
				if _, ok := r.outputs[resource.PropertyKey(k)]; !ok {
					t.Errorf("no output %s", k)
				}
			}
			tt.ok(t, r.id, plain)

			// A preview knows everything but the generated outputs.
			prev, err := p.Create(t.Context(), providers.CreateRequest{URN: r.urn, Inputs: r.inputs, Preview: true})
			if err != nil {
				t.Fatal(err)
			}
			for k, v := range prev.Outputs {
				if v.IsUnknown() != slices.Contains(tt.generated, string(k)) {
					t.Errorf("preview output %s = %v", k, v)
				}
			}
		})
	}
}

func withOverrides(m, over resource.PropertyMap) resource.PropertyMap {
	out := m.Copy()
	for k, v := range over {
		out[k] = v
	}
	return out
}

func countIn(s, chars string) int {
	return count(s, func(r rune) bool { return strings.ContainsRune(chars, r) })
}

func stringsOf(v resource.PropertyValue) []string {
	var out []string
	for _, e := range v.ArrayValue() {
		out = append(out, e.StringValue())
	}
	return out
}

func TestPulumiCheckFailures(t *testing.T) {
	p := random.New()
	tests := []struct {
		name       string
		typ        string
		news       resource.PropertyMap
		wantFailed []string
	}{
		{"string without length", random.RandomStringType, resource.PropertyMap{}, []string{"length"}},
		{"no classes", random.RandomPasswordType, resource.PropertyMap{"length": num(8), "upper": boolean(false), "lower": boolean(false), "numeric": boolean(false), "special": boolean(false)}, []string{""}},
		{"minimums exceed length", random.RandomStringType, resource.PropertyMap{"length": num(3), "minUpper": num(2), "minLower": num(2)}, []string{"length"}},
		{"number and numeric disagree", random.RandomStringType, resource.PropertyMap{"length": num(3), "number": boolean(true), "numeric": boolean(false)}, []string{"number"}},
		{"groundwork's result is no input", random.RandomStringType, resource.PropertyMap{"length": num(3), "result": str("x")}, []string{"result"}},
		{"integer without bounds", random.RandomIntegerType, resource.PropertyMap{}, []string{"min", "max"}},
		{"min above max", random.RandomIntegerType, resource.PropertyMap{"min": num(2), "max": num(1)}, []string{"max"}},
		{"id without byteLength", random.RandomIDType, resource.PropertyMap{"prefix": str("x")}, []string{"byteLength"}},
		{"id of no bytes", random.RandomIDType, resource.PropertyMap{"byteLength": num(0)}, []string{"byteLength"}},
		{"bytes without length", random.RandomBytesType, resource.PropertyMap{}, []string{"length"}},
		{"shuffle without inputs", random.RandomShuffleType, resource.PropertyMap{}, []string{"inputs"}},
		{"shuffle of numbers", random.RandomShuffleType, resource.PropertyMap{"inputs": resource.NewArray(num(1))}, []string{"inputs"}},
		{"negative resultCount", random.RandomShuffleType, resource.PropertyMap{"inputs": strs("a"), "resultCount": num(-1)}, []string{"resultCount"}},
		{"pet of no words", random.RandomPetType, resource.PropertyMap{"length": num(0)}, []string{"length"}},
		{"uuid takes only keepers", random.RandomUUIDType, resource.PropertyMap{"length": num(1)}, []string{"length"}},
		{"keepers not an object", random.RandomUUIDType, resource.PropertyMap{"keepers": str("x")}, []string{"keepers"}},
		{"uuid4 takes only keepers", random.RandomUUID4Type, resource.PropertyMap{"length": num(1)}, []string{"length"}},
		{"uuid7 takes only keepers", random.RandomUUID7Type, resource.PropertyMap{"keepers": str("x"), "length": num(1)}, []string{"length", "keepers"}},
		{"unknowns in a preview", random.RandomShuffleType, resource.PropertyMap{"inputs": resource.NewArray(str("a"), resource.NewUnknown()), "seed": resource.NewUnknown()}, nil},
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

// Every input change replaces the resource, as in pulumi-random; giving a
// default explicitly changes nothing.
func TestPulumiDiff(t *testing.T) {
	p := random.New()
	tests := []struct {
		name      string
		typ       string
		old, news resource.PropertyMap
		want      map[string]string
	}{
		{"pet unchanged", random.RandomPetType, resource.PropertyMap{}, resource.PropertyMap{}, map[string]string{}},
		{"pet default given", random.RandomPetType, resource.PropertyMap{}, resource.PropertyMap{"length": num(2), "separator": str("-")}, map[string]string{}},
		{"pet length", random.RandomPetType, resource.PropertyMap{}, resource.PropertyMap{"length": num(3)}, map[string]string{"length": "update-replace"}},
		{"pet keepers", random.RandomPetType, resource.PropertyMap{"keepers": keepers("a")}, resource.PropertyMap{"keepers": keepers("b")}, map[string]string{"keepers.k": "update-replace"}},
		{"string number given", random.RandomStringType, resource.PropertyMap{"length": num(8)}, resource.PropertyMap{"length": num(8), "number": boolean(true)}, map[string]string{}},
		{"string special", random.RandomStringType, resource.PropertyMap{"length": num(8)}, resource.PropertyMap{"length": num(8), "special": boolean(false)}, map[string]string{"special": "update-replace"}},
		{"shuffle inputs", random.RandomShuffleType, resource.PropertyMap{"inputs": strs("a")}, resource.PropertyMap{"inputs": strs("a", "b")}, map[string]string{"inputs[1]": "add-replace"}},
		{"id prefix", random.RandomIDType, resource.PropertyMap{"byteLength": num(4)}, resource.PropertyMap{"byteLength": num(4), "prefix": str("x")}, map[string]string{"prefix": "add-replace"}},
		{"integer seed", random.RandomIntegerType, resource.PropertyMap{"min": num(1), "max": num(2), "seed": str("a")}, resource.PropertyMap{"min": num(1), "max": num(2)}, map[string]string{"seed": "delete-replace"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := create(t, p, tt.typ, tt.old)
			news := check(t, p, tt.typ, tt.news)
			d, err := p.Diff(t.Context(), providers.DiffRequest{URN: r.urn, ID: r.id, OldInputs: r.inputs, OldOutputs: r.outputs, NewInputs: news})
			if err != nil {
				t.Fatal(err)
			}
			got := map[string]string{}
			for path, pd := range d.DetailedDiff {
				got[path] = pd.Kind.String()
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("detailed diff (-want +got):\n%s", diff)
			}
			if d.Replace() != (len(tt.want) > 0) {
				t.Errorf("Replace() = %v for %v", d.Replace(), d)
			}
		})
	}
}

// A seed makes a shuffle and an integer the same every time.
func TestPulumiSeeded(t *testing.T) {
	p := random.New()
	for _, tc := range []struct {
		typ    string
		inputs resource.PropertyMap
		out    resource.PropertyKey
	}{
		{random.RandomShuffleType, resource.PropertyMap{"inputs": strs("a", "b", "c", "d", "e", "f", "g", "h"), "resultCount": num(20), "seed": str("s")}, "results"},
		{random.RandomIntegerType, resource.PropertyMap{"min": num(0), "max": num(1 << 40), "seed": str("s")}, "result"},
	} {
		a := create(t, p, tc.typ, tc.inputs).outputs[tc.out]
		b := create(t, p, tc.typ, tc.inputs).outputs[tc.out]
		if !a.DeepEquals(b) {
			t.Errorf("%s: the same seed gave %v and %v", tc.typ, a, b)
		}
	}
}

func TestPulumiImport(t *testing.T) {
	p := random.New()
	tests := []struct {
		typ, id    string
		wantID     string
		wantInputs resource.PropertyMap
		wantOuts   resource.PropertyMap // a subset of the outputs
	}{
		{random.RandomPetType, "brave-otter", "brave-otter", resource.PropertyMap{"length": num(2)}, resource.PropertyMap{"length": num(2), "separator": str("-")}},
		{random.RandomStringType, "s3cr3t!", "s3cr3t!", resource.PropertyMap{"length": num(7)}, resource.PropertyMap{"result": str("s3cr3t!"), "special": boolean(true)}},
		{random.RandomPasswordType, "s3cr3t!", "none", resource.PropertyMap{"length": num(7)}, resource.PropertyMap{"result": resource.NewSecret(str("s3cr3t!"))}},
		{random.RandomIntegerType, "7,1,10", "7", resource.PropertyMap{"min": num(1), "max": num(10)}, resource.PropertyMap{"result": num(7)}},
		{random.RandomIntegerType, "7,1,10,s", "7", resource.PropertyMap{"min": num(1), "max": num(10), "seed": str("s")}, resource.PropertyMap{"result": num(7)}},
		{random.RandomIDType, "AQID", "AQID", resource.PropertyMap{"byteLength": num(3)}, resource.PropertyMap{"hex": str("010203"), "dec": str("66051"), "b64Std": str("AQID")}},
		{random.RandomIDType, "web-,AQID", "web-AQID", resource.PropertyMap{"byteLength": num(3), "prefix": str("web-")}, resource.PropertyMap{"hex": str("web-010203"), "b64Url": str("web-AQID")}},
		{random.RandomUUIDType, "2f1c7a4e-8b1d-4c5e-9f3a-0d6b7e8c9a10", "2f1c7a4e-8b1d-4c5e-9f3a-0d6b7e8c9a10", resource.PropertyMap{}, resource.PropertyMap{"result": str("2f1c7a4e-8b1d-4c5e-9f3a-0d6b7e8c9a10")}},
		{random.RandomUUID4Type, "7E4436DA-7C71-486E-A57C-830B25FFF7BD", "7e4436da-7c71-486e-a57c-830b25fff7bd", resource.PropertyMap{}, resource.PropertyMap{"result": str("7e4436da-7c71-486e-a57c-830b25fff7bd")}},
		{random.RandomUUID7Type, "0197ad85-fe6e-7e92-a2f5-7550daa83030", "0197ad85-fe6e-7e92-a2f5-7550daa83030", resource.PropertyMap{}, resource.PropertyMap{"result": str("0197ad85-fe6e-7e92-a2f5-7550daa83030")}},
		{random.RandomBytesType, "AQID", "none", resource.PropertyMap{"length": num(3)}, resource.PropertyMap{"hex": resource.NewSecret(str("010203")), "base64": resource.NewSecret(str("AQID"))}},
	}
	for _, tt := range tests {
		t.Run(tt.typ+" "+tt.id, func(t *testing.T) {
			got, err := p.Read(t.Context(), providers.ReadRequest{URN: urnOf(tt.typ), ID: resource.ID(tt.id)})
			if err != nil {
				t.Fatal(err)
			}
			if string(got.ID) != tt.wantID {
				t.Errorf("imported ID = %q, want %q", got.ID, tt.wantID)
			}
			if !got.Inputs.DeepEquals(tt.wantInputs) {
				t.Errorf("imported inputs = %v, want %v", got.Inputs, tt.wantInputs)
			}
			for k, want := range tt.wantOuts {
				if !got.Outputs[k].DeepEquals(want) {
					t.Errorf("imported %s = %v, want %v", k, got.Outputs[k], want)
				}
			}
		})
	}
	for _, bad := range []struct{ typ, id string }{
		{random.RandomIntegerType, "7"}, {random.RandomIntegerType, "11,1,10"}, {random.RandomIDType, "!!"},
		{random.RandomBytesType, "not base64"}, {random.RandomShuffleType, "-"}, {random.RandomUUIDType, "x"},
		{random.RandomUUID4Type, "7e4436da"}, {random.RandomUUID7Type, "not-a-uuid"},
	} {
		if _, err := p.Read(t.Context(), providers.ReadRequest{URN: urnOf(bad.typ), ID: resource.ID(bad.id)}); err == nil {
			t.Errorf("import of %s %q succeeded, want an error", bad.typ, bad.id)
		}
	}
}

// Two passwords share the ID "none": deleting one leaves the other found.
func TestPulumiSharedIDs(t *testing.T) {
	p := random.New()
	a := create(t, p, random.RandomBytesType, resource.PropertyMap{"length": num(8)})
	b := create(t, p, random.RandomBytesType, resource.PropertyMap{"length": num(8)})
	if _, err := p.Delete(t.Context(), providers.DeleteRequest{URN: a.urn, ID: a.id, Inputs: a.inputs, Outputs: a.outputs}); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		r    live
		want resource.ID
	}{{a, ""}, {b, "none"}} {
		got, err := p.Read(t.Context(), providers.ReadRequest{URN: tc.r.urn, ID: tc.r.id, Inputs: tc.r.inputs, State: tc.r.outputs})
		if err != nil || got.ID != tc.want {
			t.Errorf("Read = %q, %v; want ID %q", got.ID, err, tc.want)
		}
	}
}

// TestPulumiConformance runs the conformance suite on each type but
// RandomPassword, which shares RandomString's code but for its value
// (checked by TestPulumiTypes and TestPulumiImport): its bcrypt hash takes
// seconds under the race detector, and the suite makes a dozen.
func TestPulumiConformance(t *testing.T) {
	tests := []struct {
		typ              string
		inputs, replaced resource.PropertyMap
		sharedID         bool
	}{
		{random.RandomPetType, resource.PropertyMap{}, resource.PropertyMap{"length": num(3)}, false},
		{random.RandomStringType, resource.PropertyMap{"length": num(16)}, resource.PropertyMap{"length": num(16), "special": boolean(false)}, false},
		{random.RandomIntegerType, resource.PropertyMap{"min": num(1), "max": num(1 << 40)}, resource.PropertyMap{"min": num(1), "max": num(1 << 40), "keepers": keepers("a")}, false},
		{random.RandomIDType, resource.PropertyMap{"byteLength": num(8)}, resource.PropertyMap{"byteLength": num(8), "prefix": str("x")}, false},
		{random.RandomUUIDType, resource.PropertyMap{}, resource.PropertyMap{"keepers": keepers("a")}, false},
		{random.RandomUUID4Type, resource.PropertyMap{}, resource.PropertyMap{"keepers": keepers("a")}, false},
		{random.RandomUUID7Type, resource.PropertyMap{}, resource.PropertyMap{"keepers": keepers("a")}, false},
		{random.RandomShuffleType, resource.PropertyMap{"inputs": strs("a", "b")}, resource.PropertyMap{"inputs": strs("a", "b"), "resultCount": num(1)}, true},
		{random.RandomBytesType, resource.PropertyMap{"length": num(8)}, resource.PropertyMap{"length": num(9)}, true},
	}
	for _, tt := range tests {
		t.Run(tt.typ, func(t *testing.T) {
			providertest.Run(t, providertest.Harness{
				New:                  func(*testing.T) providers.Provider { return random.New() },
				Type:                 tt.typ,
				Inputs:               tt.inputs,
				Replace:              tt.replaced,
				RespectsCancellation: true,
				SharedID:             tt.sharedID,
			})
		})
	}
}
