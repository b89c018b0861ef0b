package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

var (
	gwOnce sync.Once
	gwBin  string
	gwErr  error
)

// gwBinary builds gw itself once per test binary, for the tests that need
// a process of its own: to kill it, interrupt it, or pipe its output.
func gwBinary(t *testing.T) string {
	t.Helper()
	gwOnce.Do(func() {
		dir, err := os.MkdirTemp("", "gw-bin-")
		if err != nil {
			gwErr = err
			return
		}
		gwBin = filepath.Join(dir, "gw")
		cmd := exec.Command(goCommand(), "build", "-o", gwBin, ".")
		cmd.Dir = packageDir
		out, err := cmd.CombinedOutput()
		if err != nil {
			gwErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if gwErr != nil {
		t.Fatal(gwErr)
	}
	return gwBin
}

// slowProgram is a program that records its pid in pidFile, ignores
// SIGTERM (so a graceful cancellation waits for it) and sleeps. It is
// killed when the test ends.
func slowProgram(t *testing.T, pidFile string) []string {
	killRecordedPID(t, pidFile)
	return []string{"sh", "-c", `trap "" TERM; echo $$ > "$0"; exec sleep 60`, pidFile}
}

// killPID kills process pid, if it runs.
func killPID(pid int) {
	if p, err := os.FindProcess(pid); err == nil {
		_ = p.Kill()
	}
}

// killRecordedPID kills, when the test ends, the process whose pid is in
// pidFile by then.
func killRecordedPID(t *testing.T, pidFile string) {
	t.Cleanup(func() {
		if b, err := os.ReadFile(pidFile); err == nil {
			if pid, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil {
				killPID(pid)
			}
		}
	})
}

// startGW starts the gw binary with args and waits until ready exists
// (the stack's lock, or the file a program writes when it runs).
func startGW(t *testing.T, ready string, args ...string) (*exec.Cmd, *syncBuffer) {
	t.Helper()
	cmd := exec.Command(gwBinary(t), args...)
	out := &syncBuffer{}
	cmd.Stdout, cmd.Stderr = out, out
	cmd.Env = append(os.Environ(), runMarkVar+"="+runMark(t))
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_, _ = cmd.Process.Wait()
		for _, pid := range startedBy(t) {
			killPID(pid)
		}
	})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	for {
		if _, err := os.Stat(ready); err == nil {
			return cmd, out
		}
		select {
		case <-ctx.Done():
			t.Fatalf("gw %q never made %s", args, ready)
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// runMarkVar is set in the environment of each gw that startGW starts, to
// a value of the test's own; everything gw starts inherits it, so what
// outlives gw is found by it (startedBy).
const runMarkVar = "GW_TEST_RUN"

func runMark(t *testing.T) string { return fmt.Sprintf("%d/%s", os.Getpid(), t.Name()) }

// startedBy lists the processes that the gw startGW started for t
// started, directly or not, and that still run: those whose environment
// holds t's mark. Zombies, whose environment is gone, are not listed.
func startedBy(t *testing.T) []int {
	t.Helper()
	want := []byte(runMarkVar + "=" + runMark(t) + "\x00")
	envs, err := filepath.Glob("/proc/[0-9]*/environ")
	if err != nil {
		t.Fatal(err)
	}
	var pids []int
	for _, name := range envs {
		env, err := os.ReadFile(name)
		if err != nil || !bytes.HasPrefix(env, want) && !bytes.Contains(env, append([]byte{0}, want...)) {
			continue
		}
		pid, err := strconv.Atoi(filepath.Base(filepath.Dir(name)))
		if err == nil && pid != os.Getpid() {
			pids = append(pids, pid)
		}
	}
	return pids
}

// syncBuffer is a buffer that a process writes to while a test reads it.
type syncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// wait waits for a started gw, at most a minute.
func wait(t *testing.T, cmd *exec.Cmd) (*os.ProcessState, error) {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		return cmd.ProcessState, err
	case <-time.After(time.Minute):
		_ = cmd.Process.Kill()
		<-done
		t.Fatal("gw did not exit")
		return nil, nil
	}
}

// TestKilledGWLeavesALockTheNextRunBreaks kills -9 a gw that holds the
// stack's lock, as a crash or an OOM kill would: the next run breaks the
// lock and warns, naming the dead process.
func TestKilledGWLeavesALockTheNextRunBreaks(t *testing.T) {
	t.Chdir(t.TempDir())
	stateDir, _ := filepath.Abs("state")
	args := append([]string{"up", "--yes", "--project", "p", "--state", stateDir, "--"}, slowProgram(t, "pid")...)
	holder, _ := startGW(t, "pid", args...)

	// While it runs, its lock stands.
	code, out, errOut := gw(t, "up", "--yes", "--project", "p", "--state", stateDir, "--", "true")
	want := fmt.Sprintf(`error: stack "p/dev" is locked by process %d on host `, holder.Process.Pid)
	all := out + errOut
	if code != exitError || strings.Count(all, want) != 1 || !strings.Contains(all, "wait for it to finish, or stop it") {
		t.Fatalf("up while another gw runs: status %d, output %q; want 1 and %q once", code, all, want)
	}

	if err := holder.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_, _ = wait(t, holder)
	code, out, errOut = gw(t, "up", "--yes", "--project", "p", "--state", stateDir, "--", "true")
	want = fmt.Sprintf(`warning: broke the lock of stack "p/dev" left by process %d on host `, holder.Process.Pid)
	if code != exitOK || !strings.Contains(out, want) || !strings.Contains(out, "that process no longer runs") {
		t.Errorf("up after the holder was killed: status %d\n%s\n%s\nwant a warning %q", code, out, errOut, want)
	}
}

// TestInterrupts: the first interrupt cancels the operation with
// errInterrupted as the cause, the second ends the process with status 130.
func TestInterrupts(t *testing.T) {
	sigs := make(chan os.Signal, 2)
	var cause error
	cancel := func(err error) { cause = err }
	exited := make(chan int, 1)
	var out strings.Builder
	sigs <- os.Interrupt
	sigs <- os.Interrupt
	interrupts(sigs, make(chan struct{}), cancel, &out, func(code int) { exited <- code })
	if cause != errInterrupted {
		t.Errorf("the first interrupt cancelled with %v; want errInterrupted", cause)
	}
	if code := <-exited; code != exitInterrupted {
		t.Errorf("the second interrupt exits with %d; want %d", code, exitInterrupted)
	}
	for _, want := range []string{
		"no new step starts", "stays pending until \"gw refresh\" resolves it", "interrupt again to stop at once",
		"interrupted again: stopping now", "stay recorded as pending operations",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("gw does not say %q:\n%s", want, out.String())
		}
	}
	// Once the run is done, interrupts are no longer watched.
	done := make(chan struct{})
	close(done)
	interrupts(make(chan os.Signal), done, func(error) { t.Error("cancelled after the run") }, &out, func(int) { t.Error("exited after the run") })
}

// TestSecondInterruptForces interrupts gw twice while a step that ignores
// the first interrupt runs: gw exits at once with status 130, and the next
// run breaks the lock it left and goes on.
//
// The step outlives the first interrupt: the engine gives the steps in
// flight its grace period (a minute) to finish, and the command ignores
// SIGTERM besides. On a machine so busy
// that the second interrupt comes later than that, the operation has
// ended and released its lock before gw is forced out: there is no lock
// to break, and the attempt is made again.
func TestSecondInterruptForces(t *testing.T) {
	bin := site(t)
	t.Setenv("GW_PASSPHRASE", "gw-test")
	inSiteProject(t)
	for attempt := 1; ; attempt++ {
		stateDir, locked := forceExitDuringUp(t, bin)
		if !locked {
			if attempt < 3 {
				t.Logf("attempt %d: the operation ended before the second interrupt; trying again", attempt)
				continue
			}
			t.Fatalf("in %d attempts, the operation always ended before the second interrupt", attempt)
		}
		// The command was cut short after it started: what it did is
		// unknown, so its create stays pending, with no ID to look for.
		code, out, errOut := gw(t, "stack", "export", "--state", stateDir)
		if code != exitOK {
			t.Fatalf("stack export after a forced exit: status %d\n%s%s", code, out, errOut)
		}
		if pending := exportedPending(t, out); !slices.Contains(pending, slowURN) {
			t.Errorf("after a forced exit, the create that was running is not pending (pending: %v):\n%s", pending, out)
		}
		code, stdout, errOut := gw(t, "up", "--yes", "--state", stateDir, "-c", "slow=true", "--", bin)
		if code != exitOK || !strings.Contains(stdout, "warning: broke the lock of stack \"site/dev\"") {
			t.Errorf("up after a forced exit: status %d; want 0 and a warning that it broke the lock\n%s\n%s", code, stdout, errOut)
		}
		if !strings.Contains(stdout+errOut, "was interrupted while creating this resource") || !strings.Contains(stdout+errOut, "slow") {
			t.Errorf("up after a forced exit does not warn of the create it cut short:\n%s\n%s", stdout, errOut)
		}
		return
	}
}

// forceExitDuringUp starts an up of the site program bin whose slow
// command ignores SIGTERM, interrupts gw twice, and checks that gw stopped
// at once and took what it started with it. It returns the state folder
// and whether the stack's lock was left behind.
func forceExitDuringUp(t *testing.T, bin string) (stateDir string, locked bool) {
	t.Helper()
	work := t.TempDir()
	stateDir = filepath.Join(work, "state")
	ready := filepath.Join(work, "ready")
	slow := fmt.Sprintf(`trap "" TERM; echo $$ > %q; exec sleep 30`, ready)
	holder, out := startGW(t, ready, "up", "--yes", "--state", stateDir, "-c", "dir="+work, "--secret-config", "token=t",
		"-c", "slow="+slow, "--", bin)
	if err := holder.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	// The first interrupt is acknowledged before the second is sent (two
	// signals sent at once arrive as one).
	deadline := time.Now().Add(time.Minute)
	for !strings.Contains(out.String(), "interrupt again to stop at once") && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if err := holder.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	ps, _ := wait(t, holder)
	if ps.ExitCode() != exitInterrupted {
		t.Fatalf("gw after two interrupts: status %d; want %d\n%s", ps.ExitCode(), exitInterrupted, out)
	}
	if !strings.Contains(out.String(), "interrupted again: stopping now") {
		t.Errorf("gw did not say it stopped at once:\n%s", out)
	}
	// The command, the program and the plugins went with gw. SIGKILL takes
	// effect as each is next scheduled; a busy machine gets a moment.
	left := startedBy(t)
	for deadline := time.Now().Add(5 * time.Second); len(left) > 0 && time.Now().Before(deadline); left = startedBy(t) {
		time.Sleep(20 * time.Millisecond)
	}
	if len(left) > 0 {
		t.Errorf("processes %v that gw started outlived its forced exit", left)
	}
	err := filepath.WalkDir(stateDir, func(path string, d fs.DirEntry, err error) error {
		if err == nil && d.Name() == "lock" && !d.IsDir() {
			locked = true
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return stateDir, locked
}

// TestFirstInterruptCancels interrupts gw once: the operation stops, says
// what was stopped, and releases the lock.
func TestFirstInterruptCancels(t *testing.T) {
	t.Chdir(t.TempDir())
	stateDir, _ := filepath.Abs("state")
	holder, out := startGW(t, "started", "up", "--yes", "--project", "p", "--state", stateDir, "--", "sh", "-c", "touch started; exec sleep 60")
	if err := holder.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	ps, _ := wait(t, holder)
	if ps.ExitCode() != exitError {
		t.Errorf("gw after one interrupt: status %d; want %d\n%s", ps.ExitCode(), exitError, out)
	}
	if _, err := os.Stat(filepath.Join(stateDir, "p", "dev", "lock")); !os.IsNotExist(err) {
		t.Errorf("the lock is still there after a graceful cancellation: %v", err)
	}
	// The program was still running when the operation ended: the
	// error may say so between these two.
	start := "error: the update was cancelled (interrupted): no new step was started"
	end := "; the steps already running finished, and the state records every change made (create: 1)\n"
	if got := out.String(); !strings.Contains(got, start) || !strings.HasSuffix(got, end) || strings.Count(got, "error:") != 1 {
		t.Errorf("gw's output does not end with the one error %q ... %q:\n%s", start, end, got)
	}
}

// TestFirstInterruptEndsAStubbornProgram interrupts gw once while its
// program ignores SIGTERM: gw waits out the grace period, kills the
// program's process group, and only then exits, leaving nothing running.
func TestFirstInterruptEndsAStubbornProgram(t *testing.T) {
	t.Chdir(t.TempDir())
	stateDir, _ := filepath.Abs("state")
	args := append([]string{"up", "--yes", "--project", "p", "--state", stateDir, "--"}, slowProgram(t, "pid")...)
	holder, out := startGW(t, "pid", args...)
	if err := holder.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	ps, _ := wait(t, holder)
	if ps.ExitCode() != exitError {
		t.Errorf("gw after one interrupt: status %d; want %d\n%s", ps.ExitCode(), exitError, out)
	}
	if left := startedBy(t); len(left) > 0 {
		t.Errorf("processes %v that gw started still ran when it exited\n%s", left, out)
	}
}

// TestUpPipedIntoHead runs "gw up --json | head -3": gw outlives the pipe's
// reader, finishes the update and leaves no lock behind.
func TestUpPipedIntoHead(t *testing.T) {
	bin, work := inSiteWorkspace(t)
	stateDir := filepath.Join(work, "state")
	line := fmt.Sprintf("%q up --json --yes --state %q --config dir=%q --secret-config token=t -- %q | head -3",
		gwBinary(t), stateDir, work, bin)
	out, err := exec.Command("sh", "-c", line).Output()
	if err != nil {
		t.Fatalf("%s: %v", line, err)
	}
	if n := strings.Count(string(out), "\n"); n != 3 {
		t.Errorf("head printed %d lines:\n%s", n, out)
	}
	if _, err := os.Stat(filepath.Join(stateDir, "site", "dev", "lock")); !os.IsNotExist(err) {
		t.Errorf("gw left its lock behind: %v", err)
	}
	code, stdout, errOut := gw(t, "up", "--yes", "--state", stateDir, "--", bin)
	if code != exitOK || strings.Contains(stdout, "warning") || strings.Contains(stdout, "+ create") {
		t.Errorf("the next up: status %d; want no warning and nothing to create\n%s\n%s", code, stdout, errOut)
	}
	sc := bufio.NewScanner(strings.NewReader(stdout))
	for sc.Scan() {
		t.Log(sc.Text())
	}
}

// TestUnlock: a lock whose holder gw cannot check (on another machine)
// stands; the error names "gw unlock --force", which removes it.
func TestUnlock(t *testing.T) {
	t.Chdir(t.TempDir())
	if err := os.MkdirAll(filepath.Join("state", "p", "dev"), 0o700); err != nil {
		t.Fatal(err)
	}
	lock := `{"pid":4242,"host":"ci-7.example","time":"2025-01-02T03:04:05Z","operation":"update","token":"theirs"}`
	if err := os.WriteFile(filepath.Join("state", "p", "dev", "lock"), []byte(lock), 0o600); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := gw(t, "up", "--yes", "--project", "p", "--state", "state", "--", "true")
	want := `error: stack "p/dev" is locked by process 4242 on host "ci-7.example", running "update" since 2025-01-02T03:04:05Z (`
	wantEnd := `: wait for it to finish; if it is gone, run "gw unlock --force --state state"`
	if all := out + errOut; code != exitError || !strings.Contains(all, want) || !strings.Contains(all, wantEnd) {
		t.Errorf("up on a locked stack: status %d\n%s%s\nwant %q ... %q", code, out, errOut, want, wantEnd)
	}
	code, _, errOut = gw(t, "unlock", "--project", "p", "--state", "state")
	if code != exitError || !strings.Contains(errOut, "which gw cannot check from here: if it is no longer running, pass --force") {
		t.Errorf("unlock without --force: status %d, stderr %q", code, errOut)
	}
	code, out, errOut = gw(t, "unlock", "--force", "--project", "p", "--state", "state")
	if code != exitOK || !strings.HasPrefix(out, `Removed the lock of stack dev held by process 4242 on host "ci-7.example"`) {
		t.Errorf("unlock --force: status %d, stdout %q, stderr %q", code, out, errOut)
	}
	if code, out, errOut := gw(t, "up", "--yes", "--project", "p", "--state", "state", "--", "true"); code != exitOK {
		t.Errorf("up after unlock: status %d\n%s%s", code, out, errOut)
	}
}

// nodeProject lays out, in a folder of its own, langhost's Node.js test
// program (testdata/nodeprog: its Pulumi.yaml, its entry modules, and the
// @pulumi/pulumi that .ci/node-setup.sh installed there) with a plugin
// folder holding the testfs plugin it uses, and a folder for that plugin's
// files; it skips t, saying what is missing, without node or the program's
// dependencies.
func nodeProject(t *testing.T) (proj, plugins, files string) {
	t.Helper()
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("node is not installed: the Node.js program cannot run")
	}
	prog := filepath.Join(packageDir, "..", "..", "langhost", "testdata", "nodeprog")
	modules := filepath.Join(prog, "node_modules")
	if _, err := os.Stat(filepath.Join(modules, "@pulumi", "pulumi", "package.json")); err != nil {
		t.Skip("@pulumi/pulumi is not installed in langhost/testdata/nodeprog: run .ci/node-setup.sh to test Node.js programs")
	}
	work := t.TempDir()
	plugins, proj, files = filepath.Join(work, "plugins"), filepath.Join(work, "proj"), filepath.Join(work, "files")
	for _, d := range []string{plugins, proj, files} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	build := exec.Command(goCommand(), "build", "-o", filepath.Join(plugins, "pulumi-resource-testfs"), "./langhost/internal/testfs")
	build.Dir = filepath.Join(packageDir, "..", "..")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building the testfs plugin: %v\n%s", err, out)
	}
	for _, name := range []string{"Pulumi.yaml", "package.json", "index.js", "continue.js"} {
		b, err := os.ReadFile(filepath.Join(prog, name))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(proj, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(modules, filepath.Join(proj, "node_modules")); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		for _, pid := range startedBy(t) {
			killPID(pid)
		}
	})
	return proj, plugins, files
}

// runGWIn runs the gw binary in dir to its end, marked as startGW marks
// it, and returns its status and output.
func runGWIn(t *testing.T, dir string, args ...string) (int, string) {
	t.Helper()
	cmd := exec.Command(gwBinary(t), args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), runMarkVar+"="+runMark(t), "GW_PASSPHRASE=gw-test")
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		t.Fatalf("gw %s: %v", args[0], err)
	}
	return cmd.ProcessState.ExitCode(), string(out)
}

// TestNodeProgramWithAPluginLeavesNothing runs a real Pulumi Node.js
// program whose resources a provider plugin serves (the testfs plugin of
// langhost's tests) through the gw binary, up and then destroy: when gw
// has exited, nothing it started, directly or not, still runs.
func TestNodeProgramWithAPluginLeavesNothing(t *testing.T) {
	proj, plugins, files := nodeProject(t)
	common := []string{"--yes", "--state", filepath.Join(proj, "state"), "--plugin-dir", plugins}
	for _, args := range [][]string{
		append([]string{"up", "-c", "content=hello", "--secret-config", "token=t", "-c", "testfs:root=" + files}, common...),
		append([]string{"destroy"}, common...),
	} {
		code, out := runGWIn(t, proj, args...)
		if code != exitOK {
			t.Fatalf("gw %s: status %d\n%s", args[0], code, out)
		}
		if left := startedBy(t); len(left) > 0 {
			t.Errorf("processes %v that gw %s started still ran when it exited\n%s", left, args[0], out)
		}
		_, err := os.Stat(filepath.Join(files, "node-a.txt"))
		if created := err == nil; created != (args[0] == "up") {
			t.Errorf("after gw %s, the plugin's file node-a.txt exists: %v\n%s", args[0], created, out)
		}
	}
}

// TestUpContinueOnError: gw up --continue-on-error goes on after a
// resource fails, and so does the Node.js program: the resource it
// registers once it learned of the failure is created. Without the flag,
// the update stops at the failure and that resource is not created.
func TestUpContinueOnError(t *testing.T) {
	for _, continuing := range []bool{false, true} {
		t.Run(fmt.Sprintf("continue-on-error=%t", continuing), func(t *testing.T) {
			proj, plugins, files := nodeProject(t)
			args := []string{"up", "--yes", "--state", filepath.Join(proj, "state"), "--plugin-dir", plugins,
				"-c", "testfs:root=" + files}
			if continuing {
				args = append(args, "--continue-on-error")
			}
			code, out := runGWIn(t, proj, append(args, "--", "continue.js")...)
			if code != exitError || !strings.Contains(out, "bad") {
				t.Errorf("status %d; want %d and the failure of bad\n%s", code, exitError, out)
			}
			_, err := os.Stat(filepath.Join(files, "later.txt"))
			if created := err == nil; created != continuing {
				t.Errorf("later.txt created: %t, want %t\n%s", created, continuing, out)
			}
			if _, err := os.Stat(filepath.Join(files, "dependent.txt")); err == nil {
				t.Errorf("the resource that needs the failed one was created\n%s", out)
			}
		})
	}
}
