package interop

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/groundwork-iac/groundwork/engine"
	"github.com/groundwork-iac/groundwork/langhost"
	"github.com/groundwork-iac/groundwork/plugin"
	"github.com/groundwork-iac/groundwork/providers"
	"github.com/groundwork-iac/groundwork/providers/random"
	"github.com/groundwork-iac/groundwork/resource"
)

// The pulumi-random tests deploy programs written with pulumi-random's
// SDKs (programs/gorandom with the Go SDK, programs/noderandom with
// @pulumi/random, each pinned to 4.18.4) against groundwork's built-in
// random provider, with no plugin installed: the registry is gw's, whose
// plugin resolver searches an empty folder (and PATH).

var (
	gorandomOnce sync.Once
	gorandomBin  string
	gorandomErr  error
)

// randomPrograms returns the pulumi-random programs to run, by language,
// with the version of pulumi-random each SDK asks for.
func randomPrograms(t *testing.T) map[string]struct {
	program engine.Program
	version string
} {
	t.Helper()
	gorandomOnce.Do(func() {
		gorandomBin = filepath.Join(pluginDir, "gorandom", "interop-gorandom")
		ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, "go", "build", "-o", gorandomBin, ".")
		cmd.Dir = filepath.Join("programs", "gorandom")
		cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod")
		if out, err := cmd.CombinedOutput(); err != nil {
			gorandomErr = fmt.Errorf("building programs/gorandom: %v\n%s", err, out)
		}
	})
	if gorandomErr != nil {
		t.Fatal(gorandomErr)
	}
	progs := map[string]struct {
		program engine.Program
		version string
	}{"go": {langhost.Command(gorandomBin).Run, "4.18.4"}}
	nodeDir, err := filepath.Abs(filepath.Join("programs", "noderandom"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := exec.LookPath("node"); err != nil {
		t.Log("node is not installed: the Node.js program is not run")
		return progs
	}
	if _, err := os.Stat(filepath.Join(nodeDir, "node_modules", "@pulumi", "random", "package.json")); err != nil {
		t.Log("@pulumi/random is not installed in programs/noderandom: run .ci/node-setup.sh to test the Node.js program")
		return progs
	}
	p := langhost.Node(".")
	p.Dir = nodeDir
	progs["nodejs"] = struct {
		program engine.Program
		version string
	}{p.Run, "4.18.4"}
	return progs
}

// TestPulumiRandomPrograms runs each program through a whole lifecycle:
// create, a no-change rerun, an update that changes the pet's length (a
// replacement, as pulumi-random replaces on every input change), and
// destroy, checking the state each leaves against pulumi-random's
// published schema and documented behaviour.
func TestPulumiRandomPrograms(t *testing.T) {
	for lang, prog := range randomPrograms(t) {
		t.Run(lang, func(t *testing.T) {
			testPulumiRandomProgram(t, prog.program, prog.version)
			checkNoProcesses(t)
		})
	}
}

func testPulumiRandomProgram(t *testing.T, prog engine.Program, version string) {
	store, dir := newStore(t)
	noPlugins := t.TempDir()
	newEngine := func(config map[string]string) *engine.Engine {
		cfg := map[string]resource.PropertyValue{}
		for k, v := range config {
			cfg["interop:"+k] = resource.NewString(v)
		}
		eng, err := engine.New(engine.Config{
			Project: "interop", Stack: "random", Store: store, Config: cfg,
			Providers: func() *providers.Registry {
				r := providers.NewRegistry(providers.WithResolver(plugin.Resolver(plugin.Options{Dirs: []string{noPlugins}})))
				if err := random.Register(r); err != nil {
					t.Fatal(err)
				}
				return r
			},
		})
		if err != nil {
			t.Fatal(err)
		}
		return eng
	}
	provider := "default_" + strings.ReplaceAll(version, ".", "_")
	all := []string{"bytes", "id", "integer", "interop-random", "password", "pet", provider, "shuffle", "string", "uuid"}
	var creates []string
	for _, name := range all {
		creates = append(creates, "create "+name)
	}
	slices.Sort(creates)

	// Create.
	res, err := newEngine(nil).Up(testCtx(t), prog)
	if err != nil {
		t.Fatalf("create: %v", err)
	}
	if diff := cmp.Diff(creates, changes(res)); diff != "" {
		t.Errorf("create: steps (-want +got):\n%s", diff)
	}
	first := byName(res.Snapshot)
	checkRandomState(t, first, provider, version, 2)
	if pw := first["password"].Outputs["result"].Unwrap().StringValue(); pw != "" {
		noPlaintext(t, dir, pw)
	}

	// A rerun changes nothing, and the values stay.
	res, err = newEngine(nil).Up(testCtx(t), prog)
	if err != nil {
		t.Fatalf("rerun: %v", err)
	}
	if got := changes(res); len(got) > 0 {
		t.Errorf("rerun: steps %v, want none", got)
	}
	for name, r := range byName(res.Snapshot) {
		if was := first[name]; was == nil || r.ID != was.ID || !r.Outputs.DeepEquals(was.Outputs) {
			t.Errorf("rerun: %s changed: %v %v, was %v", name, r.ID, r.Outputs, was)
		}
	}

	// Update: a longer pet name replaces the pet, and only the pet.
	res, err = newEngine(map[string]string{"petLength": "3"}).Up(testCtx(t), prog)
	if err != nil {
		t.Fatalf("update: %v", err)
	}
	if diff := cmp.Diff([]string{"create-replacement pet", "delete-replaced pet", "replace pet"}, changes(res)); diff != "" {
		t.Errorf("update: steps (-want +got):\n%s", diff)
	}
	updated := byName(res.Snapshot)
	checkRandomState(t, updated, provider, version, 3)
	for name, r := range updated {
		if name != "pet" && name != "interop-random" && r.ID != first[name].ID {
			t.Errorf("update: %s's ID changed from %q to %q", name, first[name].ID, r.ID)
		}
	}

	// Destroy.
	res, err = newEngine(map[string]string{"petLength": "3"}).Destroy(testCtx(t))
	if err != nil {
		t.Fatalf("destroy: %v", err)
	}
	if len(res.Snapshot.Resources) != 0 {
		t.Errorf("destroy left %d resources", len(res.Snapshot.Resources))
	}
}

// checkRandomState checks what pulumi-random's schema and documentation
// say of each resource: its type, ID, outputs and secrets, the default
// provider at the version the SDK asked for, and the stack's outputs.
func checkRandomState(t *testing.T, rs map[string]*resource.State, provider, version string, petWords int) {
	t.Helper()
	str := func(r *resource.State, k string) string {
		return r.Outputs[resource.PropertyKey(k)].Unwrap().StringValue()
	}
	if p := rs[provider]; p == nil || !p.Inputs["version"].DeepEquals(resource.NewString(version)) {
		t.Fatalf("default provider %s: %v, want one at version %s", provider, p, version)
	}
	want := map[string]struct {
		typ     string
		outputs []string // every output key
		secret  []string
		ok      func(r *resource.State) bool
	}{
		"pet": {random.RandomPetType, []string{"length", "separator"}, nil, func(r *resource.State) bool {
			return len(strings.Split(string(r.ID), "-")) == petWords && r.Outputs["length"].NumberValue() == float64(petWords)
		}},
		"string": {random.RandomStringType, []string{"length", "lower", "minLower", "minNumeric", "minSpecial", "minUpper", "number", "numeric", "result", "special", "upper"}, nil, func(r *resource.State) bool {
			return string(r.ID) == str(r, "result") && regexp.MustCompile(`^[A-Za-z0-9]{16}$`).MatchString(str(r, "result"))
		}},
		"password": {random.RandomPasswordType, []string{"bcryptHash", "length", "lower", "minLower", "minNumeric", "minSpecial", "minUpper", "number", "numeric", "result", "special", "upper"}, []string{"bcryptHash", "result"}, func(r *resource.State) bool {
			return r.ID == "none" && len(str(r, "result")) == 20 && strings.HasPrefix(str(r, "bcryptHash"), "$2a$10$")
		}},
		"integer": {random.RandomIntegerType, []string{"max", "min", "result", "seed"}, nil, func(r *resource.State) bool {
			n := r.Outputs["result"].NumberValue()
			return n >= 1 && n <= 100 && string(r.ID) == strconv.Itoa(int(n))
		}},
		"id": {random.RandomIDType, []string{"b64Std", "b64Url", "byteLength", "dec", "hex", "prefix"}, nil, func(r *resource.State) bool {
			return string(r.ID) == str(r, "b64Url") && regexp.MustCompile(`^p-[A-Za-z0-9_-]{11}$`).MatchString(str(r, "b64Url")) &&
				regexp.MustCompile(`^p-[0-9a-f]{16}$`).MatchString(str(r, "hex"))
		}},
		"uuid": {random.RandomUUIDType, []string{"result"}, nil, func(r *resource.State) bool {
			return string(r.ID) == str(r, "result") && len(r.ID) == 36
		}},
		"shuffle": {random.RandomShuffleType, []string{"inputs", "resultCount", "results"}, nil, func(r *resource.State) bool {
			res := r.Outputs["results"].ArrayValue()
			return r.ID == "-" && len(res) == 2 && !res[0].DeepEquals(res[1])
		}},
		"bytes": {random.RandomBytesType, []string{"base64", "hex", "length"}, []string{"base64", "hex"}, func(r *resource.State) bool {
			return r.ID == "none" && len(str(r, "hex")) == 32
		}},
	}
	for name, w := range want {
		r := rs[name]
		if r == nil {
			t.Errorf("no resource %s", name)
			continue
		}
		if r.Type != w.typ {
			t.Errorf("%s: type %s, want %s", name, r.Type, w.typ)
		}
		var keys, secret []string
		for k, v := range r.Outputs {
			keys = append(keys, string(k))
			if v.IsSecret() {
				secret = append(secret, string(k))
			}
		}
		slices.Sort(keys)
		slices.Sort(secret)
		if diff := cmp.Diff(w.outputs, keys); diff != "" {
			t.Errorf("%s: output keys (-want +got):\n%s", name, diff)
		}
		if diff := cmp.Diff(w.secret, secret); diff != "" {
			t.Errorf("%s: secret outputs (-want +got):\n%s", name, diff)
		}
		if !w.ok(r) {
			t.Errorf("%s: ID %q and outputs %v are not what pulumi-random makes", name, r.ID, r.Outputs)
		}
	}
	stack := rs["interop-random"]
	if stack == nil {
		t.Fatal("no stack resource")
	}
	if got, want := stack.Outputs["petName"].Unwrap().StringValue(), string(rs["pet"].ID); got != want {
		t.Errorf("stack output petName = %q, want the pet's ID %q", got, want)
	}
	for _, k := range []resource.PropertyKey{"password", "hex"} {
		if !stack.Outputs[k].IsSecret() {
			t.Errorf("stack output %s = %v, want a secret", k, stack.Outputs[k])
		}
	}
}

// pulumiRandomSchema is pulumi-random v4.21.1's published schema of its
// ten resource types, as Pulumi's schema package binds it (one line per
// type, printed by programs/schemacheck): the names, types and required
// inputs and outputs, and the secret outputs (marked "*").
var pulumiRandomSchema = []string{
	"random:index/randomBytes:RandomBytes inputs=keepers:Optional<Input<Map<Input<string>>>>,length:Input<integer>! outputs=base64:string!*,hex:string!*,keepers:Optional<Map<string>>,length:integer!",
	"random:index/randomId:RandomId inputs=byteLength:Input<integer>!,keepers:Optional<Input<Map<Input<string>>>>,prefix:Optional<Input<string>> outputs=b64Std:string!,b64Url:string!,byteLength:integer!,dec:string!,hex:string!,keepers:Optional<Map<string>>,prefix:Optional<string>",
	"random:index/randomInteger:RandomInteger inputs=keepers:Optional<Input<Map<Input<string>>>>,max:Input<integer>!,min:Input<integer>!,seed:Optional<Input<string>> outputs=keepers:Optional<Map<string>>,max:integer!,min:integer!,result:integer!,seed:Optional<string>",
	"random:index/randomPassword:RandomPassword inputs=keepers:Optional<Input<Map<Input<string>>>>,length:Input<integer>!,lower:Optional<Input<boolean>>,minLower:Optional<Input<integer>>,minNumeric:Optional<Input<integer>>,minSpecial:Optional<Input<integer>>,minUpper:Optional<Input<integer>>,number:Optional<Input<boolean>>,numeric:Optional<Input<boolean>>,overrideSpecial:Optional<Input<string>>,special:Optional<Input<boolean>>,upper:Optional<Input<boolean>> outputs=bcryptHash:string!*,keepers:Optional<Map<string>>,length:integer!,lower:boolean!,minLower:integer!,minNumeric:integer!,minSpecial:integer!,minUpper:integer!,number:boolean!,numeric:boolean!,overrideSpecial:Optional<string>,result:string!*,special:boolean!,upper:boolean!",
	"random:index/randomPet:RandomPet inputs=keepers:Optional<Input<Map<Input<string>>>>,length:Optional<Input<integer>>,prefix:Optional<Input<string>>,separator:Optional<Input<string>> outputs=keepers:Optional<Map<string>>,length:integer!,prefix:Optional<string>,separator:string!",
	"random:index/randomShuffle:RandomShuffle inputs=inputs:Input<Array<Input<string>>>!,keepers:Optional<Input<Map<Input<string>>>>,resultCount:Optional<Input<integer>>,seed:Optional<Input<string>> outputs=inputs:Array<string>!,keepers:Optional<Map<string>>,resultCount:Optional<integer>,results:Array<string>!,seed:Optional<string>",
	"random:index/randomString:RandomString inputs=keepers:Optional<Input<Map<Input<string>>>>,length:Input<integer>!,lower:Optional<Input<boolean>>,minLower:Optional<Input<integer>>,minNumeric:Optional<Input<integer>>,minSpecial:Optional<Input<integer>>,minUpper:Optional<Input<integer>>,number:Optional<Input<boolean>>,numeric:Optional<Input<boolean>>,overrideSpecial:Optional<Input<string>>,special:Optional<Input<boolean>>,upper:Optional<Input<boolean>> outputs=keepers:Optional<Map<string>>,length:integer!,lower:boolean!,minLower:integer!,minNumeric:integer!,minSpecial:integer!,minUpper:integer!,number:boolean!,numeric:boolean!,overrideSpecial:Optional<string>,result:string!,special:boolean!,upper:boolean!",
	"random:index/randomUuid4:RandomUuid4 inputs=keepers:Optional<Input<Map<Input<string>>>> outputs=keepers:Optional<Map<string>>,result:string!",
	"random:index/randomUuid7:RandomUuid7 inputs=keepers:Optional<Input<Map<Input<string>>>> outputs=keepers:Optional<Map<string>>,result:string!",
	"random:index/randomUuid:RandomUuid inputs=keepers:Optional<Input<Map<Input<string>>>> outputs=keepers:Optional<Map<string>>,result:string!",
}

// TestPulumiRandomSchema binds the schema the built-in random provider
// answers with Pulumi's own schema package, as SDK generators do: it
// binds, it is package random at the version the built-in claims, and its
// ten pulumi-random types bind exactly as pulumi-random's published
// schema does; groundwork's own types bind too.
func TestPulumiRandomSchema(t *testing.T) {
	bin := filepath.Join(pluginDir, "schemacheck", "schemacheck")
	build := exec.CommandContext(testCtx(t), "go", "build", "-o", bin, ".")
	build.Dir = filepath.Join("programs", "schemacheck")
	build.Env = append(os.Environ(), "GOFLAGS=-mod=mod")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building programs/schemacheck: %v\n%s", err, out)
	}
	resp, err := providers.GetSchema(testCtx(t), random.New(), providers.GetSchemaRequest{})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "schema.json")
	if err := os.WriteFile(path, resp.Schema, 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.CommandContext(testCtx(t), bin, path).CombinedOutput()
	if err != nil {
		t.Fatalf("the schema does not bind: %v\n%s", err, out)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if want := "package random " + random.PulumiVersion; lines[0] != want {
		t.Errorf("bound %q, want %q", lines[0], want)
	}
	var pulumiTypes, tokens []string
	for _, l := range lines[1:] {
		tok, _, _ := strings.Cut(l, " ")
		tokens = append(tokens, tok)
		if strings.Contains(tok, "index/") {
			pulumiTypes = append(pulumiTypes, l)
		}
	}
	if diff := cmp.Diff(pulumiRandomSchema, pulumiTypes); diff != "" {
		t.Errorf("pulumi-random's types (-published +served):\n%s", diff)
	}
	slices.Sort(tokens)
	if diff := cmp.Diff(random.Tokens(), tokens); diff != "" {
		t.Errorf("bound types (-served +bound):\n%s", diff)
	}
}
