package postgres

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/groundwork-iac/groundwork/resource"
	"github.com/groundwork-iac/groundwork/state"
)

var bg = context.Background()

func provider() *resource.State {
	return &resource.State{Type: "pulumi:providers:test", URN: resource.NewURN("dev", "p", "", "pulumi:providers:test", "default"), Custom: true, ID: "p1"}
}

func thing(name string, prov *resource.State) *resource.State {
	return &resource.State{Type: "test:index:Thing", URN: resource.NewURN("dev", "p", "", "test:index:Thing", name), Custom: true,
		ID: resource.ID(name + "-id"), Provider: string(prov.URN) + "::" + string(prov.ID)}
}

func TestLeaseIsRenewedWhileHeld(t *testing.T) {
	schema := newSchema(t)
	const lease = 600 * time.Millisecond
	a, b := openStore(t, schema, lease), openStore(t, schema, lease)
	la, err := a.Lock(bg, dev, "update")
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(4 * lease)
	_, err = b.Lock(bg, dev, "destroy")
	var le *state.LockedError
	if !errors.As(err, &le) {
		t.Fatalf("Lock long after the lease length, while the holder renews it = %v; want *LockedError", err)
	}
	if !le.Holder.Expires.After(time.Now().Add(-time.Second)) || le.Holder.Operation != "update" {
		t.Errorf("holder = %+v; want a live lease for \"update\"", le.Holder)
	}
	if msg := err.Error(); !strings.Contains(msg, "lease") || !strings.Contains(msg, `"update"`) {
		t.Errorf("the error does not say that the lock is a lease held for update: %s", msg)
	}
	t.Log(err)
	if err := la.Unlock(bg); err != nil {
		t.Fatal(err)
	}
	lb, err := b.Lock(bg, dev, "destroy")
	if err != nil {
		t.Fatalf("Lock after Unlock: %v", err)
	}
	lb.Unlock(bg)
}

// A holder that dies leaves its lock to lapse; the next Lock after that
// takes the stack over and finds the dead holder's journal replayed.
func TestLapsedLeaseIsTakenOver(t *testing.T) {
	schema := newSchema(t)
	const lease = 500 * time.Millisecond
	dead := openStore(t, schema, lease)
	if _, err := dead.Lock(bg, dev, "update"); err != nil {
		t.Fatal(err)
	}
	base := &state.Snapshot{Resources: []*resource.State{provider()}}
	j, err := dead.OpenJournal(bg, dev, base)
	if err != nil {
		t.Fatal(err)
	}
	a := thing("a", base.Resources[0])
	seq, err := j.Append(bg, state.Entry{Kind: state.EntryBegin, Op: resource.OperationCreating, New: a})
	if err == nil {
		_, err = j.Append(bg, state.Entry{Kind: state.EntrySuccess, Begin: seq, New: a})
	}
	if err != nil {
		t.Fatal(err)
	}
	diedAt := time.Now()
	dead.Close() // no Unlock: the process is gone

	next := openStore(t, schema, lease)
	var le *state.LockedError
	if _, err := next.Lock(bg, dev, "update"); !errors.As(err, &le) {
		t.Fatalf("Lock while the dead holder's lease runs = %v; want *LockedError", err)
	}
	var l state.Lock
	for l == nil {
		if l, err = next.Lock(bg, dev, "update"); err != nil {
			if !errors.As(err, &le) {
				t.Fatal(err)
			}
			if time.Since(diedAt) > 10*lease {
				t.Fatalf("the lease has not lapsed %v after its holder died", time.Since(diedAt))
			}
			time.Sleep(lease / 10)
		}
	}
	defer l.Unlock(bg)
	if waited := time.Since(diedAt); waited < lease/2 {
		t.Errorf("took the stack over %v after its holder died; the lease is %v", waited, lease)
	}
	snap, err := next.Load(bg, dev)
	if err != nil || len(snap.Resources) != 2 {
		t.Fatalf("Load after the takeover = %v, %v; want the dead holder's create", snap, err)
	}
}

func TestBreakLock(t *testing.T) {
	schema := newSchema(t)
	s := openStore(t, schema, 0)
	if err := s.BreakLock(bg, dev); err != nil {
		t.Errorf("BreakLock of an unlocked stack = %v", err)
	}
	l, err := s.Lock(bg, dev, "update")
	if err != nil {
		t.Fatal(err)
	}
	var le *state.LockedError
	if err := openStore(t, schema, 0).BreakLock(bg, dev); !errors.As(err, &le) {
		t.Errorf("BreakLock of a live lease = %v; want a refusal wrapping *LockedError", err)
	}
	newRaw(t, schema).expire(dev)
	if err := openStore(t, schema, 0).BreakLock(bg, dev); err != nil {
		t.Errorf("BreakLock of a lapsed lease = %v", err)
	}
	if err := l.Unlock(bg); !errors.Is(err, state.ErrLockLost) {
		t.Errorf("Unlock of a broken lock = %v; want ErrLockLost", err)
	}
	if l2, err := openStore(t, schema, 0).Lock(bg, dev, "update"); err != nil {
		t.Errorf("Lock after BreakLock: %v", err)
	} else {
		l2.Unlock(bg)
	}
}

// A holder stops renewing a lease that was taken over, and its renewals
// never extend the new holder's.
func TestRenewalStopsAfterTakeover(t *testing.T) {
	schema := newSchema(t)
	const lease = 300 * time.Millisecond
	a, b := openStore(t, schema, lease), openStore(t, schema, lease)
	if _, err := a.Lock(bg, dev, "update"); err != nil {
		t.Fatal(err)
	}
	newRaw(t, schema).expire(dev)
	lb, err := b.Lock(bg, dev, "update")
	if err != nil {
		t.Fatal(err)
	}
	defer lb.Unlock(bg)
	deadline := time.Now().Add(10 * lease)
	for {
		a.b.leases.mu.Lock()
		n := len(a.b.leases.active)
		a.b.leases.mu.Unlock()
		if n == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the first holder still renews a lease that was taken over")
		}
		time.Sleep(lease / 10)
	}
}

// TestRenewalStopsMidCall: stopping a renewal — Release, or Close — cancels
// a renewal call in flight rather than waiting for its timeout, so Close
// returns at once even when the server does not answer.
func TestRenewalStopsMidCall(t *testing.T) {
	for _, how := range []string{"stop", "close"} {
		t.Run(how, func(t *testing.T) {
			called := make(chan struct{}, 1)
			r := newRenewers(3*time.Millisecond, func(ctx context.Context, stack state.StackID, token string) (bool, error) {
				select {
				case called <- struct{}{}:
				default:
				}
				<-ctx.Done() // a server that never answers
				return true, ctx.Err()
			})
			r.start(dev, "t1")
			<-called
			done := make(chan struct{})
			go func() {
				if how == "stop" {
					r.stop(dev, "t1")
				}
				r.close()
				close(done)
			}()
			select {
			case <-done:
			case <-time.After(10 * time.Second):
				t.Fatal("close waits for a renewal call in flight")
			}
		})
	}
}
