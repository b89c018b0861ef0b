package store_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/groundwork-iac/groundwork/state"
	"github.com/groundwork-iac/groundwork/state/filestore"
	"github.com/groundwork-iac/groundwork/state/internal/store"
)

// TestHelperLockHolder is not a test: run by lockHolder in a child
// process, it locks a stack of the file store in GROUNDWORK_LOCK_ROOT,
// says so, and waits to be killed.
func TestHelperLockHolder(t *testing.T) {
	root := os.Getenv("GROUNDWORK_LOCK_ROOT")
	if root == "" {
		t.Skip("a helper process, run by the stale-lock tests")
	}
	s, err := filestore.New(root)
	if err != nil {
		fmt.Println("error:", err)
		os.Exit(1)
	}
	if _, err := s.Lock(context.Background(), dev, "update"); err != nil {
		fmt.Println("error:", err)
		os.Exit(1)
	}
	fmt.Println("locked")
	time.Sleep(time.Hour)
}

// lockHolder starts a process that takes the lock of stack "test/dev" in root
// and holds it until killed; it returns once the lock is taken.
func lockHolder(t *testing.T, root string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperLockHolder$")
	cmd.Env = append(os.Environ(), "GROUNDWORK_LOCK_ROOT="+root)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	line, err := bufio.NewReader(out).ReadString('\n')
	if strings.TrimSpace(line) != "locked" {
		t.Fatalf("the lock holder said %q (%v)", line, err)
	}
	return cmd
}

// TestLockBreaksTheLockOfAKilledProcess kills -9 a process that holds a
// stack's lock, as a crash would: the next Lock breaks it and says whose
// it was.
func TestLockBreaksTheLockOfAKilledProcess(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	holder := lockHolder(t, root)
	s, err := filestore.New(root)
	if err != nil {
		t.Fatal(err)
	}
	// While the holder runs, its lock stands, and the error says so.
	_, err = s.Lock(ctx, dev, "update")
	var le *state.LockedError
	if !errors.As(err, &le) || !le.Running || le.Holder.PID != holder.Process.Pid {
		t.Fatalf("Lock while the holder runs = %v; want *LockedError naming it as running", err)
	}
	if want := "wait for it to finish, or stop it"; !strings.Contains(err.Error(), want) {
		t.Errorf("the error %q does not say %q", err, want)
	}

	if err := holder.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = holder.Wait()
	l, err := s.Lock(ctx, dev, "update")
	if err != nil {
		t.Fatalf("Lock after the holder was killed: %v", err)
	}
	defer l.Unlock(ctx)
	stale := l.(state.ReplacedLock).Replaced()
	if stale == nil || stale.Holder.PID != holder.Process.Pid || stale.Lapsed {
		t.Fatalf("Replaced = %+v; want the killed process's lock", stale)
	}
	msg := stale.String()
	for _, want := range []string{`broke the lock of stack "test/dev" left by process ` + strconv.Itoa(holder.Process.Pid), `running "update"`, "no longer runs"} {
		if !strings.Contains(msg, want) {
			t.Errorf("the warning %q lacks %q", msg, want)
		}
	}
}

// TestLockLeavesLocksItCannotProveStale: a lock is broken only when its
// holder is provably gone.
func TestLockLeavesLocksItCannotProveStale(t *testing.T) {
	ctx := context.Background()
	dead := deadPID(t)
	if store.ProcessAlive(dead) {
		t.Skipf("pid %d was reused already", dead)
	}
	alive := "wait for it to finish, or stop it"
	if store.ProcessStart(os.Getpid()) == "" {
		alive = "the lock does not record when its holder started" // no start times on this system
	}
	for _, tc := range []struct {
		name   string
		holder state.LockInfo
		hint   string
		want   string
	}{
		{"alive on this host", state.LockInfo{PID: os.Getpid(), Host: store.Hostname(), ProcessSpace: store.ProcessSpace(),
			ProcessStart: store.ProcessStart(os.Getpid())}, "", alive},
		{"a lock without a start time whose PID runs", state.LockInfo{PID: os.Getpid(), Host: store.Hostname(), ProcessSpace: store.ProcessSpace()}, "",
			"a process with that PID runs, but the lock does not record when its holder started"},
		{"on another host", state.LockInfo{PID: dead, Host: "elsewhere.example", ProcessSpace: store.ProcessSpace()}, "",
			`on host "elsewhere.example", running "update" since 2025-01-02T03:04:05Z (`},
		{"in another container of this host", state.LockInfo{PID: dead, Host: store.Hostname(), ProcessSpace: "other-boot/pid:[1]"}, "",
			"if it is gone, remove the lock with the store's ForceUnlock method"},
		{"the host's own way out", state.LockInfo{PID: dead, Host: "elsewhere.example"}, `run "gw unlock --force"`,
			`: wait for it to finish; if it is gone, run "gw unlock --force"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			tc.holder.Operation, tc.holder.Token = "update", "theirs"
			tc.holder.Time = time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
			writeLock(t, root, dev, tc.holder)
			s, _ := filestore.New(root, state.WithUnlockHint(tc.hint))
			_, err := s.Lock(ctx, dev, "update")
			var le *state.LockedError
			if !errors.As(err, &le) {
				t.Fatalf("Lock = %v; want *LockedError", err)
			}
			if !strings.HasPrefix(err.Error(), `stack "test/dev" is locked by process `) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("the error %q lacks %q", err, tc.want)
			}
			if _, err := os.Stat(filepath.Join(root, "test", "dev", fileLock)); err != nil {
				t.Errorf("the lock is gone: %v", err)
			}
		})
	}
}

// TestForceUnlock removes a lock whose holder cannot be checked, and only
// the lock named.
func TestForceUnlock(t *testing.T) {
	ctx := context.Background()
	forEachStore(t, func(t *testing.T, h harness) {
		s := h.open()
		if err := s.Save(ctx, dev, chainStack(0)); err != nil {
			t.Fatal(err)
		}
		theirs := []byte(`{"pid":1,"host":"elsewhere.example","operation":"update","token":"theirs"}`)
		h.setFile(dev, fileLock, theirs)
		fu := s.(state.ForceUnlocker)
		if err := fu.ForceUnlock(ctx, dev, "someone-else"); !errors.Is(err, state.ErrLockChanged) {
			t.Errorf("ForceUnlock naming another lock = %v; want ErrLockChanged", err)
		}
		if err := fu.ForceUnlock(ctx, dev, "theirs"); err != nil {
			t.Fatalf("ForceUnlock = %v", err)
		}
		l, err := s.Lock(ctx, dev, "update")
		if err != nil {
			t.Fatalf("Lock after ForceUnlock: %v", err)
		}
		if r := l.(state.ReplacedLock).Replaced(); r != nil {
			t.Errorf("Replaced = %v; want nil after a clean lock", r)
		}
		l.Unlock(ctx)
		if err := fu.ForceUnlock(ctx, dev, "theirs"); err != nil {
			t.Errorf("ForceUnlock of an unlocked stack = %v", err)
		}
	})
}

// TestReusedPID: a lock whose PID now belongs to a process that started
// after its holder (here, this test process stands in for it, with a
// start time the lock records as another) is stale: Lock and BreakLock
// break it. A lock that records no start time, as those of earlier
// versions, is not broken while its PID runs, but says why and is
// removed by ForceUnlock.
func TestReusedPID(t *testing.T) {
	ctx := context.Background()
	start := store.ProcessStart(os.Getpid())
	if start == "" {
		t.Skip("this system's process start times are not read: a reused PID cannot be told from its holder")
	}
	reused := state.LockInfo{PID: os.Getpid(), Host: store.Hostname(), ProcessSpace: store.ProcessSpace(),
		ProcessStart: start + "0", Time: time.Now(), Operation: "update", Token: "theirs"}

	root := t.TempDir()
	s, _ := filestore.New(root)
	writeLock(t, root, dev, reused)
	l, err := s.Lock(ctx, dev, "update")
	if err != nil {
		t.Fatalf("Lock over a lock whose PID was reused = %v; want it broken", err)
	}
	if r := l.(state.ReplacedLock).Replaced(); r == nil || r.Holder.Token != "theirs" {
		t.Errorf("Replaced = %+v; want the lock with the reused PID", r)
	}
	l.Unlock(ctx)

	writeLock(t, root, dev, reused)
	if err := s.BreakLock(ctx, dev); err != nil {
		t.Errorf("BreakLock of a lock whose PID was reused = %v", err)
	}
	if _, err := os.Stat(filepath.Join(root, "test", "dev", fileLock)); !os.IsNotExist(err) {
		t.Errorf("the lock is still there after BreakLock: %v", err)
	}

	old := reused
	old.ProcessStart = ""
	writeLock(t, root, dev, old)
	var le *state.LockedError
	if _, err := s.Lock(ctx, dev, "update"); !errors.As(err, &le) || le.Running || !le.PIDInUse {
		t.Errorf("Lock over a lock without a start time whose PID runs = %v (%+v); want a LockedError with PIDInUse", err, le)
	}
	if err := s.BreakLock(ctx, dev); !errors.As(err, &le) || le.Running || !le.PIDInUse {
		t.Errorf("BreakLock of a lock without a start time whose PID runs = %v; want a refusal with PIDInUse", err)
	}
	if err := s.ForceUnlock(ctx, dev, "theirs"); err != nil {
		t.Errorf("ForceUnlock = %v", err)
	}
	l, err = s.Lock(ctx, dev, "update")
	if err != nil {
		t.Fatalf("Lock after ForceUnlock: %v", err)
	}
	defer l.Unlock(ctx)
	b, err := os.ReadFile(filepath.Join(root, "test", "dev", fileLock))
	if err != nil {
		t.Fatal(err)
	}
	var ours state.LockInfo
	if err := json.Unmarshal(b, &ours); err != nil || ours.ProcessStart != start {
		t.Errorf("the lock taken records the start time %q (%v); want this process's, %q", ours.ProcessStart, err, start)
	}
}
