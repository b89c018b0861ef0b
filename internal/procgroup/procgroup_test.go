//go:build unix

package procgroup_test

import (
	"bufio"
	"context"
	"errors"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/groundwork-iac/groundwork/internal/procgroup"
)

// start runs script with sh in a group of its own; the script prints the
// pid of the child it starts in the background as its first line, which
// start returns.
func start(t *testing.T, script string, grace time.Duration) (*procgroup.Process, int) {
	t.Helper()
	cmd := exec.Command("sh", "-c", script)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	p, err := procgroup.Start(cmd, grace)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.Kill)
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatalf("reading the child's pid: %v", err)
	}
	child, err := strconv.Atoi(strings.TrimSpace(line))
	if err != nil {
		t.Fatalf("the script printed %q, want the child's pid", line)
	}
	return p, child
}

// running reports whether pid is a live process (not a zombie).
func running(pid int) bool {
	if syscall.Kill(pid, 0) != nil {
		return false
	}
	b, err := exec.Command("ps", "-o", "stat=", "-p", strconv.Itoa(pid)).Output()
	return err == nil && !strings.HasPrefix(strings.TrimSpace(string(b)), "Z")
}

// gone waits up to limit for every pid to stop running.
func gone(pids []int, limit time.Duration) []int {
	deadline := time.Now().Add(limit)
	for {
		var left []int
		for _, pid := range pids {
			if running(pid) {
				left = append(left, pid)
			}
		}
		if len(left) == 0 || time.Now().After(deadline) {
			return left
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestGroupEnds(t *testing.T) {
	// The bounds tell apart a group that ended without waiting for the
	// grace period from one that was killed after it, and no more: a case
	// that must end early gets a grace period far longer than any load
	// could delay it, and a case that must wait gets a short one and
	// generous room after it, so that a busy machine cannot fail them.
	const (
		long  = 30 * time.Second
		short = 300 * time.Millisecond
	)
	tests := []struct {
		name   string
		script string
		stop   func(*procgroup.Process)
		grace  time.Duration
		// minTime and maxTime bound how long until Done.
		minTime, maxTime time.Duration
		wantCode         int // the leader's exit status, -1 for a signal
	}{{
		name:     "Stop ends a shell script and the child it waits for",
		script:   "sleep 300 & echo $!; wait",
		stop:     func(p *procgroup.Process) { p.Stop(context.Background()) },
		grace:    long,
		maxTime:  long,
		wantCode: -1,
	}, {
		name:     "a child left behind by a leader that exited is ended",
		script:   "sleep 300 & echo $!; exit 3",
		stop:     func(p *procgroup.Process) { <-p.Done() },
		grace:    long,
		maxTime:  long,
		wantCode: 3,
	}, {
		name:     "Stop kills a group that ignores SIGTERM after the grace period",
		script:   "trap '' TERM; sleep 300 & echo $!; wait",
		stop:     func(p *procgroup.Process) { p.Stop(context.Background()) },
		grace:    short,
		minTime:  short,
		maxTime:  short + long,
		wantCode: -1,
	}, {
		name:     "an orphan that ignores SIGTERM is killed after the grace period",
		script:   "trap '' TERM; sleep 300 & echo $!; exit 0",
		stop:     func(p *procgroup.Process) { <-p.Done() },
		grace:    short,
		minTime:  short,
		maxTime:  short + long,
		wantCode: 0,
	}, {
		name:   "Stop with an ended context kills at once",
		script: "trap '' TERM; sleep 300 & echo $!; wait",
		stop: func(p *procgroup.Process) {
			ctx, cancel := context.WithCancel(context.Background())
			cancel()
			p.Stop(ctx)
		},
		grace:    long,
		maxTime:  long,
		wantCode: -1,
	}, {
		name:     "Kill kills at once",
		script:   "trap '' TERM; sleep 300 & echo $!; wait",
		stop:     (*procgroup.Process).Kill,
		grace:    long,
		maxTime:  long,
		wantCode: -1,
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, child := start(t, tt.script, tt.grace)
			begin := time.Now()
			tt.stop(p)
			took := time.Since(begin)
			select {
			case <-p.Done():
			default:
				t.Fatal("Done is not closed after the group was ended")
			}
			if running(child) {
				t.Errorf("the child (pid %d) still runs", child)
			}
			if running(p.Pid()) {
				t.Errorf("the leader (pid %d) still runs", p.Pid())
			}
			if took < tt.minTime || took > tt.maxTime {
				t.Errorf("the group took %v to end, want %v to %v", took, tt.minTime, tt.maxTime)
			}
			code := 0
			var exit *exec.ExitError
			if err := p.Err(); errors.As(err, &exit) {
				code = exit.ExitCode()
			} else if err != nil {
				t.Fatalf("Err = %v", err)
			}
			if code != tt.wantCode {
				t.Errorf("exit status %d (%v), want %d", code, p.Err(), tt.wantCode)
			}
		})
	}
}

// A leader that exits with nothing left in its group is done at once.
func TestQuickExit(t *testing.T) {
	cmd := exec.Command("true")
	p, err := procgroup.Start(cmd, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	select {
	case <-p.Done():
	case <-time.After(5 * time.Second):
		t.Fatal("a leader that exited alone is not done")
	}
	if err := p.Err(); err != nil {
		t.Errorf("Err = %v", err)
	}
	p.Stop(context.Background()) // after Done: a no-op
	p.Kill()
}

func TestStartFails(t *testing.T) {
	if _, err := procgroup.Start(exec.Command("/no/such/binary"), 0); err == nil {
		t.Error("Start of a missing binary succeeded")
	}
}
