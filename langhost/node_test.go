package langhost_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/groundwork-iac/groundwork/engine"
	"github.com/groundwork-iac/groundwork/langhost"
	"github.com/groundwork-iac/groundwork/resource"
)

// nodeProgramDir returns testdata/nodeprog when it can run: node on PATH
// and the program's dependencies installed (.ci/node-setup.sh installs
// them); otherwise the test is skipped, saying what is missing.
func nodeProgramDir(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("node is not installed: the Node.js program cannot run")
	}
	dir := filepath.Join("testdata", "nodeprog")
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "@pulumi", "pulumi", "package.json")); err != nil {
		t.Skip("@pulumi/pulumi is not installed in testdata/nodeprog: run .ci/node-setup.sh (npm ci there) to test Node.js programs")
	}
	return dir
}

func TestNodeProgram(t *testing.T) {
	dir := nodeProgramDir(t)
	abs, err := filepath.Abs(dir)
	if err != nil {
		t.Fatal(err)
	}
	prog := langhost.Node(".")
	prog.Dir = abs
	s := newStack(t)
	ctx := testContext(t)
	eng := s.engine("nodeprog", map[string]resource.PropertyValue{
		"nodeprog:content": resource.NewString("from node"),
		"nodeprog:token":   resource.NewSecret(resource.NewString("t0k3n")),
	})

	res, err := eng.Preview(ctx, prog.Run)
	if err != nil {
		t.Fatalf("preview: %v\n%s", err, strings.Join(s.diagnostics(), "\n"))
	}
	if _, ok := s.file(s.defaultRoot, "node-a.txt"); ok {
		t.Error("the preview wrote node-a.txt")
	}

	res, err = eng.Up(ctx, prog.Run)
	if err != nil {
		t.Fatalf("up: %v\n%s", err, strings.Join(s.diagnostics(), "\n"))
	}
	rs := byName(res.Snapshot)
	for _, want := range []string{
		"pulumi:pulumi:Stack::nodeprog-dev", "pulumi:providers:testfs::default", "testfs:index:File::a",
		"nodeprog:index:Pair::pair", "testfs:index:File::pair-left", "testfs:index:File::pair-right", "testfs:index:File::hidden",
	} {
		if rs[want] == nil {
			t.Errorf("the snapshot lacks %s; it holds %v", want, keysOf(rs))
		}
	}
	if len(rs) != 7 {
		t.Errorf("the snapshot holds %d resources, want 7: %v", len(rs), keysOf(rs))
	}
	if t.Failed() {
		t.FailNow()
	}
	pair, right := rs["nodeprog:index:Pair::pair"], rs["testfs:index:File::pair-right"]
	if right.Parent != pair.URN || pair.Parent != rs["pulumi:pulumi:Stack::nodeprog-dev"].URN {
		t.Errorf("parents: right %q, pair %q", right.Parent, pair.Parent)
	}
	if !containsURN(right.Dependencies, rs["testfs:index:File::pair-left"].URN) {
		t.Errorf("pair-right's dependencies %v lack pair-left", right.Dependencies)
	}
	if c := rs["testfs:index:File::hidden"].Inputs["content"]; !c.IsSecret() || c.Unwrap().StringValue() != "t0k3n" {
		t.Errorf("hidden content = %v, want the secret config value", c)
	}
	if got, _ := s.file(s.defaultRoot, "node-a.txt"); got != "from node" {
		t.Errorf("node-a.txt = %q", got)
	}
	outs := res.Outputs
	if outs["size"].NumberValue() != float64(len("from node")) || outs["upper"].StringValue() != "NODE" || !outs["hidden"].IsSecret() {
		t.Errorf("stack outputs = %v", outs)
	}
	if !containsLine(s.diagnostics(), "info: nodeprog: running") {
		t.Errorf("the program's console output is not among the diagnostics:\n%s", strings.Join(s.diagnostics(), "\n"))
	}

	res, err = eng.Up(ctx, prog.Run)
	if err != nil {
		t.Fatalf("second up: %v", err)
	}
	if res.HasChanges() {
		t.Errorf("the second run changed something: %v", stepsOf(res))
	}

	if _, err := eng.Destroy(ctx); err != nil {
		t.Fatalf("destroy: %v", err)
	}
	if _, ok := s.file(s.defaultRoot, "node-a.txt"); ok {
		t.Error("destroy left node-a.txt")
	}
}

// TestNodeProgramContinuesAfterAFailure: in an operation that goes on after
// errors, a Node.js program whose resource fails goes on too, as under
// Pulumi's engine. The failed registration is answered with the result
// FAIL, not UNAVAILABLE (on which the SDK stops making requests), so a
// resource the program registers after learning of the failure is created;
// the one that needs the failed resource's output is skipped.
func TestNodeProgramContinuesAfterAFailure(t *testing.T) {
	dir := nodeProgramDir(t)
	abs, err := filepath.Abs(dir)
	if err != nil {
		t.Fatal(err)
	}
	prog := langhost.Node("continue.js")
	prog.Dir = abs
	s := newStack(t)
	eng := s.engine("nodeprog", nil)
	res, err := eng.Up(testContext(t), prog.Run, engine.ContinueOnError())
	if err == nil || !strings.Contains(err.Error(), "bad") {
		t.Errorf("up: error = %v, want the failure of bad", err)
	}
	if res == nil {
		t.Fatal("up returned no result")
	}
	rs := byName(res.Snapshot)
	if rs["testfs:index:File::later"] == nil {
		t.Errorf("the resource registered after the failure was not created; the snapshot holds %v\n%s",
			keysOf(rs), strings.Join(s.diagnostics(), "\n"))
	}
	if got, _ := s.file(s.defaultRoot, "later.txt"); got != "later" {
		t.Errorf("later.txt = %q, want %q", got, "later")
	}
	for _, gone := range []string{"testfs:index:File::bad", "testfs:index:File::dependent"} {
		if rs[gone] != nil {
			t.Errorf("the snapshot records %s, which failed or was skipped", gone)
		}
	}
	if _, ok := s.file(s.defaultRoot, "dependent.txt"); ok {
		t.Error("the resource that needs the failed one was created")
	}
}

func TestNodeProgramWithoutTheSDK(t *testing.T) {
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("node is not installed")
	}
	eng, _ := shellEngine(t, nil)
	prog := langhost.Node(".")
	prog.Dir = t.TempDir()
	_, err := eng.Preview(testContext(t), prog.Run)
	if err == nil || !strings.Contains(err.Error(), langhost.NodeRunModule) {
		t.Fatalf("error = %v, want one naming %s", err, langhost.NodeRunModule)
	}
}

var _ engine.Program = langhost.Node(".").Run

// A Node.js program whose package.json names no main and which has no
// index.js runs its index.ts, as under Pulumi's Node.js language host,
// which turns TypeScript on by default; with NoTypeScript it cannot.
func TestNodeTypeScriptDefault(t *testing.T) {
	sdk, err := filepath.Abs(filepath.Join(nodeProgramDir(t), "node_modules"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	files := map[string]string{
		"package.json": `{"name": "tsprog", "private": true}`,
		"index.ts": "import * as pulumi from \"@pulumi/pulumi\";\n" +
			"const greeting: string = new pulumi.Config().require(\"greeting\");\n" +
			"export const shout: string = greeting.toUpperCase();\n",
	}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(sdk, filepath.Join(dir, "node_modules")); err != nil {
		t.Fatal(err)
	}
	for _, noTS := range []bool{false, true} {
		eng, diags := shellEngine(t, map[string]resource.PropertyValue{"proj:greeting": resource.NewString("hi")})
		prog := langhost.Node(".")
		prog.Dir, prog.NoTypeScript = dir, noTS
		res, err := eng.Up(testContext(t), prog.Run)
		if noTS {
			if err == nil {
				t.Error("a TypeScript program ran without TypeScript")
			}
			continue
		}
		if err != nil {
			t.Fatalf("up: %v\n%s", err, strings.Join(diags(), "\n"))
		}
		if got := res.Outputs["shout"]; got.StringValue() != "HI" {
			t.Errorf("stack output shout = %v, want HI", got)
		}
	}
}
