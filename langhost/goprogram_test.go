package langhost_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/groundwork-iac/groundwork/engine"
	"github.com/groundwork-iac/groundwork/langhost"
	"github.com/groundwork-iac/groundwork/plugin"
	"github.com/groundwork-iac/groundwork/providers"
	"github.com/groundwork-iac/groundwork/resource"
	"github.com/groundwork-iac/groundwork/state"
	"github.com/groundwork-iac/groundwork/state/filestore"
)

// stack is a deployment of an SDK program against testfs plugins, with
// the physical files of the default and the explicit provider.
type stack struct {
	t            *testing.T
	store        state.Store
	plugins      string
	defaultRoot  string
	explicitRoot string

	mu     sync.Mutex
	events []engine.Event
}

func newStack(t *testing.T) *stack {
	t.Helper()
	dir := t.TempDir()
	store, err := filestore.New(filepath.Join(dir, "state"), state.WithSecrets(state.PassphraseSecrets("test-passphrase")))
	if err != nil {
		t.Fatal(err)
	}
	s := &stack{t: t, store: store, plugins: pluginDir(t),
		defaultRoot: filepath.Join(dir, "default"), explicitRoot: filepath.Join(dir, "explicit")}
	for _, d := range []string{s.defaultRoot, s.explicitRoot} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return s
}

// engine returns an engine whose configuration sets the program's step.
func (s *stack) engine(project string, config map[string]resource.PropertyValue) *engine.Engine {
	s.t.Helper()
	cfg := map[string]resource.PropertyValue{
		"testfs:root":  resource.NewString(s.defaultRoot),
		"goprog:token": resource.NewSecret(resource.NewString("t0k3n")),
	}
	for k, v := range config {
		cfg[k] = v
	}
	eng, err := engine.New(engine.Config{
		Project: project, Stack: "dev", Store: s.store, Config: cfg,
		Providers: func() *providers.Registry {
			return providers.NewRegistry(providers.WithResolver(plugin.Resolver(plugin.Options{Dirs: []string{s.plugins}})))
		},
		OnEvent: func(e engine.Event) {
			s.mu.Lock()
			s.events = append(s.events, e)
			s.mu.Unlock()
		},
	})
	if err != nil {
		s.t.Fatal(err)
	}
	return eng
}

func (s *stack) goprog(step string) *engine.Engine {
	return s.engine("goprog", map[string]resource.PropertyValue{
		"goprog:step":         resource.NewString(step),
		"goprog:explicitRoot": resource.NewString(s.explicitRoot),
	})
}

// diagnostics returns the messages of the diagnostic events so far.
func (s *stack) diagnostics() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []string
	for _, e := range s.events {
		if d, ok := e.(engine.DiagnosticEvent); ok {
			out = append(out, string(d.Severity)+": "+d.Message)
		}
	}
	return out
}

func (s *stack) file(root, name string) (string, bool) {
	b, err := os.ReadFile(filepath.Join(root, name))
	if os.IsNotExist(err) {
		return "", false
	}
	if err != nil {
		s.t.Fatal(err)
	}
	return string(b), true
}

func testContext(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	t.Cleanup(cancel)
	return ctx
}

// byName indexes a snapshot's resources by "type::name".
func byName(snap *state.Snapshot) map[string]*resource.State {
	out := map[string]*resource.State{}
	for _, r := range snap.Resources {
		out[r.Type+"::"+r.URN.Name()] = r
	}
	return out
}

func keysOf(m map[string]*resource.State) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

// stepsOf summarizes a result's steps as "op name", for the resources
// the program declares (not its root or default provider).
func stepsOf(res *engine.Result) map[string]engine.StepOp {
	out := map[string]engine.StepOp{}
	for _, s := range res.Steps {
		if s.Op == engine.StepSame || s.Op == engine.StepOutputs {
			continue
		}
		key := s.URN.Name()
		if prev, ok := out[key]; ok && prev != s.Op {
			out[key] = prev + "," + s.Op
			continue
		}
		out[key] = s.Op
	}
	return out
}

func TestGoProgramLifecycle(t *testing.T) {
	prog := langhost.Command(goProgram(t))
	prog.Dir = filepath.Join("testdata", "goprog")
	s := newStack(t)
	ctx := testContext(t)

	// A preview creates nothing.
	res, err := s.goprog("1").Preview(ctx, prog.Run)
	if err != nil {
		t.Fatalf("preview: %v\n%s", err, strings.Join(s.diagnostics(), "\n"))
	}
	if got := res.Counts[engine.StepCreate]; got < 7 {
		t.Errorf("the preview would create %d resources, want at least 7: %v", got, stepsOf(res))
	}
	if _, ok := s.file(s.defaultRoot, "a.txt"); ok {
		t.Error("the preview wrote a.txt")
	}

	// Create.
	res, err = s.goprog("1").Up(ctx, prog.Run)
	if err != nil {
		t.Fatalf("up: %v\n%s", err, strings.Join(s.diagnostics(), "\n"))
	}
	checkStep1(t, s, res)
	if !containsLine(s.diagnostics(), "info: goprog: step 1") {
		t.Errorf("the program's log message is not among the diagnostics:\n%s", strings.Join(s.diagnostics(), "\n"))
	}

	// Run again: nothing changes.
	res, err = s.goprog("1").Up(ctx, prog.Run)
	if err != nil {
		t.Fatalf("second up: %v\n%s", err, strings.Join(s.diagnostics(), "\n"))
	}
	if res.HasChanges() {
		t.Errorf("the second run changed something: %v", stepsOf(res))
	}
	checkStep1(t, s, res)

	// Update a, replace c2, delete b and its explicit provider.
	res, err = s.goprog("2").Up(ctx, prog.Run)
	if err != nil {
		t.Fatalf("up of step 2: %v\n%s", err, strings.Join(s.diagnostics(), "\n"))
	}
	checkStep2(t, s, res)

	// A registration the provider rejects fails the run; nothing is
	// deleted and the stack keeps what it had.
	res, err = s.goprog("3").Up(ctx, prog.Run)
	if err == nil {
		t.Fatal("up of step 3 succeeded; the provider should have rejected the file without a name")
	}
	if !strings.Contains(err.Error(), "a file name is required") {
		t.Errorf("the error does not say why the file was rejected: %v", err)
	}
	if got := len(res.Snapshot.Resources); got != 8 {
		t.Errorf("after the failed run the stack holds %d resources, want the 8 of step 2: %v", got, keysOf(byName(res.Snapshot)))
	}

	// Destroy everything (the read file's record goes without a delete;
	// c1, which manages the same file, deletes it).
	res, err = s.goprog("2").Destroy(ctx)
	if err != nil {
		t.Fatalf("destroy: %v", err)
	}
	if len(res.Snapshot.Resources) != 0 {
		t.Errorf("destroy left %v", keysOf(byName(res.Snapshot)))
	}
	for _, name := range []string{"a.txt", "c1.txt", "c2-renamed.txt", "secret.txt"} {
		if _, ok := s.file(s.defaultRoot, name); ok {
			t.Errorf("destroy left %s", name)
		}
	}
}

func containsLine(lines []string, want string) bool {
	for _, l := range lines {
		if strings.Contains(l, want) {
			return true
		}
	}
	return false
}

func checkStep1(t *testing.T, s *stack, res *engine.Result) {
	t.Helper()
	rs := byName(res.Snapshot)
	want := []string{
		"pulumi:pulumi:Stack::goprog-dev", "pulumi:providers:testfs::default", "pulumi:providers:testfs::explicit",
		"testfs:index:File::a", "testfs:index:File::b", "goprog:index:Group::group",
		"testfs:index:File::c1", "testfs:index:File::c2", "testfs:index:File::secret",
	}
	if diff := cmp.Diff(sorted(want), sorted(keysOf(rs))); diff != "" {
		t.Fatalf("resources (-want +got):\n%s", diff)
	}
	root := rs["pulumi:pulumi:Stack::goprog-dev"]
	def, explicit := rs["pulumi:providers:testfs::default"], rs["pulumi:providers:testfs::explicit"]
	a, b := rs["testfs:index:File::a"], rs["testfs:index:File::b"]
	group := rs["goprog:index:Group::group"]

	// The root is the engine's, once; everything else hangs under it.
	if root.Parent != "" || root.Custom {
		t.Errorf("root: parent %q custom %v", root.Parent, root.Custom)
	}
	for _, r := range []*resource.State{a, b, group, explicit, rs["testfs:index:File::secret"]} {
		if r.Parent != root.URN {
			t.Errorf("%s: parent %q, want the stack", r.URN, r.Parent)
		}
	}
	// The default provider is configured from the stack's "testfs:" keys.
	if got := def.Inputs["root"].StringValue(); got != s.defaultRoot {
		t.Errorf("default provider root = %q, want %q", got, s.defaultRoot)
	}
	if got := explicit.Inputs["root"].StringValue(); got != s.explicitRoot {
		t.Errorf("explicit provider root = %q, want %q", got, s.explicitRoot)
	}
	wantProvider := func(r, p *resource.State) {
		t.Helper()
		if want := string(p.URN) + "::" + string(p.ID); r.Provider != want {
			t.Errorf("%s: provider %q, want %q", r.URN.Name(), r.Provider, want)
		}
	}
	wantProvider(a, def)
	wantProvider(b, explicit)

	// a: inputs, outputs and ID.
	if a.ID != "a.txt" || a.Inputs["content"].StringValue() != "hello" || a.Outputs["size"].NumberValue() != 5 {
		t.Errorf("a: id %q inputs %v outputs %v", a.ID, a.Inputs, a.Outputs)
	}
	// b's content came from a's output: the dependency is recorded.
	if got := b.PropertyDependencies["content"]; !cmp.Equal(got, []resource.URN{a.URN}) {
		t.Errorf("b: property dependencies of content = %v, want [%s]", got, a.URN)
	}
	if !containsURN(b.Dependencies, a.URN) {
		t.Errorf("b: dependencies %v lack a", b.Dependencies)
	}

	// The component and its children.
	if group.Custom || group.Outputs["files"].NumberValue() != 2 {
		t.Errorf("group: custom %v outputs %v", group.Custom, group.Outputs)
	}
	for _, name := range []string{"c1", "c2"} {
		c := rs["testfs:index:File::"+name]
		if c.Parent != group.URN {
			t.Errorf("%s: parent %q, want the group", name, c.Parent)
		}
		wantProvider(c, def)
	}
	if c2 := rs["testfs:index:File::c2"]; c2.ID != "c2.txt" {
		t.Errorf("c2: id %q", c2.ID)
	}

	// The secret stays secret in inputs and outputs; "name" is an
	// additional secret output.
	secret := rs["testfs:index:File::secret"]
	if c := secret.Inputs["content"]; !c.IsSecret() || c.Unwrap().StringValue() != "s3cr3t" {
		t.Errorf("secret: input content = %v, want a secret", c)
	}
	if c := secret.Outputs["content"]; !c.IsSecret() {
		t.Errorf("secret: output content = %v, want a secret", c)
	}
	if n := secret.Outputs["name"]; !n.IsSecret() {
		t.Errorf("secret: output name = %v, want a secret (additional secret output)", n)
	}

	// Stack outputs: a plain number, a secret, and an invoke's result.
	outs := res.Outputs
	if outs["aSize"].NumberValue() != 5 || outs["upper"].StringValue() != "SHOUT" {
		t.Errorf("stack outputs = %v", outs)
	}
	if c := outs["secretContent"]; !c.IsSecret() || c.Unwrap().StringValue() != "s3cr3t" {
		t.Errorf("stack output secretContent = %v, want a secret", c)
	}
	if !root.Outputs.DeepEquals(outs) {
		t.Errorf("the root's recorded outputs %v differ from the result's %v", root.Outputs, outs)
	}

	// The world.
	for _, f := range []struct{ root, name, content string }{
		{s.defaultRoot, "a.txt", "hello"}, {s.explicitRoot, "b.txt", "hello"},
		{s.defaultRoot, "c1.txt", "c1"}, {s.defaultRoot, "c2.txt", "c2"}, {s.defaultRoot, "secret.txt", "s3cr3t"},
	} {
		if got, ok := s.file(f.root, f.name); !ok || got != f.content {
			t.Errorf("%s = %q (exists %v), want %q", f.name, got, ok, f.content)
		}
	}
}

func checkStep2(t *testing.T, s *stack, res *engine.Result) {
	t.Helper()
	steps := stepsOf(res)
	for name, want := range map[string]engine.StepOp{"a": engine.StepUpdate, "b": engine.StepDelete, "explicit": engine.StepDelete} {
		if steps[name] != want {
			t.Errorf("step of %s = %q, want %q (all: %v)", name, steps[name], want, steps)
		}
	}
	if !strings.Contains(string(steps["c2"]), string(engine.StepCreateReplacement)) {
		t.Errorf("c2 was not replaced: %v", steps)
	}
	for _, name := range []string{"c1", "group", "secret"} {
		if op, ok := steps[name]; ok {
			t.Errorf("%s changed (%s); it should not have", name, op)
		}
	}
	rs := byName(res.Snapshot)
	want := []string{
		"pulumi:pulumi:Stack::goprog-dev", "pulumi:providers:testfs::default",
		"testfs:index:File::a", "goprog:index:Group::group",
		"testfs:index:File::c1", "testfs:index:File::c2", "testfs:index:File::secret", "testfs:index:File::c1-read",
	}
	if diff := cmp.Diff(sorted(want), sorted(keysOf(rs))); diff != "" {
		t.Fatalf("resources (-want +got):\n%s", diff)
	}
	if r := rs["testfs:index:File::c1-read"]; !r.External || r.ID != "c1.txt" || r.Outputs["content"].StringValue() != "c1" {
		t.Errorf("the read file: external %v id %q outputs %v", r.External, r.ID, r.Outputs)
	}
	if steps["c1-read"] != engine.StepRead {
		t.Errorf("step of c1-read = %q, want read", steps["c1-read"])
	}
	if a := rs["testfs:index:File::a"]; a.Inputs["content"].StringValue() != "hello, world" || a.Outputs["size"].NumberValue() != 12 {
		t.Errorf("a after the update: inputs %v outputs %v", a.Inputs, a.Outputs)
	}
	if c2 := rs["testfs:index:File::c2"]; c2.ID != "c2-renamed.txt" {
		t.Errorf("c2 after the replacement: id %q", c2.ID)
	}
	if res.Outputs["aSize"].NumberValue() != 12 {
		t.Errorf("stack output aSize = %v, want 12", res.Outputs["aSize"])
	}
	for _, f := range []struct {
		root, name string
		exists     bool
	}{
		{s.defaultRoot, "a.txt", true}, {s.defaultRoot, "c2-renamed.txt", true},
		{s.defaultRoot, "c2.txt", false}, {s.explicitRoot, "b.txt", false},
	} {
		if _, ok := s.file(f.root, f.name); ok != f.exists {
			t.Errorf("%s exists = %v, want %v", f.name, ok, f.exists)
		}
	}
	if got, _ := s.file(s.defaultRoot, "a.txt"); got != "hello, world" {
		t.Errorf("a.txt = %q after the update", got)
	}
}

func containsURN(urns []resource.URN, u resource.URN) bool {
	for _, x := range urns {
		if x == u {
			return true
		}
	}
	return false
}

func sorted(ss []string) []string {
	out := append([]string(nil), ss...)
	for i := range out {
		for j := i + 1; j < len(out); j++ {
			if out[j] < out[i] {
				out[i], out[j] = out[j], out[i]
			}
		}
	}
	return out
}
