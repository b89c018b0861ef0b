package procgroup_test

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/groundwork-iac/groundwork/internal/procgroup"
)

// helperVar makes the test binary the host of TestHostKilled: it starts
// the script given in the variable as a Process, passes on what the script
// prints, and waits to be killed. runHelperVar does the same with Run.
const (
	helperVar    = "PROCGROUP_TEST_HOST"
	runHelperVar = "PROCGROUP_TEST_RUN_HOST"
)

func TestMain(m *testing.M) {
	if script := os.Getenv(helperVar); script != "" {
		host(script)
		return
	}
	if script := os.Getenv(runHelperVar); script != "" {
		runHost(script)
		return
	}
	os.Exit(m.Run())
}

func host(script string) {
	cmd := exec.Command("sh", "-c", script)
	cmd.Stdout = os.Stdout
	if _, err := procgroup.Start(cmd, time.Minute); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	select {}
}

// runHost runs the script with Run from a goroutine, as a provider's call
// does, and waits to be killed.
func runHost(script string) {
	cmd := exec.Command("sh", "-c", script)
	cmd.Stdout = os.Stdout
	go func() {
		err := procgroup.Run(context.Background(), cmd, time.Minute)
		fmt.Fprintln(os.Stderr, "the script ended before its host was killed:", err)
		os.Exit(1)
	}()
	select {}
}

// pids reads n process IDs, one a line, from r.
func pids(t *testing.T, r *bufio.Reader, n int) []int {
	t.Helper()
	var out []int
	for range n {
		line, err := r.ReadString('\n')
		if err != nil {
			t.Fatalf("reading a pid: %v", err)
		}
		pid, err := strconv.Atoi(strings.TrimSpace(line))
		if err != nil {
			t.Fatalf("the script printed %q, want a pid", line)
		}
		out = append(out, pid)
	}
	return out
}

// When the process that started a group is killed with SIGKILL, and so
// can end nothing, the group still ends: the leader, a child of the
// leader that ignores SIGTERM and SIGHUP, and a grandchild.
func TestHostKilled(t *testing.T) {
	hostKilled(t, helperVar)
}

// hostKilled starts the test binary as a host with helper set to a
// script that starts a child ignoring SIGTERM and SIGHUP and a
// grandchild, kills the host with SIGKILL, and checks that the leader,
// the child and the grandchild end.
func hostKilled(t *testing.T, helper string) {
	t.Helper()
	script := `trap '' TERM HUP; sleep 300 & echo $!; sh -c 'sleep 300 & echo $!; wait' & wait`
	host := exec.Command(os.Args[0], "-test.run=^$")
	host.Env = append(os.Environ(), helper+"=echo $$; "+script)
	out, err := host.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := host.Start(); err != nil {
		t.Fatal(err)
	}
	all := pids(t, bufio.NewReader(out), 3)
	t.Cleanup(func() {
		for _, pid := range all {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	})
	if err := host.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = host.Wait()
	if left := gone(all, 10*time.Second); len(left) > 0 {
		t.Errorf("processes %v of the group (leader, child, grandchild: %v) still run 10s after their host was killed", left, all)
	}
}

// A group that Run runs ends when its host is killed with SIGKILL, as a
// Process's does.
func TestRunHostKilled(t *testing.T) {
	hostKilled(t, runHelperVar)
}

// onDyingThread runs f on an OS thread of its own that ends when f
// returns, and returns that thread's ID. The main thread never ends (Go
// parks it instead), so f never runs there.
func onDyingThread(f func()) int {
	tid := make(chan int, 1)
	go func() {
		runtime.LockOSThread() // never unlocked: the thread ends with the goroutine
		if syscall.Gettid() == os.Getpid() {
			// While this goroutine holds the main thread, the next one
			// gets another.
			tid <- onDyingThread(f)
			runtime.UnlockOSThread()
			return
		}
		f()
		tid <- syscall.Gettid()
	}()
	return <-tid
}

// The leader's parent-death signal is tied to the thread that started it
// (Linux sends it when that thread exits): a group started from a
// goroutine whose thread then ends runs on.
func TestStartingThreadEnds(t *testing.T) {
	var p *procgroup.Process
	tid := onDyingThread(func() {
		var err error
		if p, err = procgroup.Start(exec.Command("sleep", "300"), time.Second); err != nil {
			t.Error(err)
		}
	})
	if p == nil {
		t.FailNow()
	}
	t.Cleanup(p.Kill)
	task := fmt.Sprintf("/proc/self/task/%d", tid)
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if _, err := os.Stat(task); err != nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the thread %d that started the group has not ended", tid)
		}
	}
	time.Sleep(300 * time.Millisecond)
	select {
	case <-p.Done():
		t.Fatalf("the leader ended when the thread that started the group ended: %v", p.Err())
	default:
	}
}
