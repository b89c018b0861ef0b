package filestore_test

import (
	"context"
	"errors"
	"sync"
	"testing"

	"github.com/groundwork-iac/groundwork/engine"
	"github.com/groundwork-iac/groundwork/enginetest"
	"github.com/groundwork-iac/groundwork/providers"
	"github.com/groundwork-iac/groundwork/providers/providertest"
	"github.com/groundwork-iac/groundwork/state"
	"github.com/groundwork-iac/groundwork/state/filestore"
)

const thingType = "mem:index:Thing"

// countingMemory is a Memory provider that counts the creates and deletes
// of each resource by name.
type countingMemory struct {
	mem *providertest.Memory

	mu               sync.Mutex
	creates, deletes map[string]int
}

func newCountingMemory() *countingMemory {
	return &countingMemory{mem: providertest.NewMemory(), creates: map[string]int{}, deletes: map[string]int{}}
}

func (c *countingMemory) provider() *providers.Func {
	p := c.mem.Provider()
	create, del := p.CreateF, p.DeleteF
	p.CreateF = func(ctx context.Context, req providers.CreateRequest) (providers.CreateResponse, error) {
		c.mu.Lock()
		c.creates[req.URN.Name()]++
		c.mu.Unlock()
		return create(ctx, req)
	}
	p.DeleteF = func(ctx context.Context, req providers.DeleteRequest) (providers.DeleteResponse, error) {
		c.mu.Lock()
		c.deletes[req.URN.Name()]++
		c.mu.Unlock()
		return del(ctx, req)
	}
	return p
}

// twice returns the names created or deleted more than once.
func (c *countingMemory) twice() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []string
	for name, n := range c.creates {
		if n > 1 {
			out = append(out, "created "+name)
		}
	}
	for name, n := range c.deletes {
		if n > 1 {
			out = append(out, "deleted "+name)
		}
	}
	return out
}

// A file-store update whose lock is removed by force (gw unlock --force)
// while it runs: a second update takes the stack and finishes; the first
// is refused at its next journal write, so it calls no provider again and
// nothing is created or deleted twice.
func TestForcedUnlockFencesTheRunningUpdate(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	cloud := newCountingMemory()
	newEnv := func(p providers.Provider) *enginetest.Env {
		store, err := filestore.New(root)
		if err != nil {
			t.Fatal(err)
		}
		env := enginetest.New(t)
		env.Store = store
		env.Provider("mem", "", p)
		return env
	}
	// The stack holds "old", which the program no longer declares.
	if _, err := newEnv(cloud.provider()).Up(func(ctx *engine.Context) error {
		ctx.Register(thingType, "old", engine.Props{"name": "old"})
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	program := func(ctx *engine.Context) error {
		a := ctx.Register(thingType, "a", engine.Props{"name": "a"})
		b := ctx.Register(thingType, "b", engine.Props{"name": a.Output("name")})
		ctx.Register(thingType, "late", engine.Props{"name": b.Output("name")})
		return nil
	}

	// The first update stalls in the check of "late": a and b are created
	// and recorded, late and the delete of old are still to come.
	inCheck, wake := make(chan struct{}), make(chan struct{})
	stalling := cloud.provider()
	stalling.CheckF = func(ctx context.Context, req providers.CheckRequest) (providers.CheckResponse, error) {
		if req.URN.Name() == "late" {
			close(inCheck)
			<-wake
		}
		return providers.CheckResponse{Inputs: req.News}, nil
	}
	first := newEnv(stalling)
	done := make(chan error, 1)
	go func() {
		_, err := first.Up(program)
		done <- err
	}()
	select {
	case <-inCheck:
	case err := <-done:
		t.Fatalf("the first update ended before it stalled: %v", err)
	}

	// Its lock is removed by force, and a second update runs to the end.
	second := newEnv(cloud.provider())
	_, err := second.Store.Lock(ctx, second.StackID(), "probe")
	var locked *state.LockedError
	if !errors.As(err, &locked) {
		t.Fatalf("Lock while the first update runs = %v; want *state.LockedError", err)
	}
	if err := second.Store.(state.ForceUnlocker).ForceUnlock(ctx, second.StackID(), locked.Holder.Token); err != nil {
		t.Fatal(err)
	}
	if _, err := second.Up(program); err != nil {
		t.Fatalf("the second update: %v", err)
	}

	close(wake)
	if err := <-done; !errors.Is(err, state.ErrLockLost) {
		t.Fatalf("the first update = %v; want an error wrapping state.ErrLockLost", err)
	}
	if twice := cloud.twice(); len(twice) > 0 {
		t.Errorf("after the forced unlock: %v", twice)
	}
	snap, err := second.Store.Load(ctx, second.StackID())
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range snap.Resources {
		if r.Type == thingType {
			got = append(got, r.URN.Name())
		}
	}
	if len(got) != 3 || len(snap.PendingOperations) != 0 || cloud.mem.Count() != 3 {
		t.Errorf("the stack records %v with %d pending operations and the cloud holds %d; want a, b, late, none, 3",
			got, len(snap.PendingOperations), cloud.mem.Count())
	}
}
