package command_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/groundwork-iac/groundwork/providers"
	"github.com/groundwork-iac/groundwork/providers/command"
	"github.com/groundwork-iac/groundwork/resource"
)

var localURN = resource.NewURN("test", "command", "", command.LocalCommandType, "cmd")

func strArray(ss ...string) resource.PropertyValue {
	vs := make([]resource.PropertyValue, len(ss))
	for i, s := range ss {
		vs[i] = str(s)
	}
	return resource.NewArray(vs...)
}

func localCheck(t *testing.T, p providers.Provider, news resource.PropertyMap) resource.PropertyMap {
	t.Helper()
	resp, err := p.Check(t.Context(), providers.CheckRequest{URN: localURN, News: news})
	if err != nil || len(resp.Failures) > 0 {
		t.Fatalf("Check(%v) = %v, %v", news, resp.Failures, err)
	}
	return resp.Inputs
}

func localCreate(t *testing.T, p providers.Provider, news resource.PropertyMap) live {
	t.Helper()
	inputs := localCheck(t, p, news)
	resp, err := p.Create(t.Context(), providers.CreateRequest{URN: localURN, Inputs: inputs})
	if err != nil {
		t.Fatalf("Create: %v", err)
	}
	return live{id: resp.ID, inputs: inputs, outputs: resp.Outputs}
}

func localUpdate(t *testing.T, p providers.Provider, r live, news resource.PropertyMap) live {
	t.Helper()
	inputs := localCheck(t, p, news)
	resp, err := p.Update(t.Context(), providers.UpdateRequest{URN: localURN, ID: r.id, OldInputs: r.inputs, OldOutputs: r.outputs, NewInputs: inputs})
	if err != nil {
		t.Fatalf("Update: %v", err)
	}
	return live{id: r.id, inputs: inputs, outputs: resp.Outputs}
}

func TestLocalCheck(t *testing.T) {
	p := command.New()
	tests := []struct {
		name       string
		news       resource.PropertyMap
		wantFailed []string
	}{
		{"nothing is required", resource.PropertyMap{}, nil},
		{"every input", resource.PropertyMap{
			"create": str("echo hi"), "update": str("echo up"), "delete": str("echo bye"), "dir": str("/tmp"),
			"environment": resource.NewObject(resource.PropertyMap{"A": str("1")}), "stdin": str("in"),
			"interpreter": strArray("/bin/bash", "-c"), "logging": str("none"), "assetPaths": strArray("*.txt", "!b.txt"),
			"archivePaths": strArray("**"), "addPreviousOutputInEnv": resource.NewBool(false), "triggers": resource.NewArray(resource.NewNumber(1)),
		}, nil},
		{"logging not a mode", resource.PropertyMap{"logging": str("all")}, []string{"logging"}},
		{"interpreter not an array", resource.PropertyMap{"interpreter": str("/bin/sh -c")}, []string{"interpreter"}},
		{"interpreter element not a string", resource.PropertyMap{"interpreter": resource.NewArray(resource.NewNumber(1))}, []string{"interpreter[0]"}},
		{"malformed glob", resource.PropertyMap{"assetPaths": strArray("ok", "[ab")}, []string{"assetPaths[1]"}},
		{"unclosed brace", resource.PropertyMap{"archivePaths": strArray("{a,b")}, []string{"archivePaths[0]"}},
		{"addPreviousOutputInEnv not a bool", resource.PropertyMap{"addPreviousOutputInEnv": str("yes")}, []string{"addPreviousOutputInEnv"}},
		{"triggers not an array", resource.PropertyMap{"triggers": str("x")}, []string{"triggers"}},
		{"groundwork's shell is not an input here", resource.PropertyMap{"create": str("true"), "shell": resource.NewBool(true)}, []string{"shell"}},
		{"unknowns in a preview", resource.PropertyMap{"create": resource.NewUnknown(), "interpreter": resource.NewUnknown(), "assetPaths": resource.NewArray(resource.NewUnknown())}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp, err := p.Check(t.Context(), providers.CheckRequest{URN: localURN, News: tt.news})
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
			if len(got) == 0 && !resp.Inputs.DeepEquals(tt.news) {
				// pulumi-command records the inputs as given: no defaults.
				t.Errorf("checked inputs = %v, want them as given, %v", resp.Inputs, tt.news)
			}
		})
	}
}

func TestLocalCreateOutputs(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name       string
		inputs     resource.PropertyMap
		wantStdout string
		wantStderr string
	}{
		{"one trailing newline trimmed", resource.PropertyMap{"create": str(`printf 'a\n\n'`)}, "a\n", ""},
		{"a shell by default", resource.PropertyMap{"create": str(`echo "$((1+2))"; echo err >&2`)}, "3", "err"},
		{"interpreter", resource.PropertyMap{"create": str("a b"), "interpreter": strArray("printf", "[%s]")}, "[a b]", ""},
		{"environment", resource.PropertyMap{"create": str(`echo "$GREETING"`), "environment": resource.NewObject(resource.PropertyMap{"GREETING": str("hello")})}, "hello", ""},
		{"stdin", resource.PropertyMap{"create": str("tr a-z A-Z"), "stdin": str("quiet")}, "QUIET", ""},
		{"dir", resource.PropertyMap{"create": str("pwd"), "dir": str(dir)}, dir, ""},
		{"no create runs nothing", resource.PropertyMap{"delete": str("echo bye")}, "", ""},
		{"no earlier outputs on create", resource.PropertyMap{"create": str(`echo "[$PULUMI_COMMAND_STDOUT]"`)}, "[]", ""},
	}
	p := command.New()
	idPattern := regexp.MustCompile(`^cmd[0-9a-f]{8}$`)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := localCreate(t, p, tt.inputs)
			if !idPattern.MatchString(string(r.id)) {
				t.Errorf("ID = %q, want the name and eight hex digits, as pulumi-command makes it", r.id)
			}
			want := tt.inputs.Copy()
			want["stdout"], want["stderr"] = str(tt.wantStdout), str(tt.wantStderr)
			if diff := cmp.Diff(want, r.outputs); diff != "" {
				t.Errorf("outputs (-want +got):\n%s", diff)
			}
		})
	}
}

// TestLocalLifecycle: update and delete commands see the recorded stdout
// and stderr as PULUMI_COMMAND_STDOUT and PULUMI_COMMAND_STDERR unless
// addPreviousOutputInEnv is false; without an update command the create
// command runs again; with neither, an update keeps the outputs.
func TestLocalLifecycle(t *testing.T) {
	dir := t.TempDir()
	log := filepath.Join(dir, "log")
	tests := []struct {
		name      string
		inputs    resource.PropertyMap
		updated   resource.PropertyMap // what the update changes
		wantOut   []string             // stdout after create, after update
		wantLog   []string
		wantNoRun bool
	}{{
		name: "update and delete see the earlier outputs",
		inputs: resource.PropertyMap{
			"create": str(`echo made; echo warned >&2`),
			"update": str(`echo "update saw $PULUMI_COMMAND_STDOUT/$PULUMI_COMMAND_STDERR" >> log; echo remade`),
			"delete": str(`echo "delete saw $PULUMI_COMMAND_STDOUT/${PULUMI_COMMAND_STDERR-unset}" >> log`),
			"dir":    str(dir),
		},
		updated: resource.PropertyMap{"environment": resource.NewObject(resource.PropertyMap{"X": str("1")})},
		wantOut: []string{"made", "remade"},
		wantLog: []string{"update saw made/warned", "delete saw remade/unset"},
	}, {
		name: "addPreviousOutputInEnv false",
		inputs: resource.PropertyMap{
			"create":                 str(`echo made`),
			"update":                 str(`echo "update saw ${PULUMI_COMMAND_STDOUT-unset}" >> log; echo remade`),
			"delete":                 str(`echo "delete saw ${PULUMI_COMMAND_STDOUT-unset}" >> log`),
			"dir":                    str(dir),
			"addPreviousOutputInEnv": resource.NewBool(false),
		},
		updated: resource.PropertyMap{"stdin": str("x")},
		wantOut: []string{"made", "remade"},
		wantLog: []string{"update saw unset", "delete saw unset"},
	}, {
		name: "create runs again without an update command, even for a change of delete",
		inputs: resource.PropertyMap{
			"create": str(`echo "create saw ${PULUMI_COMMAND_STDOUT-unset}" >> log; echo n$(wc -l < log)`),
			"delete": str(`echo "delete 1" >> log`),
			"dir":    str(dir),
		},
		updated: resource.PropertyMap{"delete": str(`echo "delete 2 saw $PULUMI_COMMAND_STDOUT" >> log`)},
		wantOut: []string{"n1", "n2"},
		wantLog: []string{"create saw unset", "create saw n1", "delete 2 saw n2"},
	}, {
		name:      "neither create nor update",
		inputs:    resource.PropertyMap{"delete": str(`echo "delete saw [$PULUMI_COMMAND_STDOUT]" >> log`), "dir": str(dir)},
		updated:   resource.PropertyMap{"stdin": str("x")},
		wantOut:   []string{"", ""},
		wantLog:   []string{"delete saw []"},
		wantNoRun: true,
	}}
	p := command.New()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			os.Remove(log)
			r := localCreate(t, p, tt.inputs)
			news := tt.inputs.Copy()
			for k, v := range tt.updated {
				news[k] = v
			}
			diff, err := p.Diff(t.Context(), providers.DiffRequest{URN: localURN, ID: r.id, OldInputs: r.inputs, OldOutputs: r.outputs, NewInputs: localCheck(t, p, news)})
			if err != nil || diff.Changes != resource.DiffSome || len(diff.ReplaceKeys) > 0 {
				t.Fatalf("Diff = %+v, %v; want an update", diff, err)
			}
			u := localUpdate(t, p, r, news)
			if u.outputs["stdout"].StringValue() != tt.wantOut[1] || r.outputs["stdout"].StringValue() != tt.wantOut[0] {
				t.Errorf("stdout after create, update = %q, %q; want %q", r.outputs["stdout"].StringValue(), u.outputs["stdout"].StringValue(), tt.wantOut)
			}
			if _, err := p.Delete(t.Context(), providers.DeleteRequest{URN: localURN, ID: u.id, Inputs: u.inputs, Outputs: u.outputs}); err != nil {
				t.Fatalf("Delete: %v", err)
			}
			b, _ := os.ReadFile(log)
			if diff := cmp.Diff(tt.wantLog, strings.Split(strings.TrimSpace(string(b)), "\n")); diff != "" {
				t.Errorf("what the commands logged (-want +got):\n%s", diff)
			}
		})
	}
}

func TestLocalDiff(t *testing.T) {
	p := command.New()
	olds := resource.PropertyMap{"create": str("echo a"), "triggers": strArray("1")}
	tests := []struct {
		name        string
		news        resource.PropertyMap
		wantChanges resource.DiffChanges
		wantReplace []resource.PropertyKey
	}{
		{"no change", olds, resource.DiffNone, nil},
		{"a trigger replaces", resource.PropertyMap{"create": str("echo a"), "triggers": strArray("2")}, resource.DiffSome, []resource.PropertyKey{"triggers"}},
		{"a command updates", resource.PropertyMap{"create": str("echo b"), "triggers": strArray("1")}, resource.DiffSome, nil},
		{"an added input updates", resource.PropertyMap{"create": str("echo a"), "triggers": strArray("1"), "logging": str("none")}, resource.DiffSome, nil},
		{"an unknown trigger replaces", resource.PropertyMap{"create": str("echo a"), "triggers": resource.NewUnknown()}, resource.DiffSome, []resource.PropertyKey{"triggers"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp, err := p.Diff(t.Context(), providers.DiffRequest{URN: localURN, ID: "x", OldInputs: olds, OldOutputs: olds, NewInputs: tt.news})
			if err != nil {
				t.Fatal(err)
			}
			if resp.Changes != tt.wantChanges || !slices.Equal(resp.ReplaceKeys, tt.wantReplace) {
				t.Errorf("Diff = changes %v, replace %v; want %v, %v", resp.Changes, resp.ReplaceKeys, tt.wantChanges, tt.wantReplace)
			}
		})
	}
}

func TestLocalPreview(t *testing.T) {
	p := command.New()
	inputs := localCheck(t, p, resource.PropertyMap{"create": str("exit 1"), "assetPaths": strArray("*")})
	resp, err := p.Create(t.Context(), providers.CreateRequest{URN: localURN, Inputs: inputs, Preview: true})
	if err != nil {
		t.Fatalf("a preview runs nothing, yet: %v", err)
	}
	for _, k := range []resource.PropertyKey{"stdout", "stderr", "assets"} {
		if !resp.Outputs[k].IsUnknown() {
			t.Errorf("previewed %s = %v, want unknown", k, resp.Outputs[k])
		}
	}
	if _, ok := resp.Outputs["archive"]; ok {
		t.Errorf("previewed archive = %v, want none: no archivePaths", resp.Outputs["archive"])
	}
	// An update's preview keeps the recorded outputs, as pulumi-command's.
	old := resource.PropertyMap{"create": str("exit 1"), "stdout": str("before"), "stderr": str("")}
	up, err := p.Update(t.Context(), providers.UpdateRequest{URN: localURN, ID: "x", OldInputs: old, OldOutputs: old,
		NewInputs: resource.PropertyMap{"create": str("exit 2")}, Preview: true})
	if err != nil || up.Outputs["stdout"].StringValue() != "before" {
		t.Errorf("previewed update = %v, %v; want the recorded stdout and nothing run", up.Outputs, err)
	}
}

// TestLocalAssets: assetPaths and archivePaths select files under the
// working directory by globs applied in order, ! excluding.
func TestLocalAssets(t *testing.T) {
	dir := t.TempDir()
	const mk = `mkdir -p out/sub && echo a > out/a.txt && echo b > out/b.txt && echo s > out/sub/s.txt && echo t > out/secret.txt && echo x > top.log`
	tests := []struct {
		name  string
		globs []string
		want  []string
	}{
		{"star stays in its folder", []string{"out/*.txt"}, []string{"out/a.txt", "out/b.txt", "out/secret.txt"}},
		{"double star crosses folders", []string{"out/**"}, []string{"out/a.txt", "out/b.txt", "out/secret.txt", "out/sub/s.txt"}},
		{"exclusion after inclusion", []string{"**.txt", "!**secret.*"}, []string{"out/a.txt", "out/b.txt", "out/sub/s.txt"}},
		{"inclusion after exclusion wins", []string{"!out/a.txt", "out/a.txt"}, []string{"out/a.txt"}},
		{"classes, alternatives and ?", []string{"out/[ab].txt", "{top,none}.lo?"}, []string{"out/a.txt", "out/b.txt", "top.log"}},
		{"negated class", []string{"out/[!a].txt"}, []string{"out/b.txt"}},
		{"nothing matches", []string{"*.none"}, []string{}},
	}
	p := command.New()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := localCreate(t, p, resource.PropertyMap{"create": str(mk), "dir": str(dir), "assetPaths": strArray(tt.globs...), "archivePaths": strArray(tt.globs...)})
			assets := r.outputs["assets"].ObjectValue()
			got := []string{}
			for _, k := range assets.StableKeys() {
				got = append(got, string(k))
				a := assets[k].AssetValue()
				if a == nil || a.Path != filepath.Join(dir, string(k)) || a.Hash == "" {
					t.Errorf("asset %s = %+v, want the path asset of %s with its hash", k, a, filepath.Join(dir, string(k)))
				}
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("assets (-want +got):\n%s", diff)
			}
			archive := r.outputs["archive"].ArchiveValue()
			members := []string{}
			for k := range archive.Assets {
				members = append(members, k)
			}
			slices.Sort(members)
			if diff := cmp.Diff(tt.want, members); diff != "" || archive.Hash == "" {
				t.Errorf("archive members (-want +got):\n%s\nhash %q", diff, archive.Hash)
			}
		})
	}
}

// TestLocalArchiveHash: the archive output's hash is the one
// pulumi-command records (Pulumi's SDK hashes an archive of assets as a tar
// stream), here the value its plugin, built from v1.2.1, recorded for the
// same two files.
func TestLocalArchiveHash(t *testing.T) {
	dir := t.TempDir()
	r := localCreate(t, command.New(), resource.PropertyMap{"create": str(`mkdir out && echo a > out/a.txt && echo s > out/secret.txt`),
		"dir": str(dir), "archivePaths": strArray("out/**")})
	const want = "193cee69e1eb3786360df3beb72cf2944dc666c5a4ee083be8a18787355fa21a"
	if got := r.outputs["archive"].ArchiveValue().Hash; got != want {
		t.Errorf("archive hash = %s, want pulumi-command's %s", got, want)
	}
}

func TestLocalSecrets(t *testing.T) {
	p := command.New()
	env := resource.NewObject(resource.PropertyMap{"TOKEN": resource.NewSecret(str("hunter2"))})
	r := localCreate(t, p, resource.PropertyMap{"create": str(`echo "$TOKEN"`), "environment": env})
	if !r.outputs["stdout"].IsSecret() || r.outputs["stdout"].Unwrap().StringValue() != "hunter2" {
		t.Errorf("stdout = %v, want the secret hunter2", r.outputs["stdout"])
	}
	if !r.outputs["environment"].DeepEquals(env) {
		t.Errorf("environment = %v, want it recorded as given", r.outputs["environment"])
	}
	inputs := localCheck(t, p, resource.PropertyMap{"create": str(`echo "no $TOKEN" >&2; exit 4`), "environment": env})
	_, err := p.Create(t.Context(), providers.CreateRequest{URN: localURN, Inputs: inputs})
	var exit *command.ExitError
	if !errors.As(err, &exit) || strings.Contains(err.Error(), "hunter2") || exit.Code != 4 {
		t.Errorf("error of a command that saw a secret = %v, want an *ExitError with the secret masked", err)
	}
}

func TestLocalRun(t *testing.T) {
	p := command.New().(providers.Invoker)
	tests := []struct {
		name       string
		args       resource.PropertyMap
		wantReturn resource.PropertyMap
		wantFailed []string
		wantErr    string
	}{{
		name: "stdout and stderr with the arguments",
		args: resource.PropertyMap{"command": str(`echo "hi $WHO"; echo note >&2`), "environment": resource.NewObject(resource.PropertyMap{"WHO": str("there")})},
		wantReturn: resource.PropertyMap{"command": str(`echo "hi $WHO"; echo note >&2`), "environment": resource.NewObject(resource.PropertyMap{"WHO": str("there")}),
			"stdout": str("hi there"), "stderr": str("note")},
	}, {
		name:       "stdin and interpreter",
		args:       resource.PropertyMap{"command": str("-u"), "interpreter": strArray("sort"), "stdin": str("b\na\n")},
		wantReturn: resource.PropertyMap{"command": str("-u"), "interpreter": strArray("sort"), "stdin": str("b\na\n"), "stdout": str("a\nb"), "stderr": str("")},
	}, {
		name:       "command is required",
		args:       resource.PropertyMap{"dir": str("/")},
		wantFailed: []string{"command"},
	}, {
		name:    "a failing command fails the call",
		args:    resource.PropertyMap{"command": str("echo broken >&2; exit 2")},
		wantErr: "exited with code 2",
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp, err := p.Invoke(t.Context(), providers.InvokeRequest{Token: command.RunFunction, Args: tt.args})
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) || !strings.Contains(err.Error(), command.RunFunction) {
					t.Errorf("Invoke = %v, want an error naming %s saying %q", err, command.RunFunction, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var failed []string
			for _, f := range resp.Failures {
				failed = append(failed, f.Property)
			}
			if diff := cmp.Diff(tt.wantFailed, failed); diff != "" {
				t.Errorf("failures (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantReturn, resp.Return); diff != "" {
				t.Errorf("return (-want +got):\n%s", diff)
			}
		})
	}
	if _, err := p.Invoke(t.Context(), providers.InvokeRequest{Token: "command:local:walk", Args: resource.PropertyMap{}}); err == nil || !strings.Contains(err.Error(), command.RunFunction) {
		t.Errorf("Invoke of an unknown function = %v, want an error naming the function it has", err)
	}
}

// TestSchema: the schema is package command at Version, with
// pulumi-command's local Command and run and groundwork's Command.
func TestSchema(t *testing.T) {
	resp, err := providers.GetSchema(t.Context(), command.New(), providers.GetSchemaRequest{})
	if err != nil {
		t.Fatal(err)
	}
	var spec struct {
		Name, Version string
		Resources     map[string]struct {
			InputProperties map[string]struct {
				ReplaceOnChanges bool
			}
			Properties map[string]any
			Required   []string
		}
		Functions map[string]struct {
			Inputs struct {
				Properties map[string]any
				Required   []string
			}
			Outputs struct{ Required []string }
		}
	}
	if err := json.Unmarshal(resp.Schema, &spec); err != nil {
		t.Fatalf("the schema is not JSON: %v", err)
	}
	if spec.Name != command.Package || spec.Version != command.Version {
		t.Errorf("schema name, version = %q, %q; want %q, %q", spec.Name, spec.Version, command.Package, command.Version)
	}
	local := spec.Resources[command.LocalCommandType]
	var inputs []string
	for k := range local.InputProperties {
		inputs = append(inputs, k)
	}
	slices.Sort(inputs)
	wantInputs := []string{"addPreviousOutputInEnv", "archivePaths", "assetPaths", "create", "delete", "dir", "environment", "interpreter", "logging", "stdin", "triggers", "update"}
	if diff := cmp.Diff(wantInputs, inputs); diff != "" {
		t.Errorf("%s inputs (-want +got):\n%s", command.LocalCommandType, diff)
	}
	if !local.InputProperties["triggers"].ReplaceOnChanges || !slices.Equal(local.Required, []string{"stdout", "stderr"}) {
		t.Errorf("%s: triggers replace on changes %v, required %v; want true, [stdout stderr]", command.LocalCommandType, local.InputProperties["triggers"].ReplaceOnChanges, local.Required)
	}
	for _, k := range []string{"stdout", "stderr", "assets", "archive"} {
		if _, ok := local.Properties[k]; !ok {
			t.Errorf("%s has no output %s", command.LocalCommandType, k)
		}
	}
	run := spec.Functions[command.RunFunction]
	if _, ok := run.Inputs.Properties["command"]; !ok || !slices.Equal(run.Inputs.Required, []string{"command"}) || !slices.Equal(run.Outputs.Required, []string{"command", "stdout", "stderr"}) {
		t.Errorf("%s = %+v; want command required in, command, stdout and stderr out", command.RunFunction, run)
	}
	if _, ok := spec.Resources[command.CommandType]; !ok {
		t.Errorf("the schema lacks %s", command.CommandType)
	}
}

// TestRegisterClaimsVersion1: a program that asks for any version of
// pulumi-command's major version 1 up to Version, for a type the provider
// serves, gets the built-in; its remote types and other major versions are
// a plugin's.
func TestRegisterClaimsVersion1(t *testing.T) {
	ctx := context.Background()
	r := providers.NewRegistry()
	if err := command.Register(r); err != nil {
		t.Fatal(err)
	}
	for _, v := range []string{"", "1.0.0", "1.1.0", "1.2.1", "1.3.0"} {
		for _, token := range []string{command.LocalCommandType, command.RunFunction, command.CommandType} {
			got, err := r.ChooseVersion(ctx, command.Package, v, token)
			if err != nil || got != v {
				t.Errorf("ChooseVersion(%q, %s) = %q, %v; want the built-in, at the version asked for", v, token, got, err)
			}
		}
		if info, err := r.Lookup(command.Package, v); err != nil || info.Version != command.Version {
			t.Errorf("Lookup(%q) = %v, %v; want the built-in at %s", v, info, err, command.Version)
		}
	}
	if _, err := r.ChooseVersion(ctx, command.Package, "1.1.0", "command:remote:Command"); err == nil {
		t.Error("ChooseVersion of command:remote:Command chose the built-in; it must go to a plugin")
	}
	if info, err := r.Lookup(command.Package, "2.0.0"); err == nil {
		t.Errorf("Lookup(2.0.0) = %v; the built-in must not claim another major version", info)
	}
}
