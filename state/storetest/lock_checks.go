package storetest

import (
	"errors"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/groundwork-iac/groundwork/resource"
	"github.com/groundwork-iac/groundwork/state"
)

// lockContention: a locked stack refuses every other lock at once, with
// an error naming the holder; other stacks are independent; Unlock frees
// the stack and is idempotent.
func (s *suite) lockContention(t *testing.T) {
	stack := id("contended")
	a, b := s.open(t), s.open(t)
	start := time.Now()
	la, err := a.Lock(bg(), stack, "update")
	if err != nil {
		t.Fatal(err)
	}
	var le *state.LockedError
	_, err = b.Lock(bg(), stack, "destroy")
	if !errors.As(err, &le) {
		t.Fatalf("Lock of a locked stack = %v; want *LockedError", err)
	}
	host, _ := os.Hostname()
	h := le.Holder
	if le.Stack != stack || h.PID != os.Getpid() || h.Host != host || h.Operation != "update" ||
		h.Time.Before(start.Add(-time.Minute)) || h.Time.After(time.Now().Add(time.Minute)) {
		t.Errorf("LockedError = %+v; want this process on this host, \"update\", now", le)
	}
	msg := err.Error()
	for _, want := range []string{strconv.Quote(stack.String()), strconv.Itoa(os.Getpid()), strconv.Quote(host), `"update"`} {
		if !strings.Contains(msg, want) {
			t.Errorf("the error %q does not name %s", msg, want)
		}
	}
	if _, err := a.Lock(bg(), stack, "update"); !errors.As(err, &le) {
		t.Errorf("a second Lock by the holder = %v; want *LockedError", err)
	}
	if err := b.Save(bg(), stack, chain(1)); !errors.As(err, &le) {
		t.Errorf("Save by another client of a locked stack = %v; want *LockedError", err)
	}
	lo, err := b.Lock(bg(), id("contended-other"), "update")
	if err != nil {
		t.Fatalf("Lock of another stack: %v", err)
	}
	if err := lo.Unlock(bg()); err != nil {
		t.Fatal(err)
	}
	if err := la.Unlock(bg()); err != nil {
		t.Fatal(err)
	}
	if err := la.Unlock(bg()); err != nil {
		t.Errorf("a second Unlock = %v; want nil", err)
	}
	lb, err := b.Lock(bg(), stack, "destroy")
	if err != nil {
		t.Fatalf("Lock after Unlock: %v", err)
	}
	if err := lb.Unlock(bg()); err != nil {
		t.Fatal(err)
	}
}

// lockRace: of many clients locking one stack at once, exactly one wins.
func (s *suite) lockRace(t *testing.T) {
	const clients = 8
	stack := id("lock-race")
	stores := make([]state.Store, clients)
	for i := range stores {
		stores[i] = s.open(t)
	}
	var (
		wg      sync.WaitGroup
		mu      sync.Mutex
		winners []state.Lock
		errs    []error
	)
	for _, st := range stores {
		wg.Add(1)
		go func() {
			defer wg.Done()
			l, err := st.Lock(bg(), stack, "update")
			mu.Lock()
			defer mu.Unlock()
			if err == nil {
				winners = append(winners, l)
			} else {
				errs = append(errs, err)
			}
		}()
	}
	wg.Wait()
	if len(winners) != 1 {
		t.Errorf("%d of %d clients got the lock; want exactly one", len(winners), clients)
	}
	for _, err := range errs {
		var le *state.LockedError
		if !errors.As(err, &le) {
			t.Errorf("a losing Lock = %v; want *LockedError", err)
		}
	}
	for _, l := range winners {
		if err := l.Unlock(bg()); err != nil {
			t.Error(err)
		}
	}
}

// unlockClosesJournal: Unlock closes a journal still open, keeping its
// entries for the next Load, and frees the stack.
func (s *suite) unlockClosesJournal(t *testing.T) {
	stack := id("unlock-closes")
	st := s.open(t)
	l, err := st.Lock(bg(), stack, "update")
	if err != nil {
		t.Fatal(err)
	}
	base := chain(0)
	j := mustOpenJournal(t, st, stack, base)
	create(t, j, newThing("a", base.Resources[0]))
	if err := l.Unlock(bg()); err != nil {
		t.Fatal(err)
	}
	if _, err := j.Append(bg(), state.Entry{Kind: state.EntryWrite, New: newThing("b", base.Resources[0])}); !errors.Is(err, state.ErrJournalClosed) {
		t.Errorf("Append after Unlock = %v; want ErrJournalClosed", err)
	}
	other := s.open(t)
	if got := mustLoad(t, other, stack); len(got.Resources) != 2 {
		t.Errorf("Load = %v; want the journaled create", names(got))
	}
	l2, err := other.Lock(bg(), stack, "update")
	if err != nil {
		t.Fatalf("Lock after Unlock: %v", err)
	}
	l2.Unlock(bg())
}

// leaseExpiryAndFencing: once a holder's lease lapses another client can
// take the stack over, and from then on the first one cannot write: not
// a journal entry, not a commit, not a save. What it had recorded before
// stays; nothing it tries later lands between the new holder's steps.
func (s *suite) leaseExpiryAndFencing(t *testing.T) {
	if s.h.Expire == nil {
		t.Skip("the store's locks do not expire (Harness.Expire is nil): nothing can take a live holder's lock over")
	}
	stack := id("lease")
	a := s.open(t)
	la := mustLock(t, a, stack)
	base := chain(0)
	prov := base.Resources[0]
	ja := mustOpenJournal(t, a, stack, base)
	create(t, ja, newThing("a1", prov))

	b := s.open(t)
	var le *state.LockedError
	if _, err := b.Lock(bg(), stack, "update"); !errors.As(err, &le) {
		t.Fatalf("Lock while the lease is live = %v; want *LockedError", err)
	} else if le.Holder.Expires.IsZero() {
		t.Errorf("LockedError.Holder.Expires is zero; a lease should say when it lapses (%v)", err)
	}

	s.h.Expire(t, stack)
	lb, err := b.Lock(bg(), stack, "update")
	if err != nil {
		t.Fatalf("Lock after the lease lapsed: %v", err)
	}
	t.Cleanup(func() { _ = lb.Unlock(bg()) })
	// The taker learns whose lease it took over, to warn of it.
	if r, ok := lb.(state.ReplacedLock); !ok {
		t.Errorf("the Lock of a store whose leases lapse does not implement state.ReplacedLock")
	} else if stale := r.Replaced(); stale == nil || !stale.Lapsed || stale.Holder.Token != le.Holder.Token || stale.Holder.PID != le.Holder.PID {
		t.Errorf("Replaced = %+v; want the lapsed lease of %+v", stale, le.Holder)
	} else if msg := stale.String(); !strings.Contains(msg, "its lease lapsed at") || !strings.Contains(msg, strconv.Itoa(le.Holder.PID)) {
		t.Errorf("the warning %q does not say whose lease lapsed", msg)
	}

	// The first holder wakes up and carries on.
	if _, err := ja.Append(bg(), state.Entry{Kind: state.EntryBegin, Op: resource.OperationCreating, New: newThing("a2", prov)}); !errors.Is(err, state.ErrLockLost) {
		t.Errorf("Append by the holder whose lease was taken over = %v; want an error wrapping ErrLockLost", err)
	}
	if _, err := ja.Commit(bg()); err == nil {
		t.Error("Commit by the holder whose lease was taken over succeeded")
	}
	if err := a.Save(bg(), stack, chain(3)); err == nil {
		t.Error("Save by the holder whose lease was taken over succeeded")
	}

	// The new holder sees what the first recorded durably, and works on.
	snap := mustLoad(t, b, stack)
	if diff := cmp.Diff([]string{"default", "a1"}, names(snap)); diff != "" {
		t.Errorf("the new holder loaded (-want +got):\n%s", diff)
	}
	jb := mustOpenJournal(t, b, stack, snap)
	create(t, jb, newThing("b1", prov))
	if _, err := ja.Append(bg(), state.Entry{Kind: state.EntryWrite, New: newThing("a3", prov)}); err == nil {
		t.Error("Append by the old holder between the new holder's steps succeeded")
	}
	if _, err := jb.Commit(bg()); err != nil {
		t.Fatalf("Commit by the new holder: %v", err)
	}
	if err := ja.Close(bg()); err != nil && !errors.Is(err, state.ErrLockLost) {
		t.Logf("Close by the old holder: %v", err)
	}
	if err := la.Unlock(bg()); !errors.Is(err, state.ErrLockLost) {
		t.Errorf("Unlock by the old holder = %v; want ErrLockLost", err)
	}
	if _, err := s.open(t).Lock(bg(), stack, "update"); !errors.As(err, &le) {
		t.Errorf("the old holder's Unlock released the new holder's lock: Lock = %v", err)
	}
	if err := jb.Close(bg()); err != nil {
		t.Fatal(err)
	}
	if err := lb.Unlock(bg()); err != nil {
		t.Fatalf("Unlock by the new holder: %v", err)
	}
	final := mustLoad(t, s.open(t), stack)
	got := names(final)
	if diff := cmp.Diff([]string{"default", "a1", "b1"}, got); diff != "" || len(final.PendingOperations) != 0 {
		t.Errorf("final state %v, pending %v; want default, a1, b1 and nothing pending:\n%s", got, pendingOf(final), diff)
	}
	if slices.Contains(got, "a2") || slices.Contains(got, "a3") {
		t.Error("an entry of the old holder landed after the takeover")
	}
}
