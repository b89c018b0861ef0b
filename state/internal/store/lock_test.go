package store_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/groundwork-iac/groundwork/state"
	"github.com/groundwork-iac/groundwork/state/filestore"
	"github.com/groundwork-iac/groundwork/state/internal/store"
)

func TestLockIsExclusiveAcrossStores(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	a, _ := filestore.New(root)
	b, _ := filestore.New(root)
	start := time.Now()
	la, err := a.Lock(ctx, dev, "update")
	if err != nil {
		t.Fatal(err)
	}
	_, err = b.Lock(ctx, dev, "destroy")
	var le *state.LockedError
	if !errors.As(err, &le) {
		t.Fatalf("second Lock = %v; want *LockedError", err)
	}
	h := le.Holder
	if le.Stack != dev || h.PID != os.Getpid() || h.Host != store.Hostname() || h.Operation != "update" ||
		h.Time.Before(start.Add(-time.Second)) || h.Time.After(time.Now().Add(time.Second)) {
		t.Errorf("LockedError = %+v; want this process, this host, \"update\", now", le)
	}
	t.Log(err)
	// The same store cannot lock twice either.
	if _, err := a.Lock(ctx, dev, "update"); !errors.As(err, &le) {
		t.Errorf("relock by the holder = %v; want *LockedError", err)
	}
	// Other stacks are independent.
	lo, err := b.Lock(ctx, state.StackID{Project: "test", Stack: "other"}, "update")
	if err != nil {
		t.Fatal(err)
	}
	lo.Unlock(ctx)
	if err := la.Unlock(ctx); err != nil {
		t.Fatal(err)
	}
	if err := la.Unlock(ctx); err != nil {
		t.Errorf("second Unlock = %v; want nil", err)
	}
	lb, err := b.Lock(ctx, dev, "destroy")
	if err != nil {
		t.Fatalf("Lock after Unlock: %v", err)
	}
	lb.Unlock(ctx)
}

// deadPID returns the pid of a process that has exited and been reaped.
func deadPID(t *testing.T) int {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	return cmd.Process.Pid
}

func writeLock(t *testing.T, root string, stack state.StackID, li state.LockInfo) {
	t.Helper()
	data, _ := json.Marshal(li)
	if err := os.MkdirAll(filepath.Join(root, stack.Project, stack.Stack), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, stack.Project, stack.Stack, fileLock), data, 0o600); err != nil {
		t.Fatal(err)
	}
}

func TestBreakLock(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	s, _ := filestore.New(root)
	dead := deadPID(t)
	if store.ProcessAlive(dead) {
		t.Skipf("pid %d was reused already", dead)
	}

	writeLock(t, root, dev, state.LockInfo{PID: dead, Host: store.Hostname(), Time: time.Now(), Operation: "update", Token: "t1", ProcessSpace: store.ProcessSpace()})
	if err := s.BreakLock(ctx, dev); err != nil {
		t.Fatalf("BreakLock of a dead holder: %v", err)
	}
	l, err := s.Lock(ctx, dev, "update")
	if err != nil {
		t.Fatalf("Lock after BreakLock: %v", err)
	}
	// The live holder (this process) is protected.
	var le *state.LockedError
	if err := s.BreakLock(ctx, dev); !errors.As(err, &le) || le.Holder.PID != os.Getpid() {
		t.Errorf("BreakLock of a live holder = %v; want a refusal wrapping *LockedError", err)
	}
	l.Unlock(ctx)

	// A holder on another host cannot be checked.
	writeLock(t, root, dev, state.LockInfo{PID: dead, Host: "elsewhere.example", Time: time.Now(), Operation: "update", Token: "t2"})
	if err := s.BreakLock(ctx, dev); !errors.As(err, &le) {
		t.Errorf("BreakLock of a remote holder = %v; want a refusal", err)
	}
	os.Remove(filepath.Join(root, "test", "dev", fileLock))
	if err := s.BreakLock(ctx, dev); err != nil {
		t.Errorf("BreakLock of an unlocked stack = %v", err)
	}
}

func TestUnlockAfterLockWasTakenOver(t *testing.T) {
	ctx := context.Background()
	forEachStore(t, func(t *testing.T, h harness) {
		s := h.open()
		l, err := s.Lock(ctx, dev, "update")
		if err != nil {
			t.Fatal(err)
		}
		// Someone breaks the lock and takes the stack.
		theirs := []byte(`{"pid":1,"host":"x","operation":"update","token":"theirs"}`)
		h.setFile(dev, fileLock, theirs)
		if err := l.Unlock(ctx); !errors.Is(err, state.ErrLockLost) {
			t.Errorf("Unlock = %v; want ErrLockLost", err)
		}
		if got := h.files(dev)[fileLock]; string(got) != string(theirs) {
			t.Errorf("Unlock removed the new holder's lock: %q", got)
		}
	})
}

func TestUnlockClosesTheJournal(t *testing.T) {
	ctx := context.Background()
	forEachStore(t, func(t *testing.T, h harness) {
		s := h.open()
		l, err := s.Lock(ctx, dev, "update")
		if err != nil {
			t.Fatal(err)
		}
		base := chainStack(0)
		j := openJournalT(t, s, dev, base)
		create(t, j, newBucket("a", base.Resources[0]))
		if err := l.Unlock(ctx); err != nil {
			t.Fatal(err)
		}
		if _, err := j.Append(ctx, state.Entry{Kind: state.EntryWrite, New: newBucket("b", base.Resources[0])}); !errors.Is(err, state.ErrJournalClosed) {
			t.Errorf("Append after Unlock = %v; want ErrJournalClosed", err)
		}
		got, err := h.open().Load(ctx, dev)
		if err != nil || len(got.Resources) != 2 {
			t.Errorf("Load = %v, %v; want the journaled create", got, err)
		}
		if _, ok := h.files(dev)[fileLock]; ok {
			t.Error("the lock is still there")
		}
	})
}

func TestLockOfANewStackLeavesNothingBehind(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	s, _ := filestore.New(root)
	l, err := s.Lock(ctx, state.StackID{Project: "test", Stack: "fresh"}, "preview")
	if err != nil {
		t.Fatal(err)
	}
	if err := l.Unlock(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "test", "fresh")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the folder of a stack that was never saved is still there: %v", err)
	}
}

// TestWritesAfterTheLockWasTakenOverAreRefused: once an operator removed
// a store's lock (ForceUnlock) and another store took the stack, the
// first store's journal writes nothing more, and the new holder's
// snapshot stands.
func TestWritesAfterTheLockWasTakenOverAreRefused(t *testing.T) {
	ctx := context.Background()
	forEachStore(t, func(t *testing.T, h harness) {
		a := h.open()
		la, err := a.Lock(ctx, dev, "update")
		if err != nil {
			t.Fatal(err)
		}
		base := chainStack(0)
		j := openJournalT(t, a, dev, base)
		create(t, j, newBucket("a", base.Resources[0]))
		var held state.LockInfo
		if err := json.Unmarshal(h.files(dev)[fileLock], &held); err != nil {
			t.Fatal(err)
		}

		b := h.open()
		if err := b.(state.ForceUnlocker).ForceUnlock(ctx, dev, held.Token); err != nil {
			t.Fatal(err)
		}
		lb, err := b.Lock(ctx, dev, "update")
		if err != nil {
			t.Fatal(err)
		}
		theirs := chainStack(2)
		if err := b.Save(ctx, dev, theirs); err != nil {
			t.Fatal(err)
		}
		if _, err := j.Commit(ctx); !errors.Is(err, state.ErrLockLost) {
			t.Errorf("Commit after the lock was taken over = %v; want ErrLockLost", err)
		}
		got, err := b.Load(ctx, dev)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(urns(theirs), urns(got)); diff != "" {
			t.Errorf("the new holder's stack (-saved +loaded):\n%s", diff)
		}
		if err := lb.Unlock(ctx); err != nil {
			t.Fatal(err)
		}
		if err := la.Unlock(ctx); !errors.Is(err, state.ErrLockLost) {
			t.Errorf("Unlock of the removed lock = %v; want ErrLockLost", err)
		}
	})
}
