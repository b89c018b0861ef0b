package command_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/groundwork-iac/groundwork/providers"
	"github.com/groundwork-iac/groundwork/providers/command"
	"github.com/groundwork-iac/groundwork/resource"
)

func str(s string) resource.PropertyValue { return resource.NewString(s) }

var urn = resource.NewURN("test", "command", "", command.CommandType, "c")

// live is a resource a test created, with what the engine would record.
type live struct {
	id              resource.ID
	inputs, outputs resource.PropertyMap
}

func check(t *testing.T, p providers.Provider, news resource.PropertyMap) resource.PropertyMap {
	t.Helper()
	resp, err := p.Check(t.Context(), providers.CheckRequest{URN: urn, News: news})
	if err != nil || len(resp.Failures) > 0 {
		t.Fatalf("Check(%v) = %v, %v", news, resp.Failures, err)
	}
	return resp.Inputs
}

func create(t *testing.T, p providers.Provider, news resource.PropertyMap) live {
	t.Helper()
	inputs := check(t, p, news)
	resp, err := p.Create(t.Context(), providers.CreateRequest{URN: urn, Inputs: inputs})
	if err != nil {
		t.Fatalf("Create: %v", err)
	}
	return live{id: resp.ID, inputs: inputs, outputs: resp.Outputs}
}

func update(t *testing.T, p providers.Provider, r live, news resource.PropertyMap) live {
	t.Helper()
	inputs := check(t, p, news)
	resp, err := p.Update(t.Context(), providers.UpdateRequest{URN: urn, ID: r.id, OldInputs: r.inputs, OldOutputs: r.outputs, NewInputs: inputs})
	if err != nil {
		t.Fatalf("Update: %v", err)
	}
	return live{id: r.id, inputs: inputs, outputs: resp.Outputs}
}

func TestCheck(t *testing.T) {
	p := command.New()
	env := func(m resource.PropertyMap) resource.PropertyValue { return resource.NewObject(m) }
	tests := []struct {
		name       string
		news       resource.PropertyMap
		wantFailed []string
	}{
		{"valid", resource.PropertyMap{"create": str("echo hi")}, nil},
		{"no create", resource.PropertyMap{"delete": str("echo bye")}, []string{"create"}},
		{"empty create", resource.PropertyMap{"create": str("")}, []string{"create"}},
		{"create not a string", resource.PropertyMap{"create": resource.NewArray(str("echo"))}, []string{"create"}},
		{"unbalanced quote without a shell", resource.PropertyMap{"create": str("echo 'hi")}, []string{"create"}},
		{"unbalanced quote in delete", resource.PropertyMap{"create": str("true"), "delete": str(`echo "bye`)}, []string{"delete"}},
		{"a shell parses its own quotes", resource.PropertyMap{"create": str("echo 'hi"), "shell": resource.NewBool(true)}, nil},
		{"environment", resource.PropertyMap{"create": str("env"), "environment": env(resource.PropertyMap{"A": str("1")})}, nil},
		{"environment value not a string", resource.PropertyMap{"create": str("env"), "environment": env(resource.PropertyMap{"A": resource.NewNumber(1)})}, []string{"environment.A"}},
		{"environment name with =", resource.PropertyMap{"create": str("env"), "environment": env(resource.PropertyMap{"A=B": str("1")})}, []string{`environment["A=B"]`}},
		{"environment not an object", resource.PropertyMap{"create": str("env"), "environment": str("A=1")}, []string{"environment"}},
		{"triggers not an array", resource.PropertyMap{"create": str("true"), "triggers": str("x")}, []string{"triggers"}},
		{"shell not a bool", resource.PropertyMap{"create": str("true"), "shell": str("yes")}, []string{"shell"}},
		{"misspelt input", resource.PropertyMap{"create": str("true"), "destroy": str("true")}, []string{"destroy"}},
		{"unknowns in a preview", resource.PropertyMap{"create": resource.NewUnknown(), "shell": resource.NewUnknown(), "environment": env(resource.PropertyMap{"A": resource.NewUnknown()}), "triggers": resource.NewUnknown()}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp, err := p.Check(t.Context(), providers.CheckRequest{URN: urn, News: tt.news})
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
	if got := check(t, p, resource.PropertyMap{"create": str("true")}); !got["shell"].DeepEquals(resource.NewBool(false)) {
		t.Errorf("checked shell = %v, want the default false", got["shell"])
	}
}

func TestCreateOutputs(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name       string
		inputs     resource.PropertyMap
		wantStdout string
		wantStderr string
	}{
		{"stdout trimmed", resource.PropertyMap{"create": str("echo hello")}, "hello", ""},
		{"stderr", resource.PropertyMap{"create": str(`echo out; echo err >&2`), "shell": resource.NewBool(true)}, "out", "err"},
		{"arguments kept whole without a shell", resource.PropertyMap{"create": str(`printf '%s|' "a b" 'c  d' e\ f`)}, "a b|c  d|e f|", ""},
		{"no expansion without a shell", resource.PropertyMap{"create": str(`echo $HOME *`)}, "$HOME *", ""},
		{"expansion with a shell", resource.PropertyMap{"create": str(`echo "$GREETING" | tr a-z A-Z`), "shell": resource.NewBool(true),
			"environment": resource.NewObject(resource.PropertyMap{"GREETING": str("hi there")})}, "HI THERE", ""},
		{"environment", resource.PropertyMap{"create": str("printenv GREETING"), "environment": resource.NewObject(resource.PropertyMap{"GREETING": str("hello")})}, "hello", ""},
		{"stdin", resource.PropertyMap{"create": str("tr a-z A-Z"), "stdin": str("quiet\n")}, "QUIET", ""},
		{"no stdin reads nothing", resource.PropertyMap{"create": str("cat")}, "", ""},
		{"dir", resource.PropertyMap{"create": str("pwd"), "dir": str(dir)}, dir, ""},
	}
	p := command.New()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := create(t, p, tt.inputs)
			if r.id == "" {
				t.Error("Create returned no ID")
			}
			want := r.inputs.Copy()
			want["stdout"], want["stderr"] = str(tt.wantStdout), str(tt.wantStderr)
			if diff := cmp.Diff(want, r.outputs); diff != "" {
				t.Errorf("outputs (-want +got):\n%s", diff)
			}
		})
	}
}

func TestCreateFailure(t *testing.T) {
	p := command.New()
	script := `for i in $(seq 1 30); do echo "line $i" >&2; done; exit 3`
	inputs := check(t, p, resource.PropertyMap{"create": str(script), "shell": resource.NewBool(true)})
	resp, err := p.Create(t.Context(), providers.CreateRequest{URN: urn, Inputs: inputs})
	var exit *command.ExitError
	if !errors.As(err, &exit) {
		t.Fatalf("Create of a failing command = %v, want an *ExitError", err)
	}
	if resp.ID != "" {
		t.Errorf("a failed Create returned ID %q; it must leave no resource", resp.ID)
	}
	wantLines := []string{}
	for i := 11; i <= 30; i++ {
		wantLines = append(wantLines, fmt.Sprintf("line %d", i))
	}
	if exit.Code != 3 || exit.Op != "create" || exit.Stderr != strings.Join(wantLines, "\n") {
		t.Errorf("ExitError = %+v, want code 3 and the last 20 lines of stderr", exit)
	}
	for _, want := range []string{"exited with code 3", "line 30"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not mention %q", err, want)
		}
	}
	// The engine names the resource and the operation; a provider's error
	// that did too would read twice.
	if strings.Contains(err.Error(), urn.String()) {
		t.Errorf("error %q names the resource; the engine does", err)
	}

	// Long lines: the tail is bounded in bytes too.
	inputs = check(t, p, resource.PropertyMap{"create": str(`head -c 100000 /dev/zero | tr '\0' x >&2; exit 1`), "shell": resource.NewBool(true)})
	_, err = p.Create(t.Context(), providers.CreateRequest{URN: urn, Inputs: inputs})
	if !errors.As(err, &exit) || len(exit.Stderr) > 4200 || !strings.HasSuffix(exit.Stderr, "xxx") {
		t.Errorf("ExitError for a long stderr has %d bytes of it, want at most about 4 KiB of its end", len(exit.Stderr))
	}

	// A program that does not exist.
	inputs = check(t, p, resource.PropertyMap{"create": str("no-such-program-groundwork --flag")})
	if _, err = p.Create(t.Context(), providers.CreateRequest{URN: urn, Inputs: inputs}); err == nil || !strings.Contains(err.Error(), "no-such-program-groundwork") {
		t.Errorf("Create of a missing program = %v, want an error naming it", err)
	}
}

func TestSecretInputs(t *testing.T) {
	p := command.New()
	inputs := check(t, p, resource.PropertyMap{"create": str("printenv TOKEN"), "environment": resource.NewObject(resource.PropertyMap{"TOKEN": resource.NewSecret(str("hunter2"))})})
	resp, err := p.Create(t.Context(), providers.CreateRequest{URN: urn, Inputs: inputs})
	if err != nil {
		t.Fatal(err)
	}
	if !resp.Outputs["stdout"].IsSecret() || resp.Outputs["stdout"].Unwrap().StringValue() != "hunter2" {
		t.Errorf("stdout = %v, want the secret hunter2", resp.Outputs["stdout"])
	}
	// A failing secret command line is not shown in the error.
	inputs = check(t, p, resource.PropertyMap{"create": resource.NewSecret(str("false hunter2"))})
	if _, err := p.Create(t.Context(), providers.CreateRequest{URN: urn, Inputs: inputs}); err == nil || strings.Contains(err.Error(), "hunter2") {
		t.Errorf("error of a secret command = %v, want one that does not show it", err)
	}
}

// TestSecretsMaskedInErrors: what a command that sees a secret writes to
// stderr is quoted with the secret masked, in the error and in its
// ExitError; so is exec's own error about a secret command line.
func TestSecretsMaskedInErrors(t *testing.T) {
	secret := func(s string) resource.PropertyValue { return resource.NewSecret(str(s)) }
	env := func(v resource.PropertyValue) resource.PropertyValue {
		return resource.NewObject(resource.PropertyMap{"TOKEN": v})
	}
	tests := []struct {
		name       string
		inputs     resource.PropertyMap
		wantStderr string // "" for an error that is not an ExitError
	}{
		{"a secret in the environment", resource.PropertyMap{
			"create": str(`echo "logging in with $TOKEN" >&2; exit 3`), "shell": resource.NewBool(true), "environment": env(secret("hunter22")),
		}, "logging in with [secret]"},
		{"a secret on stdin", resource.PropertyMap{
			"create": str(`cat >&2; exit 3`), "shell": resource.NewBool(true), "stdin": secret("hunter22"),
		}, "[secret]"},
		{"a secret cut by the tail", resource.PropertyMap{
			"create": str(`printf '%s' "$TOKEN" >&2; head -c 4091 /dev/zero | tr '\0' x >&2; exit 3`), "shell": resource.NewBool(true),
			"environment": env(secret("hunter22")),
		}, ""},
		{"a secret command line that cannot run", resource.PropertyMap{"create": secret("no-such-program-hunter22")}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := command.New()
			inputs := check(t, p, tt.inputs)
			_, err := p.Create(t.Context(), providers.CreateRequest{URN: urn, Inputs: inputs})
			if err == nil {
				t.Fatal("Create succeeded; want it to fail")
			}
			// Any part of the secret, as a tail may cut it.
			leaks := func(s string) bool { return strings.Contains(s, "hunter") || strings.Contains(s, "ter22") }
			if leaks(err.Error()) {
				t.Errorf("error = %v; want the secret masked", err)
			}
			var exit *command.ExitError
			if errors.As(err, &exit) && leaks(exit.Stderr) {
				t.Errorf("ExitError.Stderr = %q; want the secret masked", exit.Stderr)
			}
			if tt.wantStderr != "" && (exit == nil || exit.Stderr != tt.wantStderr) {
				t.Errorf("error = %#v; want an ExitError quoting %q", err, tt.wantStderr)
			}
		})
	}
}

func TestDiff(t *testing.T) {
	p := command.New()
	base := resource.PropertyMap{"create": str("true"), "delete": str("true"), "triggers": resource.NewArray(str("a"))}
	with := func(k resource.PropertyKey, v resource.PropertyValue) resource.PropertyMap {
		m := base.Copy()
		m[k] = v
		return m
	}
	r := create(t, p, base)
	tests := []struct {
		name    string
		news    resource.PropertyMap
		changes resource.DiffChanges
		want    map[string]string
	}{
		{"unchanged", base, resource.DiffNone, map[string]string{}},
		{"create", with("create", str("echo 1")), resource.DiffSome, map[string]string{"create": "update"}},
		{"delete", with("delete", str("echo 1")), resource.DiffSome, map[string]string{"delete": "update"}},
		{"environment", with("environment", resource.NewObject(resource.PropertyMap{"A": str("1")})), resource.DiffSome, map[string]string{"environment": "add"}},
		{"trigger changed", with("triggers", resource.NewArray(str("b"))), resource.DiffSome, map[string]string{"triggers[0]": "update-replace"}},
		{"trigger added", with("triggers", resource.NewArray(str("a"), str("b"))), resource.DiffSome, map[string]string{"triggers[1]": "add-replace"}},
		{"triggers unknown", with("triggers", resource.NewUnknown()), resource.DiffSome, map[string]string{"triggers": "update-replace"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			news := check(t, p, tt.news)
			d, err := p.Diff(t.Context(), providers.DiffRequest{URN: urn, ID: r.id, OldInputs: r.inputs, OldOutputs: r.outputs, NewInputs: news})
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
			if wantReplace := strings.HasPrefix(tt.name, "trigger"); d.Replace() != wantReplace {
				t.Errorf("Replace() = %v, want %v", d.Replace(), wantReplace)
			}
		})
	}
}

// counter is a command line that appends a line to a file each time it
// runs, and prints how many lines the file has.
func counter(t *testing.T) (line string, runs func() int) {
	path := filepath.Join(t.TempDir(), "runs")
	line = fmt.Sprintf(`echo run >> %q; wc -l < %q`, path, path)
	return line, func() int {
		data, _ := os.ReadFile(path)
		return strings.Count(string(data), "\n")
	}
}

func TestUpdate(t *testing.T) {
	p := command.New()
	create1, createRuns := counter(t)
	sh := resource.NewBool(true)

	r := create(t, p, resource.PropertyMap{"create": str(create1), "shell": sh})
	// No update command: a change re-runs create.
	r = update(t, p, r, resource.PropertyMap{"create": str(create1), "shell": sh, "stdin": str("x")})
	if n := createRuns(); n != 2 || r.outputs["stdout"].StringValue() != "2" {
		t.Errorf("after an update without an update command: create ran %d times (stdout %v), want 2", n, r.outputs["stdout"])
	}

	// An update command runs instead, and sees the previous stdout.
	upd := `echo "was $GROUNDWORK_STDOUT"`
	r = update(t, p, r, resource.PropertyMap{"create": str(create1), "shell": sh, "update": str(upd)})
	if n := createRuns(); n != 2 || r.outputs["stdout"].StringValue() != "was 2" {
		t.Errorf("after an update with an update command: create ran %d times, stdout %v; want 2 and \"was 2\"", n, r.outputs["stdout"])
	}

	// A change of delete alone runs nothing and keeps the outputs.
	before := r.outputs["stdout"]
	r = update(t, p, r, resource.PropertyMap{"create": str(create1), "shell": sh, "update": str(upd), "delete": str("true")})
	if n := createRuns(); n != 2 || !r.outputs["stdout"].DeepEquals(before) {
		t.Errorf("a change of delete ran something: create runs %d, stdout %v", n, r.outputs["stdout"])
	}

	// A preview runs nothing and cannot know the output.
	inputs := check(t, p, resource.PropertyMap{"create": str(create1), "shell": sh, "update": str("exit 1")})
	resp, err := p.Update(t.Context(), providers.UpdateRequest{URN: urn, ID: r.id, OldInputs: r.inputs, OldOutputs: r.outputs, NewInputs: inputs, Preview: true})
	if err != nil || !resp.Outputs["stdout"].IsUnknown() || createRuns() != 2 {
		t.Errorf("preview Update = %v, %v (create runs %d); want unknown stdout and nothing run", resp.Outputs, err, createRuns())
	}

	// A failing update is an error.
	if _, err := p.Update(t.Context(), providers.UpdateRequest{URN: urn, ID: r.id, OldInputs: r.inputs, OldOutputs: r.outputs, NewInputs: inputs}); err == nil {
		t.Error("a failing update command succeeded")
	}
}

func TestPreviewCreateRunsNothing(t *testing.T) {
	p := command.New()
	line, runs := counter(t)
	inputs := check(t, p, resource.PropertyMap{"create": str(line), "shell": resource.NewBool(true)})
	resp, err := p.Create(t.Context(), providers.CreateRequest{URN: urn, Inputs: inputs, Preview: true})
	if err != nil {
		t.Fatal(err)
	}
	if runs() != 0 || !resp.Outputs["stdout"].IsUnknown() || !resp.Outputs["stderr"].IsUnknown() {
		t.Errorf("preview Create ran %d times, outputs %v; want nothing run and unknown stdout and stderr", runs(), resp.Outputs)
	}
}

func TestDeleteAndRead(t *testing.T) {
	p := command.New()
	marker := filepath.Join(t.TempDir(), "made")
	r := create(t, p, resource.PropertyMap{
		"create": str(fmt.Sprintf("touch %q; echo %q", marker, marker)),
		"delete": str(`rm -- "$GROUNDWORK_STDOUT"`),
		"shell":  resource.NewBool(true),
	})
	read := func() providers.ReadResponse {
		got, err := p.Read(t.Context(), providers.ReadRequest{URN: urn, ID: r.id, Inputs: r.inputs, State: r.outputs})
		if err != nil {
			t.Fatal(err)
		}
		return got
	}
	if diff := cmp.Diff(providers.ReadResponse{ID: r.id, Inputs: r.inputs, Outputs: r.outputs}, read()); diff != "" {
		t.Errorf("Read (-want +got):\n%s", diff)
	}
	if _, err := p.Delete(t.Context(), providers.DeleteRequest{URN: urn, ID: r.id, Inputs: r.inputs, Outputs: r.outputs}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(marker); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the delete command did not remove what create made: %v", err)
	}
	if got := read(); got.ID != "" {
		t.Errorf("Read after Delete returned ID %q, want empty", got.ID)
	}

	// A delete command that fails leaves the resource in place.
	r = create(t, p, resource.PropertyMap{"create": str("true"), "delete": str("false")})
	if _, err := p.Delete(t.Context(), providers.DeleteRequest{URN: urn, ID: r.id, Inputs: r.inputs, Outputs: r.outputs}); err == nil {
		t.Error("a failing delete command succeeded")
	}
	if got := read(); got.ID != r.id {
		t.Errorf("Read after a failed Delete returned ID %q, want %q", got.ID, r.id)
	}

	// A Command cannot be imported.
	if _, err := p.Read(t.Context(), providers.ReadRequest{URN: urn, ID: "x"}); !errors.Is(err, providers.ErrNotImplemented) {
		t.Errorf("import Read = %v, want an error wrapping ErrNotImplemented", err)
	}
}

func TestUnknownType(t *testing.T) {
	p := command.New()
	other := resource.NewURN("test", "command", "", "command:remote:Command", "c")
	if _, err := p.Check(t.Context(), providers.CheckRequest{URN: other}); err == nil || !strings.Contains(err.Error(), "command:remote:Command") {
		t.Errorf("Check of an unknown type = %v, want an error naming it", err)
	}
}

func TestRegister(t *testing.T) {
	reg := providers.NewRegistry()
	defer reg.Close(context.Background())
	if err := command.Register(reg); err != nil {
		t.Fatal(err)
	}
	if _, err := reg.Lookup(command.Package, command.Version); err != nil {
		t.Fatal(err)
	}
}
