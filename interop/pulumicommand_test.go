package interop

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// The pulumi-command tests deploy the programs under programs/gocommand and
// programs/nodecommand, written with pulumi-command's Go SDK and its
// Node.js SDK (exact versions pinned), through the gw CLI with no
// pulumi-resource-command plugin anywhere gw looks: gw's built-in command
// provider serves command:local:Command and command:local:run. The
// commands log what they do to a work folder, which the tests read, with
// the state gw leaves (gw stack export).
//
// The expected state is what pulumi-command's plugin (v1.2.1, built from
// its source) records for the same program, with the one difference
// COMPATIBILITY.md documents (stdout and stderr of a command given a secret
// are secret). The Go module proxy does not serve pulumi-command's provider
// module, so CI cannot build that plugin; TestPulumiCommandAgainstPlugin
// compares with one when it is given.

// tokenSecret is the secret the program passes to a command; it must never
// reach the state files in the clear.
const tokenSecret = "tok-s3cr3t"

var (
	gwOnce sync.Once
	gwBin  string
	gwErr  error

	gocommandOnce sync.Once
	gocommandBin  string
	gocommandErr  error
)

// goBuild builds the main package in dir (relative to this module) into
// out.
func goBuild(dir, out string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "go", "build", "-o", out, ".")
	cmd.Dir = dir
	if b, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("building %s: %v\n%s", dir, err, b)
	}
	return nil
}

// gwBinary returns the gw CLI, built on first use from the repository.
func gwBinary(t *testing.T) string {
	t.Helper()
	gwOnce.Do(func() {
		gwBin = filepath.Join(pluginDir, "gw-cli", "gw")
		gwErr = goBuild(filepath.Join("..", "cmd", "gw"), gwBin)
	})
	if gwErr != nil {
		t.Fatal(gwErr)
	}
	return gwBin
}

// commandProject is a project folder holding a program written with
// pulumi-command's SDK, deployed with gw to a state folder of its own.
type commandProject struct {
	t        *testing.T
	gw       string
	dir      string // the project
	work     string // where the commands run and log
	stateDir string
	xdg      string
}

// newCommandProject makes the project for lang ("go" or "nodejs") in a
// temporary folder.
func newCommandProject(t *testing.T, lang string) *commandProject {
	t.Helper()
	if _, err := exec.LookPath("pulumi-resource-command"); err == nil {
		t.Fatal("a pulumi-resource-command plugin is on PATH: these tests need none installed")
	}
	root := t.TempDir()
	p := &commandProject{t: t, gw: gwBinary(t), dir: filepath.Join(root, "project"), work: filepath.Join(root, "work"),
		stateDir: filepath.Join(root, "state"), xdg: filepath.Join(root, "xdg")}
	for _, d := range []string{p.dir, p.work} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	switch lang {
	case "go":
		gocommandOnce.Do(func() {
			gocommandBin = filepath.Join(pluginDir, "gocommand", "cmdprog")
			gocommandErr = goBuild(filepath.Join("programs", "gocommand"), gocommandBin)
		})
		if gocommandErr != nil {
			t.Fatal(gocommandErr)
		}
		b, err := os.ReadFile(gocommandBin)
		if err == nil {
			err = os.WriteFile(filepath.Join(p.dir, "cmdprog"), b, 0o755)
		}
		if err == nil {
			err = os.WriteFile(filepath.Join(p.dir, "Pulumi.yaml"), []byte("name: cmdprog\nruntime:\n  name: go\n  options:\n    binary: cmdprog\n"), 0o644)
		}
		if err != nil {
			t.Fatal(err)
		}
	case "nodejs":
		if _, err := exec.LookPath("node"); err != nil {
			t.Skip("node is not installed: the Node.js program cannot run")
		}
		src, err := filepath.Abs(filepath.Join("programs", "nodecommand"))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(filepath.Join(src, "node_modules", "@pulumi", "command", "package.json")); err != nil {
			t.Skip("@pulumi/command is not installed in programs/nodecommand: run .ci/node-setup.sh to test Node.js programs")
		}
		for _, f := range []string{"Pulumi.yaml", "index.js", "package.json"} {
			b, err := os.ReadFile(filepath.Join(src, f))
			if err == nil {
				err = os.WriteFile(filepath.Join(p.dir, f), b, 0o644)
			}
			if err != nil {
				t.Fatal(err)
			}
		}
		if err := os.Symlink(filepath.Join(src, "node_modules"), filepath.Join(p.dir, "node_modules")); err != nil {
			t.Fatal(err)
		}
	}
	return p
}

// gwRun runs gw in the project with args, on the project's stack, and
// returns what it wrote to stdout and to stderr, in the order written.
func (p *commandProject) gwRun(args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	out, err := p.gwCommand(ctx, args...).CombinedOutput()
	return string(out), err
}

func (p *commandProject) gwCommand(ctx context.Context, args ...string) *exec.Cmd {
	args = append(args, "--state", p.stateDir, "--stack", "dev")
	cmd := exec.CommandContext(ctx, p.gw, args...)
	cmd.Dir = p.dir
	cmd.Env = append(os.Environ(), "GW_PASSPHRASE=interop-command", "XDG_CONFIG_HOME="+p.xdg)
	return cmd
}

// exported is a resource as gw stack export writes it.
type exported struct {
	URN      string         `json:"urn"`
	Type     string         `json:"type"`
	ID       string         `json:"id"`
	Inputs   map[string]any `json:"inputs"`
	Outputs  map[string]any `json:"outputs"`
	Modified string         `json:"modified"`
}

// state returns the stack's resources by name.
func (p *commandProject) state() map[string]exported {
	p.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var stderr bytes.Buffer
	cmd := p.gwCommand(ctx, "stack", "export")
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		p.t.Fatalf("gw stack export: %v\n%s", err, stderr.String())
	}
	var doc struct {
		Deployment struct {
			Resources []exported `json:"resources"`
		} `json:"deployment"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		p.t.Fatalf("gw stack export wrote no deployment: %v\n%s", err, out)
	}
	res := map[string]exported{}
	for _, r := range doc.Deployment.Resources {
		res[r.URN[strings.LastIndex(r.URN, "::")+2:]] = r
	}
	return res
}

// takeLog returns the lines the commands logged since the last call,
// sorted (commands of different resources run concurrently).
func (p *commandProject) takeLog() []string {
	p.t.Helper()
	path := filepath.Join(p.work, "log.txt")
	b, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return nil
	}
	if err == nil {
		err = os.Remove(path)
	}
	if err != nil {
		p.t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	slices.Sort(lines)
	return lines
}

// isSecret reports whether an exported value is an encrypted secret.
func isSecret(v any) bool {
	m, ok := v.(map[string]any)
	return ok && m["4dabf18193072939515e22adb298388d"] == "1b47061264138c4ac30d75fd1eb44270" && m["ciphertext"] != nil
}

// TestPulumiCommandSDK runs the pulumi-command programs, Go and Node.js,
// through a whole lifecycle on gw's built-in provider: create, a
// no-change rerun, an update (a changed environment runs the update
// command, which sees the earlier stdout), a replacement (a changed
// trigger: the new resource's create command, then the old one's delete
// command), destroy (every delete command, with the recorded stdout).
func TestPulumiCommandSDK(t *testing.T) {
	for _, lang := range []string{"go", "nodejs"} {
		t.Run(lang, func(t *testing.T) {
			testPulumiCommandSDK(t, newCommandProject(t, lang))
			checkNoProcesses(t)
		})
	}
}

func testPulumiCommandSDK(t *testing.T, p *commandProject) {
	ops := []struct {
		name        string
		args        []string
		wantSummary string
		wantLog     []string
		wantOutputs map[string]any
		// changed are the resources whose state the operation changes;
		// replaced those it gives a new ID.
		changed, replaced []string
	}{{
		name:        "create",
		args:        []string{"up", "--yes", "--config", "dir=" + p.work, "--config", "msg=1", "--config", "gen=1"},
		wantSummary: "Resources: + 5 created",
		wantLog:     []string{"create 1", "create gen 1"},
		wantOutputs: map[string]any{"helloOut": "hello 1", "genOut": "input-1", "runOut": "run 1", "assetNames": []any{"out/a.txt"}},
	}, {
		name:        "no-change rerun",
		args:        []string{"up", "--yes"},
		wantSummary: "Resources: 5 unchanged",
		wantOutputs: map[string]any{"helloOut": "hello 1", "genOut": "input-1", "runOut": "run 1", "assetNames": []any{"out/a.txt"}},
	}, {
		name:        "update",
		args:        []string{"up", "--yes", "--config", "msg=2"},
		wantSummary: "Resources: ~ 1 updated, 4 unchanged",
		wantLog:     []string{"update 2 saw hello 1"},
		wantOutputs: map[string]any{"helloOut": "hello again 2", "genOut": "input-1", "runOut": "run 2", "assetNames": []any{"out/a.txt"}},
		changed:     []string{"hello"},
	}, {
		name:        "replace",
		args:        []string{"up", "--yes", "--config", "gen=2"},
		wantSummary: "Resources: +- 1 replaced, 4 unchanged",
		wantLog:     []string{"create gen 2", "delete gen 1"},
		wantOutputs: map[string]any{"helloOut": "hello again 2", "genOut": "input-2", "runOut": "run 2", "assetNames": []any{"out/a.txt"}},
		changed:     []string{"gen"},
		replaced:    []string{"gen"},
	}, {
		name:        "destroy",
		args:        []string{"destroy", "--yes"},
		wantSummary: "Resources: - 5 deleted",
		wantLog:     []string{"delete gen 2", "delete hello saw hello again 2"},
	}}
	var before map[string]exported
	for _, op := range ops {
		out, err := p.gwRun(append(op.args, "--non-interactive")...)
		if err != nil {
			t.Fatalf("%s: gw %s: %v\n%s", op.name, strings.Join(op.args, " "), err, out)
		}
		if !strings.Contains(out, op.wantSummary+"\n") {
			t.Errorf("%s: gw's summary is not %q:\n%s", op.name, op.wantSummary, out)
		}
		if diff := cmp.Diff(op.wantLog, p.takeLog()); diff != "" {
			t.Errorf("%s: what the commands logged (-want +got):\n%s", op.name, diff)
		}
		after := p.state()
		if op.wantOutputs == nil {
			if len(after) != 0 {
				t.Errorf("%s: the stack still has %d resources", op.name, len(after))
			}
			if _, err := os.Stat(filepath.Join(p.work, "out")); !os.IsNotExist(err) {
				t.Errorf("%s: the files command's delete did not remove out/ (%v)", op.name, err)
			}
			continue
		}
		stack := after["cmdprog-dev"]
		for k, want := range op.wantOutputs {
			if diff := cmp.Diff(want, stack.Outputs[k]); diff != "" {
				t.Errorf("%s: stack output %s (-want +got):\n%s", op.name, k, diff)
			}
		}
		if !isSecret(stack.Outputs["tokenOut"]) {
			t.Errorf("%s: stack output tokenOut = %v, want a secret", op.name, stack.Outputs["tokenOut"])
		}
		if before == nil {
			checkCreatedState(t, p, after)
		} else {
			checkChanged(t, op.name, before, after, op.changed, op.replaced)
		}
		before = after
		checkNoPlaintext(t, p.stateDir, tokenSecret)
	}
}

// checkCreatedState checks the state the first update leaves against what
// pulumi-command records: the inputs as the SDK sent them (no defaults),
// and as outputs the inputs plus stdout and stderr (one trailing newline
// trimmed) and the assets and archive asked for; IDs of the name and eight
// hex digits; a default provider at the version the SDK asks for.
func checkCreatedState(t *testing.T, p *commandProject, st map[string]exported) {
	t.Helper()
	helloInputs := map[string]any{
		"create":      `echo "create $MSG" >> log.txt; echo "hello $MSG"`,
		"update":      `echo "update $MSG saw $PULUMI_COMMAND_STDOUT" >> log.txt; echo "hello again $MSG"`,
		"delete":      `echo "delete hello saw $PULUMI_COMMAND_STDOUT" >> log.txt`,
		"dir":         p.work,
		"environment": map[string]any{"MSG": "1"},
	}
	genInputs := map[string]any{
		"create":      `echo "create gen $GEN" >> log.txt; cat`,
		"delete":      `echo "delete gen $GEN" >> log.txt`,
		"stdin":       "input-1",
		"interpreter": []any{"/bin/sh", "-c"},
		"dir":         p.work,
		"environment": map[string]any{"GEN": "1"},
		"triggers":    []any{"1"},
	}
	with := func(m map[string]any, extra map[string]any) map[string]any {
		out := map[string]any{}
		for k, v := range m {
			out[k] = v
		}
		for k, v := range extra {
			out[k] = v
		}
		return out
	}
	for _, c := range []struct {
		name                  string
		wantInputs, wantState map[string]any
	}{
		{"hello", helloInputs, with(helloInputs, map[string]any{"stdout": "hello 1", "stderr": ""})},
		{"gen", genInputs, with(genInputs, map[string]any{"stdout": "input-1", "stderr": ""})},
	} {
		r := st[c.name]
		if r.Type != "command:local:Command" || !regexp.MustCompile("^"+c.name+"[0-9a-f]{8}$").MatchString(r.ID) {
			t.Errorf("%s: type %q, ID %q; want command:local:Command and the name with eight hex digits", c.name, r.Type, r.ID)
		}
		if diff := cmp.Diff(c.wantInputs, r.Inputs); diff != "" {
			t.Errorf("%s: recorded inputs (-want +got):\n%s", c.name, diff)
		}
		if diff := cmp.Diff(c.wantState, r.Outputs); diff != "" {
			t.Errorf("%s: recorded outputs (-want +got):\n%s", c.name, diff)
		}
	}
	files := st["files"].Outputs
	asset := map[string]any{
		"4dabf18193072939515e22adb298388d": "c44067f5952c0a294b673a41bacd8c17",
		"hash":                             "87428fc522803d31065e7bce3cf03fe475096631e5e07bbd7a0fde60c4cf25c7", // sha256 of "a\n"
		"path":                             filepath.Join(p.work, "out", "a.txt"),
	}
	if diff := cmp.Diff(map[string]any{"out/a.txt": asset}, files["assets"]); diff != "" {
		t.Errorf("files: assets (-want +got):\n%s", diff)
	}
	archive, _ := files["archive"].(map[string]any)
	members, _ := archive["assets"].(map[string]any)
	// The hash pulumi-command's plugin (v1.2.1) records for these files.
	const archiveHash = "193cee69e1eb3786360df3beb72cf2944dc666c5a4ee083be8a18787355fa21a"
	if diff := cmp.Diff(asset, members["out/a.txt"]); diff != "" || len(members) != 2 || members["out/secret.txt"] == nil || archive["hash"] != archiveHash {
		t.Errorf("files: archive = %v; want out/a.txt and out/secret.txt, with hash %s", archive, archiveHash)
	}
	token := st["token"]
	if !isSecret(token.Outputs["stdout"]) || !isSecret(token.Inputs["environment"].(map[string]any)["TOKEN"]) || token.Inputs["addPreviousOutputInEnv"] != false {
		t.Errorf("token: inputs %v, outputs %v; want the secret environment and stdout recorded as secrets", token.Inputs, token.Outputs)
	}
	var provider exported
	for _, r := range st {
		if r.Type == "pulumi:providers:command" {
			provider = r
		}
	}
	if diff := cmp.Diff(map[string]any{"version": "1.2.1"}, provider.Inputs); diff != "" {
		t.Errorf("the default provider's inputs (-want +got):\n%s", diff)
	}
}

// checkChanged checks that exactly the resources named in changed have a
// new state, and those in replaced a new ID.
func checkChanged(t *testing.T, op string, before, after map[string]exported, changed, replaced []string) {
	t.Helper()
	for name, a := range after {
		b, ok := before[name]
		if !ok || name == "cmdprog-dev" {
			continue
		}
		if got := a.ID != b.ID; got != slices.Contains(replaced, name) {
			t.Errorf("%s: %s's ID went from %s to %s", op, name, b.ID, a.ID)
		}
		if got := a.Modified != b.Modified || !cmp.Equal(hideSecrets(a.Outputs), hideSecrets(b.Outputs)); got != slices.Contains(changed, name) {
			t.Errorf("%s: %s changed: %v, want %v", op, name, got, !got)
		}
	}
}

// hideSecrets replaces the encrypted secrets in v, whose ciphertexts
// differ each time they are written, by "[secret]".
func hideSecrets(v any) any {
	switch v := v.(type) {
	case map[string]any:
		if isSecret(v) {
			return "[secret]"
		}
		out := make(map[string]any, len(v))
		for k, e := range v {
			out[k] = hideSecrets(e)
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, e := range v {
			out[i] = hideSecrets(e)
		}
		return out
	}
	return v
}

// checkNoPlaintext fails t if a file under dir holds secret in the clear.
func checkNoPlaintext(t *testing.T, dir, secret string) {
	t.Helper()
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(path)
		if err == nil && bytes.Contains(b, []byte(secret)) {
			t.Errorf("%s holds the secret in the clear", path)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}
