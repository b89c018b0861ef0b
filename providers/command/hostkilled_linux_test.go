package command_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/groundwork-iac/groundwork/providers"
	"github.com/groundwork-iac/groundwork/providers/command"
	"github.com/groundwork-iac/groundwork/resource"
)

// hostScriptVar makes TestHelperHost a host: it runs the script in the
// variable as a Command's create and waits to be killed.
const hostScriptVar = "COMMAND_TEST_HOST_SCRIPT"

// TestHelperHost is no test of its own: TestHostKilledDuringCreate runs
// the test binary with hostScriptVar set, and it is the host it kills.
func TestHelperHost(t *testing.T) {
	script := os.Getenv(hostScriptVar)
	if script == "" {
		return
	}
	p := command.New()
	inputs := check(t, p, resource.PropertyMap{"create": str(script), "shell": resource.NewBool(true)})
	_, err := p.Create(context.Background(), providers.CreateRequest{URN: urn, Inputs: inputs})
	fmt.Fprintln(os.Stderr, "the create ended before its host was killed:", err)
	os.Exit(1)
}

// TestHostKilledDuringCreate kills, with SIGKILL, the process that runs a
// create command: the command and what it started (a background process
// that ignores SIGTERM and SIGHUP) end with it, as a plugin's processes do.
func TestHostKilledDuringCreate(t *testing.T) {
	pidfile := filepath.Join(t.TempDir(), "pids")
	script := fmt.Sprintf(`trap '' TERM HUP; sleep 300 & echo "$$ $!" > %q; wait`, pidfile)
	host := exec.Command(os.Args[0], "-test.run=^TestHelperHost$")
	host.Env = append(os.Environ(), hostScriptVar+"="+script)
	if err := host.Start(); err != nil {
		t.Fatal(err)
	}
	var pids []int
	for deadline := time.Now().Add(30 * time.Second); len(pids) == 0; time.Sleep(10 * time.Millisecond) {
		data, err := os.ReadFile(pidfile)
		if line, complete := strings.CutSuffix(string(data), "\n"); err == nil && complete {
			for _, f := range strings.Fields(line) {
				pid, err := strconv.Atoi(f)
				if err != nil {
					t.Fatalf("the pid file holds %q", data)
				}
				pids = append(pids, pid)
			}
		}
		if time.Now().After(deadline) {
			_ = host.Process.Kill()
			t.Fatal("the command never wrote its pid file")
		}
	}
	t.Cleanup(func() {
		for _, pid := range pids {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	})
	if err := host.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = host.Wait()
	deadline := time.Now().Add(10 * time.Second)
	for _, pid := range pids {
		for !processGone(pid) {
			if time.Now().After(deadline) {
				t.Fatalf("process %d (of the command %v: the shell, its background sleep) still runs 10s after its host was killed", pid, pids)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
}
