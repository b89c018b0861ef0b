package langhost_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/groundwork-iac/groundwork/engine"
	"github.com/groundwork-iac/groundwork/langhost"
	"github.com/groundwork-iac/groundwork/resource"
	"github.com/groundwork-iac/groundwork/state/memstore"
)

// shellEngine returns an engine over a memory store and the diagnostics
// its operations report.
func shellEngine(t *testing.T, config map[string]resource.PropertyValue) (*engine.Engine, func() []string) {
	t.Helper()
	var (
		mu    sync.Mutex
		diags []string
	)
	eng, err := engine.New(engine.Config{
		Project: "proj", Stack: "dev", Store: memstore.New(), Config: config,
		OnEvent: func(e engine.Event) {
			if d, ok := e.(engine.DiagnosticEvent); ok {
				mu.Lock()
				diags = append(diags, d.Message)
				mu.Unlock()
			}
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	return eng, func() []string {
		mu.Lock()
		defer mu.Unlock()
		return append([]string(nil), diags...)
	}
}

func TestProgramEnvironment(t *testing.T) {
	eng, diags := shellEngine(t, map[string]resource.PropertyValue{
		"proj:name":    resource.NewString("world"),
		"proj:count":   resource.NewNumber(3),
		"proj:token":   resource.NewSecret(resource.NewString("t0k3n")),
		"aws:region":   resource.NewString("eu-west-1"),
		"proj:enabled": resource.NewBool(true),
	})
	// The environment is written to a file: the diagnostics mask the
	// secret's plaintext.
	envFile := filepath.Join(t.TempDir(), "env")
	prog := langhost.Command("sh", "-c", `
		for v in PULUMI_PROJECT PULUMI_STACK PULUMI_ORGANIZATION PULUMI_DRY_RUN PULUMI_PARALLEL PULUMI_CONFIG PULUMI_CONFIG_SECRET_KEYS; do
			echo "$v=$(printenv $v)" >> "$0"
		done
		case "$PULUMI_MONITOR" in 127.0.0.1:*) echo monitor=ok >> "$0";; esac
		[ "$PULUMI_MONITOR" = "$PULUMI_ENGINE" ] && echo engine=ok >> "$0"
		echo "partial line without a newline" >&2
		printf 'no newline'`, envFile)
	prog.Organization = "acme"
	if _, err := eng.Preview(testContext(t), prog.Run, engine.Parallelism(4)); err != nil {
		t.Fatal(err)
	}
	env, err := os.ReadFile(envFile)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(env)), "\n") {
		if k, v, ok := strings.Cut(line, "="); ok {
			got[k] = v
		}
	}
	var config map[string]string
	if err := json.Unmarshal([]byte(got["PULUMI_CONFIG"]), &config); err != nil {
		t.Fatalf("PULUMI_CONFIG %q: %v", got["PULUMI_CONFIG"], err)
	}
	want := map[string]string{
		"proj:name": "world", "proj:count": "3", "proj:token": "t0k3n", "aws:region": "eu-west-1", "proj:enabled": "true",
	}
	if diff := cmp.Diff(want, config); diff != "" {
		t.Errorf("PULUMI_CONFIG (-want +got):\n%s", diff)
	}
	delete(got, "PULUMI_CONFIG")
	wantEnv := map[string]string{
		"PULUMI_PROJECT": "proj", "PULUMI_STACK": "dev", "PULUMI_ORGANIZATION": "acme", "PULUMI_DRY_RUN": "true",
		"PULUMI_PARALLEL": "4", "PULUMI_CONFIG_SECRET_KEYS": `["proj:token"]`, "monitor": "ok", "engine": "ok",
	}
	if diff := cmp.Diff(wantEnv, got); diff != "" {
		t.Errorf("environment (-want +got):\n%s", diff)
	}
	lines := strings.Join(diags(), "\n")
	for _, want := range []string{"partial line without a newline", "no newline"} {
		if !strings.Contains(lines, want) {
			t.Errorf("the diagnostics lack %q:\n%s", want, lines)
		}
	}
}

func TestProgramFailure(t *testing.T) {
	eng, diags := shellEngine(t, nil)
	prog := langhost.Command("sh", "-c", "echo working; echo 'something broke' >&2; exit 3")
	res, err := eng.Up(testContext(t), prog.Run)
	var pe *langhost.ProgramError
	if !errors.As(err, &pe) {
		t.Fatalf("error = %v, want a *ProgramError", err)
	}
	if pe.ExitCode != 3 || !cmp.Equal(pe.Stderr, []string{"something broke"}) {
		t.Errorf("ProgramError = %+v", pe)
	}
	if !strings.Contains(err.Error(), "something broke") {
		t.Errorf("the error does not quote stderr: %v", err)
	}
	// stdout and stderr are read apart: their relative order is not kept.
	if got := sorted(diags()); !cmp.Equal(got, []string{"something broke", "working"}) {
		t.Errorf("diagnostics = %q", diags())
	}
	// The failed program deleted nothing and recorded its root only.
	if n := len(res.Snapshot.Resources); n != 1 {
		t.Errorf("the snapshot holds %d resources, want the root only", n)
	}
}

// A program that prints a secret of the configuration has it masked in
// the diagnostics and in its ProgramError's lines.
func TestProgramOutputMasked(t *testing.T) {
	eng, diags := shellEngine(t, map[string]resource.PropertyValue{"proj:token": resource.NewSecret(resource.NewString("t0k3n-value"))})
	prog := langhost.Command("sh", "-c", `echo "out: $PULUMI_CONFIG"; echo "err: $PULUMI_CONFIG" >&2; exit 3`)
	_, err := eng.Up(testContext(t), prog.Run)
	var pe *langhost.ProgramError
	if !errors.As(err, &pe) {
		t.Fatalf("error = %v, want a *ProgramError", err)
	}
	kept := strings.Join(pe.Stderr, "\n")
	if strings.Contains(kept, "t0k3n") || !strings.Contains(kept, resource.Masked) {
		t.Errorf("ProgramError.Stderr = %q; want the secret masked", pe.Stderr)
	}
	if got := strings.Join(diags(), "\n"); strings.Contains(got, "t0k3n") || strings.Count(got, resource.Masked) != 2 {
		t.Errorf("diagnostics = %q; want the secret masked on stdout and on stderr", diags())
	}
}

func TestProgramNotFound(t *testing.T) {
	eng, _ := shellEngine(t, nil)
	prog := langhost.Command("./no-such-program")
	_, err := eng.Up(testContext(t), prog.Run)
	if err == nil || !strings.Contains(err.Error(), "no-such-program") {
		t.Fatalf("error = %v, want one naming the program", err)
	}
}

func TestProgramCancelled(t *testing.T) {
	eng, _ := shellEngine(t, nil)
	// The shell ignores SIGTERM; its child sleeps: both are killed.
	pidFile := filepath.Join(t.TempDir(), "pid")
	prog := langhost.Command("sh", "-c", "trap '' TERM; sleep 60 & echo $! > "+pidFile+"; wait")
	prog.GracePeriod = 200 * time.Millisecond
	ctx, cancel := context.WithCancel(testContext(t))
	time.AfterFunc(300*time.Millisecond, cancel)
	start := time.Now()
	_, err := eng.Preview(ctx, prog.Run)
	if err == nil {
		t.Fatal("a cancelled program succeeded")
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("the cancelled program took %v to stop", d)
	}
	b, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for alive(pid) {
		if time.Now().After(deadline) {
			t.Fatalf("the program's child %d outlived it", pid)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// An operation cancelled while its program ignores SIGTERM returns only
// once the program's whole process group has been killed and its leader
// reaped: nothing of it is left for the host to orphan when it exits right
// after (as gw does after an interrupt).
func TestProgramCancelledGroupEndsBeforeReturn(t *testing.T) {
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("needs /proc to list a process group's members")
	}
	for _, op := range []string{"up", "preview"} {
		t.Run(op, func(t *testing.T) {
			eng, _ := shellEngine(t, nil)
			pidFile := filepath.Join(t.TempDir(), "pid")
			// The shell and both its children ignore SIGTERM.
			prog := langhost.Command("sh", "-c", "trap '' TERM; sleep 60 & sleep 60 & echo $$ > "+pidFile+"; wait")
			prog.GracePeriod = time.Second
			ctx, cancel := context.WithCancel(testContext(t))
			defer cancel()
			go func() {
				for {
					if b, err := os.ReadFile(pidFile); err == nil && strings.HasSuffix(string(b), "\n") {
						cancel()
						return
					}
					select {
					case <-ctx.Done():
						return
					case <-time.After(10 * time.Millisecond):
					}
				}
			}()
			run := eng.Up
			if op == "preview" {
				run = eng.Preview
			}
			_, err := run(ctx, prog.Run)
			var cancelled *engine.CancelledError
			if !errors.As(err, &cancelled) {
				t.Fatalf("error = %v, want a *engine.CancelledError", err)
			}
			b, rerr := os.ReadFile(pidFile)
			if rerr != nil {
				t.Fatal(rerr)
			}
			leader, rerr := strconv.Atoi(strings.TrimSpace(string(b)))
			if rerr != nil {
				t.Fatal(rerr)
			}
			members := groupMembers(t, leader)
			for _, pid := range members {
				_ = syscall.Kill(pid, syscall.SIGKILL)
			}
			if len(members) > 0 {
				t.Errorf("processes %v of the program's group still ran when the operation returned", members)
			}
			if err := syscall.Kill(leader, 0); !errors.Is(err, syscall.ESRCH) {
				t.Errorf("the program %d was not reaped when the operation returned (kill 0: %v)", leader, err)
			}
		})
	}
}

// groupMembers lists the processes of group pgid that are neither zombies
// nor dead.
func groupMembers(t *testing.T, pgid int) []int {
	t.Helper()
	names, err := filepath.Glob("/proc/[0-9]*/stat")
	if err != nil {
		t.Fatal(err)
	}
	var pids []int
	for _, name := range names {
		b, err := os.ReadFile(name)
		if err != nil {
			continue // gone since the listing
		}
		s := string(b)
		i := strings.LastIndexByte(s, ')')
		fields := strings.Fields(s[i+1:])
		if len(fields) < 3 || fields[0] == "Z" || fields[0] == "X" {
			continue
		}
		if g, _ := strconv.Atoi(fields[2]); g == pgid {
			pid, _ := strconv.Atoi(strings.Fields(s)[0])
			pids = append(pids, pid)
		}
	}
	return pids
}

// A program that exits leaving a child behind: the child gets SIGTERM
// (and a chance to clean up) and is gone when the operation returns.
func TestProgramChildEnded(t *testing.T) {
	eng, _ := shellEngine(t, nil)
	dir := t.TempDir()
	pidFile, byeFile := filepath.Join(dir, "pid"), filepath.Join(dir, "bye")
	child := "trap 'echo terminated > " + byeFile + "; exit 0' TERM; sleep 300 & wait"
	prog := langhost.Command("sh", "-c", "sh -c \""+child+"\" & echo $! > "+pidFile+"; sleep 0.2; exit 0")
	if _, err := eng.Up(testContext(t), prog.Run); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	if alive(pid) {
		t.Errorf("the program's child %d outlived the operation", pid)
		_ = syscall.Kill(pid, syscall.SIGKILL)
	}
	if bye, err := os.ReadFile(byeFile); err != nil || strings.TrimSpace(string(bye)) != "terminated" {
		t.Errorf("the child was not asked to terminate before it was killed (%q, %v)", bye, err)
	}
}

func TestProgramWithoutCommand(t *testing.T) {
	eng, _ := shellEngine(t, nil)
	if _, err := eng.Preview(testContext(t), (&langhost.Program{}).Run); err == nil {
		t.Fatal("a program without a command ran")
	}
}

func TestConfigJSON(t *testing.T) {
	config, secrets, err := langhost.ConfigJSON(map[string]resource.PropertyValue{
		"p:list": resource.NewArray(resource.NewString("a"), resource.NewNumber(1)),
		"p:obj":  resource.NewSecret(resource.NewObject(resource.PropertyMap{"k": resource.NewBool(false)})),
	})
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"p:list":"[\"a\",1]","p:obj":"{\"k\":false}"}`; config != want {
		t.Errorf("config = %s, want %s", config, want)
	}
	if want := `["p:obj"]`; secrets != want {
		t.Errorf("secret keys = %s, want %s", secrets, want)
	}
	if _, _, err := langhost.ConfigJSON(map[string]resource.PropertyValue{"p:x": resource.NewUnknown()}); err == nil {
		t.Error("an unknown config value was accepted")
	}
	config, secrets, err = langhost.ConfigJSON(nil)
	if err != nil || config != "{}" || secrets != "[]" {
		t.Errorf("empty config = %s %s %v", config, secrets, err)
	}
}

// alive reports whether the process pid runs: a killed child that its
// new parent has not reaped yet (a zombie) does not.
func alive(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return syscall.Kill(pid, 0) == nil && !os.IsNotExist(err)
	}
	_, rest, _ := strings.Cut(string(b), ") ")
	return !strings.HasPrefix(rest, "Z")
}
