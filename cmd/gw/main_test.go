package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

var (
	siteOnce sync.Once
	siteBin  string
	siteErr  error
)

// site builds testdata/site, a Pulumi Go SDK program (a module of its
// own), once per test binary. A cold module cache makes the first build
// download and compile the SDK.
func site(t *testing.T) string {
	t.Helper()
	siteOnce.Do(func() {
		dir, err := os.MkdirTemp("", "gw-test-")
		if err != nil {
			siteErr = err
			return
		}
		siteBin = filepath.Join(dir, "site")
		ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, goCommand(), "build", "-o", siteBin, ".")
		cmd.Dir = filepath.Join(packageDir, "testdata", "site")
		cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod")
		if out, err := cmd.CombinedOutput(); err != nil {
			siteErr = err
			t.Logf("go build:\n%s", out)
		}
	})
	if siteErr != nil {
		t.Fatalf("building testdata/site: %v", siteErr)
	}
	return siteBin
}

// packageDir is the folder of gw's source, where the tests start.
var packageDir, _ = os.Getwd()

// goCommand is the go command that runs the tests.
func goCommand() string {
	if _, err := exec.LookPath("go"); err == nil {
		return "go"
	}
	return filepath.Join(runtime.GOROOT(), "bin", "go")
}

func TestMain(m *testing.M) {
	// The stacks gw stack select chooses are kept in the user's
	// configuration folder: the tests keep theirs apart.
	config, err := os.MkdirTemp("", "gw-config-")
	if err != nil {
		panic(err)
	}
	os.Setenv("XDG_CONFIG_HOME", config)
	code := m.Run()
	os.RemoveAll(config)
	for _, bin := range []string{siteBin, gwBin} {
		if bin != "" {
			os.RemoveAll(filepath.Dir(bin))
		}
	}
	os.Exit(code)
}

// gw runs the CLI in-process and returns its status and output.
func gw(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var stdout, stderr bytes.Buffer
	code := run(ctx, args, strings.NewReader(""), &stdout, &stderr)
	return code, stdout.String(), stderr.String()
}

// inSiteProject makes a project folder for the site program (its
// Pulumi.yaml, where gw writes the stacks' config files) and moves there.
func inSiteProject(t *testing.T) string {
	t.Helper()
	dir := siteProject(t)
	t.Chdir(dir)
	return dir
}

// inSiteWorkspace builds the site program, moves into a project folder of
// its own (inSiteProject), and sets the passphrase for the gw the test
// runs in-process; it returns the program and a folder for the test's
// state and files.
func inSiteWorkspace(t *testing.T) (bin, work string) {
	t.Helper()
	bin = site(t)
	work = t.TempDir()
	t.Setenv("GW_PASSPHRASE", "gw-test")
	inSiteProject(t)
	return bin, work
}

// siteProject makes a project folder for the site program, for tests that
// run the built gw in it (and so may run in parallel).
func siteProject(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	b, err := os.ReadFile(filepath.Join(packageDir, "testdata", "site", "Pulumi.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "Pulumi.yaml"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestDeploySite(t *testing.T) {
	bin, work := inSiteWorkspace(t)
	stateDir := filepath.Join(work, "state")
	common := []string{"--state", stateDir, "--config", "dir=" + work, "--secret-config", "token=t0k3n"}
	withProgram := func(op string, extra ...string) []string {
		args := append(append([]string{op}, common...), extra...)
		return append(args, "--", bin)
	}
	page := filepath.Join(work, "index.html")

	code, out, errOut := gw(t, withProgram("preview")...)
	if code != 0 {
		t.Fatalf("preview: status %d\n%s\n%s", code, out, errOut)
	}
	if _, err := os.Stat(page); err == nil {
		t.Fatal("the preview wrote the page")
	}

	code, _, errOut = gw(t, withProgram("up")...)
	if code != exitUsage || !strings.Contains(errOut, "--yes") {
		t.Errorf("up without --yes and no terminal: status %d, stderr %q; want 2 and a hint about --yes", code, errOut)
	}

	code, out, errOut = gw(t, withProgram("up", "--yes")...)
	if code != 0 {
		t.Fatalf("up: status %d\n%s\n%s", code, out, errOut)
	}
	b, err := os.ReadFile(page)
	if err != nil || !strings.HasPrefix(string(b), "<h1>Hello from ") {
		t.Errorf("the page: %q, %v", b, err)
	}
	for _, want := range []string{"Outputs:", "mascot: ", "page: " + page, "token: [secret]"} {
		if !strings.Contains(out, want) {
			t.Errorf("up's output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "t0k3n") {
		t.Errorf("up's output shows the secret:\n%s", out)
	}

	// The stack's outputs, from the state.
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"stack", "output", "page"}, page + "\n"},
		{[]string{"stack", "output", "token", "--show-secrets"}, "t0k3n\n"},
		{[]string{"stack", "output"}, "OUTPUT   VALUE\nmascot   "},
		{[]string{"stack", "output", "--json"}, `"token": "[secret]"`},
		{[]string{"stack", "ls"}, "\ndev*  site     "},
	} {
		code, out, errOut := gw(t, append(tc.args, "--state", stateDir)...)
		if code != exitOK || !strings.Contains(out, tc.want) {
			t.Errorf("gw %q: status %d, stdout %q, stderr %q; want %q", tc.args, code, out, errOut, tc.want)
		}
	}

	// The config given to up is remembered in Pulumi.dev.yaml: a second
	// run in JSON mode, without it, changes nothing.
	common = []string{"--state", stateDir}
	code, out, errOut = gw(t, withProgram("up", "--yes", "--json")...)
	if code != 0 {
		t.Fatalf("second up: status %d\n%s\n%s", code, out, errOut)
	}
	var summary, outputs map[string]any
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		var ev map[string]any
		if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
			t.Fatalf("a line of JSON output is not JSON: %q: %v", sc.Text(), err)
		}
		switch ev["type"] {
		case "summary":
			summary = ev
		case "outputs":
			outputs = ev["outputs"].(map[string]any)
		}
	}
	if summary == nil || outputs == nil {
		t.Fatalf("the JSON output lacks the summary or the outputs:\n%s", out)
	}
	if counts, _ := summary["counts"].(map[string]any); counts["create"] != nil || counts["update"] != nil {
		t.Errorf("the second run changed something: %v", summary)
	}
	if outputs["token"] != "[secret]" || outputs["page"] != page {
		t.Errorf("outputs = %v", outputs)
	}

	// Adopt an existing pet, then tear everything down.
	code, out, errOut = gw(t, "import", "random:index:Pet", "adopted", "brave-otter", "--state", stateDir, "--yes")
	if code != 0 {
		t.Fatalf("import: status %d\n%s\n%s", code, out, errOut)
	}
	code, out, errOut = gw(t, "refresh", "--state", stateDir, "--yes")
	if code != 0 {
		t.Fatalf("refresh: status %d\n%s\n%s", code, out, errOut)
	}
	code, out, errOut = gw(t, "destroy", "--state", stateDir, "--yes")
	if code != 0 {
		t.Fatalf("destroy: status %d\n%s\n%s", code, out, errOut)
	}
	if _, err := os.Stat(page); !os.IsNotExist(err) {
		t.Errorf("destroy left the page: %v", err)
	}
}

// TestMissingConfig runs the site without the config it requires: the
// error is the program's message, once, naming gw's command, without the
// goroutine trace of the SDK's panic.
func TestMissingConfig(t *testing.T) {
	bin := site(t)
	inSiteProject(t)
	code, out, errOut := gw(t, "up", "--yes", "--state", "state", "--", bin)
	all := out + errOut
	want := "error: the program failed: Missing required configuration variable 'site:dir'\n" +
		"  please set a value using the command `gw config set site:dir <value>`\n"
	if code != exitError || !strings.Contains(all, want) || strings.Count(all, "Missing required") != 1 {
		t.Errorf("status %d; want 1 and the message once:\n%s\nstdout:\n%s\nstderr:\n%s", code, want, out, errOut)
	}
	for _, bad := range []string{"goroutine", "pulumi config set", "require.go"} {
		if strings.Contains(all, bad) {
			t.Errorf("the output shows %q:\n%s%s", bad, out, errOut)
		}
	}
	// With --debug the trace is there for whoever wants it.
	_, out, _ = gw(t, "up", "--yes", "--debug", "--state", "state", "--", bin)
	if !strings.Contains(out, "goroutine 1 [running]") {
		t.Errorf("--debug does not show the program's trace:\n%s", out)
	}
}

func TestProgramFailureFailsTheCommand(t *testing.T) {
	t.Chdir(t.TempDir())
	code, out, errOut := gw(t, "up", "--project", "p", "--state", "state", "--yes", "--", "sh", "-c", "echo broken >&2; exit 4")
	// The display shows the error; gw does not repeat it on stderr.
	want := "error: the program failed: \"sh -c echo broken >&2; exit 4\" exited with status 4:\n    broken\n"
	if code != exitError || !strings.HasSuffix(out, want) || errOut != "" {
		t.Errorf("status %d, stdout %q, stderr %q; want 1 and stdout ending %q", code, out, errOut, want)
	}
	// In JSON mode, stdout is for tools: the error is on stderr too.
	code, out, errOut = gw(t, "up", "--json", "--project", "p", "--state", "state", "--yes", "--", "sh", "-c", "exit 4")
	if code != exitError || !strings.Contains(out, `"type":"summary"`) || !strings.HasPrefix(errOut, "error: the program failed: ") {
		t.Errorf("--json: status %d, stdout %q, stderr %q", code, out, errOut)
	}
}

func TestUsageErrors(t *testing.T) {
	t.Chdir(t.TempDir())
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"deploy"}, `unknown command "gw deploy"`},
		{[]string{"config", "frob"}, `unknown command "gw config frob"`},
		{[]string{"help", "up", "now"}, `unknown command "gw up now"`},
		{[]string{"config", "set"}, "KEY"},
		{[]string{"stack", "output", "--project", "p", "a", "b"}, "at most one"},
		{[]string{"up", "--project", "p", "stray"}, "after --"},
		{[]string{"up", "--project", "p", "--parallel", "-1"}, "negative"},
		{[]string{"up", "--project", "p", "--yes"}, "needs the program"},
		{[]string{"up", "--yes", "--", "true"}, "no project"},
		{[]string{"destroy", "--project", "p", "--", "true"}, "runs no program"},
		{[]string{"import", "--project", "p", "a:b:C", "name"}, "TYPE NAME ID"},
		{[]string{"up", "--project", "p", "--config", "novalue", "--", "true"}, "KEY=VALUE"},
		{[]string{"up", "--nope"}, "unknown flag: --nope"},
	} {
		code, _, errOut := gw(t, tc.args...)
		if code != exitUsage || !strings.Contains(errOut, tc.want) {
			t.Errorf("gw %q: status %d, stderr %q; want 2 and %q", tc.args, code, errOut, tc.want)
		}
	}
}

func TestParseProject(t *testing.T) {
	for _, tc := range []struct {
		name, yaml string
		want       project
	}{
		{"plain", "name: web\nruntime: go\n", project{Name: "web", Runtime: "go"}},
		{"quoted with comments", "# a project\nname: \"web app\" # the name\nruntime: 'nodejs'\nmain: infra/\n",
			project{Name: "web app", Runtime: "nodejs", Main: "infra/"}},
		{"runtime mapping", "name: web\nruntime:\n  name: nodejs\n  options:\n    typescript: false\ndescription: x\n",
			project{Name: "web", Runtime: "nodejs", Options: map[string]string{"typescript": "false"}}},
		{"runtime options end with their block", "runtime:\n  options:\n    nodeargs: \"--x\"\n  name: nodejs\nmain: src/index.ts\n",
			project{Runtime: "nodejs", Main: "src/index.ts", Options: map[string]string{"nodeargs": "--x"}}},
		{"nested names are not the project's", "config:\n  name: other\nname: web\n", project{Name: "web"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := parseProject(bufio.NewScanner(strings.NewReader(tc.yaml)))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got, cmp.AllowUnexported(project{})); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
	if _, err := parseProject(bufio.NewScanner(strings.NewReader("name: \"open\n"))); err == nil {
		t.Error("an unterminated quote was accepted")
	}
}

func TestReadProjectWithoutAFile(t *testing.T) {
	p, err := readProject(t.TempDir())
	if err != nil || !cmp.Equal(p, project{}) {
		t.Errorf("readProject = %+v, %v", p, err)
	}
}

// The program's folder and entry come from main as Pulumi reads it: a
// folder is where the program runs, a file is the entry in its folder.
func TestProgramDir(t *testing.T) {
	root := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, "infra", "src"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "infra", "src", "main.ts"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Chdir(root)
	for _, tc := range []struct{ main, dir, entry string }{
		{"", root, "."},
		{"infra", filepath.Join(root, "infra"), "."},
		{"infra/src/main.ts", filepath.Join(root, "infra", "src"), "main.ts"},
	} {
		dir, entry, err := programDir(project{Main: tc.main})
		if err != nil || dir != tc.dir || entry != tc.entry {
			t.Errorf("main %q: %q, %q, %v; want %q, %q", tc.main, dir, entry, err, tc.dir, tc.entry)
		}
	}
	if _, _, err := programDir(project{Main: "missing"}); err == nil {
		t.Error("a main that does not exist was accepted")
	}
}

// TestDestroyWithADeleteHook: gw destroy runs no program, so it cannot run
// the delete hook a program bound to a resource (Pulumi's destroy runs the
// program for them only with --run-program). It deletes neither the
// hook's resource nor what that resource needs (here, everything), and
// says which hook and what to do.
func TestDestroyWithADeleteHook(t *testing.T) {
	bin, work := inSiteWorkspace(t)
	stateDir := filepath.Join(work, "state")
	hookLog := filepath.Join(work, "hooks.log")
	page := filepath.Join(work, "index.html")
	code, out, errOut := gw(t, "up", "--yes", "--state", stateDir, "-c", "dir="+work, "-c", "hookLog="+hookLog,
		"--secret-config", "token=t", "--", bin)
	if code != exitOK {
		t.Fatalf("up: status %d\n%s\n%s", code, out, errOut)
	}

	code, out, errOut = gw(t, "destroy", "--yes", "--state", stateDir)
	if code != exitError {
		t.Fatalf("destroy: status %d; want %d\n%s\n%s", code, exitError, out, errOut)
	}
	for _, want := range []string{`local:index:File::page has the hook "log-delete" bound`, `hint: gw destroy runs no program, so it cannot run the hook "log-delete"`, `run "gw up"`} {
		if !strings.Contains(out+errOut, want) {
			t.Errorf("destroy's error lacks %q:\n%s\n%s", want, out, errOut)
		}
	}
	if _, err := os.Stat(page); err != nil {
		t.Errorf("the failed destroy deleted the page: %v", err)
	}
	if _, err := os.Stat(hookLog); !os.IsNotExist(err) {
		t.Errorf("a hook ran: %v", err)
	}
	code, out, errOut = gw(t, "stack", "output", "page", "--state", stateDir)
	if code != exitOK || strings.TrimSpace(out) != page {
		t.Errorf("after the failed destroy, stack output page: status %d, %q %q", code, out, errOut)
	}
}
