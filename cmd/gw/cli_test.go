package main

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestSuggestions: a mistyped command or flag is a usage error (status 2)
// that names what comes close, at every level of the tree, printed once.
func TestSuggestions(t *testing.T) {
	t.Chdir(t.TempDir())
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"destory"}, `unknown command "gw destory"; did you mean "gw destroy"?`},
		{[]string{"stak", "ls"}, `unknown command "gw stak"; did you mean "gw stack"?`},
		{[]string{"stack", "ouptut"}, `unknown command "gw stack ouptut"; did you mean "gw stack output"?`},
		{[]string{"config", "sett", "k", "v"}, `unknown command "gw config sett"; did you mean "gw config set"?`},
		{[]string{"help", "stack", "exprot"}, `unknown command "gw stack exprot"; did you mean "gw stack export"?`},
		{[]string{"up", "--stak", "prod"}, `unknown flag: --stak; did you mean --stack?`},
		{[]string{"up", "--targt", "x"}, `unknown flag: --targt; did you mean --target?`},
		{[]string{"up", "--tar", "x"}, `unknown flag: --tar; did you mean --target or --target-dependents?`},
		{[]string{"config", "set", "--secert", "k", "v"}, `unknown flag: --secert; did you mean --secret?`},
		{[]string{"up", "--parallel", "many"}, `invalid argument "many" for "--parallel" flag`},
		{[]string{"stack", "frob"}, `unknown command "gw stack frob"`},
	} {
		code, out, errOut := gw(t, tc.args...)
		if code != exitUsage || !strings.Contains(errOut, "error: "+tc.want) || strings.Count(errOut, "error:") != 1 || out != "" {
			t.Errorf("gw %q: status %d, stdout %q, stderr %q; want 2 and %q once", tc.args, code, out, errOut, tc.want)
		}
	}
}

// TestBinaryUsageError runs the built gw: a usage error exits 2 with one
// error line and a pointer at the help, nothing else.
func TestBinaryUsageError(t *testing.T) {
	t.Parallel()
	cmd := exec.Command(gwBinary(t), "up", "--yes", "--stak", "prod")
	cmd.Dir = t.TempDir()
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != exitUsage {
		t.Fatalf("gw up --stak: %v; want exit status 2\n%s", err, out)
	}
	want := "error: unknown flag: --stak; did you mean --stack?\nRun \"gw up --help\" for usage.\n"
	if string(out) != want {
		t.Errorf("gw up --stak printed %q; want %q", out, want)
	}
}

// TestVersion: --version prints gw's version alone.
func TestVersion(t *testing.T) {
	code, out, errOut := gw(t, "--version")
	if code != exitOK || out != version()+"\n" || errOut != "" {
		t.Errorf("gw --version: status %d, stdout %q, stderr %q", code, out, errOut)
	}
}

// TestCompletion: cobra's shell completion scripts are there, and gw
// completes its own commands and flags.
func TestCompletion(t *testing.T) {
	for _, shell := range []string{"bash", "zsh", "fish", "powershell"} {
		code, out, errOut := gw(t, "completion", shell)
		if code != exitOK || !strings.Contains(out, "gw") || errOut != "" {
			t.Errorf("gw completion %s: status %d, stderr %q, %d bytes", shell, code, errOut, len(out))
		}
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"__complete", "st"}, "stack\t"},
		{[]string{"__complete", "config", ""}, "set\t"},
		{[]string{"__complete", "up", "--ta"}, "--target\t"},
	} {
		code, out, _ := gw(t, tc.args...)
		if code != exitOK || !strings.Contains(out, tc.want) {
			t.Errorf("gw %q: status %d, stdout %q; want %q", tc.args, code, out, tc.want)
		}
	}
}

// TestProgramErrorOnce runs a Go program that registers a type no
// provider serves: the built gw ends with that cause once, naming the
// resource and the type the provider serves that comes close, without the
// SDK's wrapping, gRPC status words or the exit status by which the SDK
// says it logged the error.
func TestProgramErrorOnce(t *testing.T) {
	t.Parallel()
	bin := site(t)
	dir := siteProject(t)
	cmd := exec.Command(gwBinary(t), "up", "--yes", "--state", "state", "-c", "dir="+dir, "-c", "extraType=random:index:Pett",
		"--secret-config", "token=t", "--", bin)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GW_PASSPHRASE=gw-test")
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != exitError {
		t.Fatalf("gw up: %v; want exit status 1\n%s", err, out)
	}
	want := `error: the program failed: resource "extra": default provider for package random: ` +
		"random:index:Pett is not served by the built-in provider random@4.21.1 (did you mean random:index:Pet?)"
	if strings.Count(string(out), "random:index:Pett") != 1 || !strings.Contains(string(out), want) {
		t.Errorf("the output does not end with the cause, once (%q):\n%s", want, out)
	}
	for _, noise := range []string{"rpc error", "code = ", "status 32", "exit status", "an unhandled error", "waiting for RPCs"} {
		if strings.Contains(string(out), noise) {
			t.Errorf("the output holds %q:\n%s", noise, out)
		}
	}
}

// TestNodeProgramErrorOnce: the same mistake in a Node.js program ends
// with one error naming the resource, the type and the type that comes
// close, without gRPC status words or the JavaScript stack trace (which
// --debug shows).
func TestNodeProgramErrorOnce(t *testing.T) {
	t.Parallel()
	modules := filepath.Join(packageDir, "..", "..", "langhost", "testdata", "nodeprog", "node_modules")
	if _, err := os.Stat(filepath.Join(modules, "@pulumi", "pulumi", "package.json")); err != nil {
		t.Skip("@pulumi/pulumi is not installed in langhost/testdata/nodeprog: run .ci/node-setup.sh to test Node.js programs")
	}
	dir := t.TempDir()
	files := map[string]string{
		"Pulumi.yaml":  "name: np\nruntime:\n  name: nodejs\n  options:\n    typescript: false\n",
		"package.json": `{"name": "np", "main": "index.js"}`,
		"index.js": `"use strict";
const pulumi = require("@pulumi/pulumi");
class Pet extends pulumi.CustomResource {
    constructor(name, args, opts) { super("random:index:Pett", name, args, opts); }
}
new Pet("extra", { length: 2 });
`,
	}
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(modules, filepath.Join(dir, "node_modules")); err != nil {
		t.Fatal(err)
	}
	code, out := gwIn(t, dir, nil, "up", "--yes")
	want := `error: the program failed: Error: failed to register new resource extra [random:index:Pett]: resource "extra": ` +
		"default provider for package random: random:index:Pett is not served by the built-in provider random@4.21.1 (did you mean random:index:Pet?)"
	if code != exitError || !strings.Contains(out, want) || strings.Count(out, "random:index:Pett is not served") != 1 {
		t.Errorf("status %d; want 1 and the cause once (%q):\n%s", code, want, out)
	}
	for _, noise := range []string{"UNKNOWN", "rpc error", "status 32", "    at "} {
		if strings.Contains(out, noise) {
			t.Errorf("the output holds %q:\n%s", noise, out)
		}
	}
	if _, out := gwIn(t, dir, nil, "up", "--yes", "--debug"); !strings.Contains(out, "at new Pet") {
		t.Errorf("--debug does not show the stack trace:\n%s", out)
	}
}

// TestUsageErrorsReadAlike: every mistake in the command line, whichever
// command it is made on (gw's own or the completion commands cobra adds),
// reads the same way: one "error:" line, a pointer at the command's help,
// nothing on stdout, and exit status 2.
func TestUsageErrorsReadAlike(t *testing.T) {
	t.Chdir(t.TempDir())
	for _, tc := range []struct {
		args     []string
		want     string
		helpPath string
	}{
		{[]string{"frob"}, `unknown command "gw frob"`, "gw"},
		{[]string{"--bogus"}, `unknown flag: --bogus`, "gw"},
		{[]string{"up", "-z"}, `unknown shorthand flag: 'z' in -z`, "gw up"},
		{[]string{"up", "--parallel"}, `flag needs an argument: --parallel`, "gw up"},
		{[]string{"config", "get"}, `gw config get takes KEY`, "gw config get"},
		{[]string{"config", "set", "a", "b", "c"}, `gw config set takes KEY and VALUE`, "gw config set"},
		{[]string{"stack", "ls", "extra"}, `gw stack ls takes no arguments`, "gw stack ls"},
		{[]string{"completion", "tcsh"}, `unknown command "gw completion tcsh"`, "gw completion"},
		{[]string{"completion", "bash", "extra"}, `gw completion bash takes no arguments`, "gw completion bash"},
		{[]string{"completion", "zsh", "--bogus"}, `unknown flag: --bogus`, "gw completion zsh"},
	} {
		code, out, errOut := gw(t, tc.args...)
		want := "error: " + tc.want
		help := "Run \"" + tc.helpPath + " --help\" for usage.\n"
		lines := strings.SplitAfter(errOut, "\n")
		if code != exitUsage || out != "" || len(lines) != 3 || !strings.HasPrefix(lines[0], want) || lines[1] != help {
			t.Errorf("gw %q: status %d, stdout %q, stderr %q; want status 2, nothing on stdout and %q then %q", tc.args, code, out, errOut, want, help)
		}
	}
}
