package engine_test

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"

	"github.com/groundwork-iac/groundwork/engine"
	"github.com/groundwork-iac/groundwork/enginetest"
	"github.com/groundwork-iac/groundwork/providers"
	"github.com/groundwork-iac/groundwork/providers/providertest"
	"github.com/groundwork-iac/groundwork/resource"
	"github.com/groundwork-iac/groundwork/state"
	"github.com/groundwork-iac/groundwork/state/backendstore"
	"github.com/groundwork-iac/groundwork/state/filestore"
	"github.com/groundwork-iac/groundwork/state/memstore"
)

// A created resource's ID is never held only in memory: what the provider
// answers is recorded, or the operation's error names the resource with
// its ID and how to import it.

const memThing = "mem:index:Thing"

// A provider that answers a real Create with outputs the state cannot
// record (unknown ones, one nested 10,000 levels deep): the resource is
// recorded with its ID and its other outputs, and a warning names the
// outputs dropped.
func TestUnrecordableOutputsOfACreateAreDropped(t *testing.T) {
	mem := providertest.NewMemory()
	p := mem.Provider()
	create := p.CreateF
	p.CreateF = func(ctx context.Context, req providers.CreateRequest) (providers.CreateResponse, error) {
		resp, err := create(ctx, req)
		resp.Outputs = resp.Outputs.Copy()
		resp.Outputs["arn"] = resource.NewUnknown()
		resp.Outputs["tags"] = resource.NewObject(resource.PropertyMap{"a": resource.NewString("x"), "b": resource.NewUnknown()})
		resp.Outputs["deep"] = deepValue(10000)
		return resp, err
	}
	env := enginetest.New(t)
	env.Provider("mem", "", p)
	if _, err := env.Up(func(ctx *engine.Context) error {
		ctx.Register(memThing, "a", engine.Props{"name": "a"})
		return nil
	}); err != nil {
		t.Fatalf("Up: %v", err)
	}
	r := env.Resource(env.URN(memThing, "a"))
	if r == nil || r.ID == "" {
		t.Fatalf("the created resource is not recorded with its ID: %+v", r)
	}
	if _, ok := r.Outputs["arn"]; ok || r.Outputs["name"].StringValue() != "a" {
		t.Errorf("outputs recorded = %v; want name kept, arn and tags dropped", r.Outputs)
	}
	if _, ok := r.Outputs["tags"]; ok {
		t.Errorf("outputs recorded = %v; want tags (which holds an unknown) dropped", r.Outputs)
	}
	if _, ok := r.Outputs["deep"]; ok {
		t.Error("the output nested 10,000 levels deep was recorded")
	}
	if len(env.Snapshot().PendingOperations) != 0 {
		t.Errorf("pending operations = %v; want none", env.Snapshot().PendingOperations)
	}
	warned := false
	for _, ev := range env.Events() {
		if d, ok := ev.(engine.DiagnosticEvent); ok && d.Severity == engine.SeverityWarning &&
			d.URN == r.URN && strings.Contains(d.Message, "arn, deep, tags") && strings.Contains(d.Message, "unknown") {
			warned = true
		}
	}
	if !warned {
		t.Error("no warning names the outputs dropped")
	}
}

// failingAppends is a memory store Backend whose journal appends fail
// once armed, as a full disk or a failing store would.
type failingAppends struct {
	*memstore.Backend
	armed atomic.Bool
}

var errInjected = errors.New("injected: no space left on device")

func (b *failingAppends) AppendJournal(ctx context.Context, stack state.StackID, token string, data []byte) error {
	if b.armed.Load() {
		return errInjected
	}
	return b.Backend.AppendJournal(ctx, stack, token, data)
}

// creatingThenFailing returns a Memory provider that arms fail just before
// its first Create returns, so the create's end cannot be recorded.
func creatingThenFailing(mem *providertest.Memory, fail func()) *providers.Func {
	p := mem.Provider()
	create := p.CreateF
	p.CreateF = func(ctx context.Context, req providers.CreateRequest) (providers.CreateResponse, error) {
		resp, err := create(ctx, req)
		fail()
		return resp, err
	}
	return p
}

// wantUnrecorded checks that err names each resource the cloud holds with
// its ID, as an *UnrecordedError.
func wantUnrecorded(t *testing.T, err error, mem *providertest.Memory, want resource.URN) {
	t.Helper()
	var ue *engine.UnrecordedError
	if !errors.As(err, &ue) {
		t.Fatalf("Up = %v; want an *engine.UnrecordedError", err)
	}
	if ue.URN != want || ue.ID == "" || ue.Type != memThing {
		t.Errorf("UnrecordedError = %+v; want %s with its ID", ue, want)
	}
	if _, ok := mem.Get(ue.ID); !ok {
		t.Errorf("the ID the error names, %q, is not the created resource's", ue.ID)
	}
	msg := err.Error()
	for _, part := range []string{string(ue.ID), "gw import " + memThing + " " + want.Name() + " " + string(ue.ID)} {
		if !strings.Contains(msg, part) {
			t.Errorf("the error does not say %q:\n%s", part, msg)
		}
	}
	t.Logf("Up: %v", err)
}

// The journal refuses the end of a create (an injected write error): the
// operation's error names the resource with its ID and how to import it.
func TestUnjournaledCreateIsNamedWithItsID(t *testing.T) {
	mem := providertest.NewMemory()
	b := &failingAppends{Backend: memstore.NewBackend()}
	env := enginetest.New(t)
	env.Store = backendstore.New(b)
	env.Provider("mem", "", creatingThenFailing(mem, func() { b.armed.Store(true) }))
	_, err := env.Up(func(ctx *engine.Context) error {
		ctx.Register(memThing, "a", engine.Props{"name": "a"})
		return nil
	})
	if !errors.Is(err, errInjected) {
		t.Errorf("Up = %v; want it to wrap the write error", err)
	}
	wantUnrecorded(t, err, mem, env.URN(memThing, "a"))
}

// The same on a full disk: a file store on a small tmpfs that fills up
// while the provider creates the resource. It needs to mount a tmpfs
// (root); it is skipped, saying so, where that is impossible.
func TestCreateOnAFullDiskIsNamedWithItsID(t *testing.T) {
	dir := t.TempDir()
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size=256k", "tmpfs", dir).CombinedOutput(); err != nil {
		t.Skipf("cannot mount a small tmpfs to fill (needs root): %v: %s", err, out)
	}
	t.Cleanup(func() {
		if out, err := exec.Command("umount", dir).CombinedOutput(); err != nil {
			t.Errorf("umount %s: %v: %s", dir, err, out)
		}
	})
	store, err := filestore.New(filepath.Join(dir, "state"))
	if err != nil {
		t.Fatal(err)
	}
	fill := func() {
		// Fill the file system: the create's end entry (its outputs
		// are larger than a page) finds no room.
		f, err := os.Create(filepath.Join(dir, "filler"))
		if err != nil {
			t.Error(err)
			return
		}
		defer f.Close()
		chunk := make([]byte, 4096)
		for {
			if _, err := f.Write(chunk); err != nil {
				return
			}
		}
	}
	mem := providertest.NewMemory()
	env := enginetest.New(t)
	env.Store = store
	env.Provider("mem", "", creatingThenFailing(mem, fill))
	_, err = env.Up(func(ctx *engine.Context) error {
		ctx.Register(memThing, "a", engine.Props{"name": "a", "payload": strings.Repeat("x", 16<<10)})
		return nil
	})
	if !errors.Is(err, syscall.ENOSPC) {
		t.Errorf("Up = %v; want it to wrap ENOSPC", err)
	}
	wantUnrecorded(t, err, mem, env.URN(memThing, "a"))
	// Room again: the next Load still knows the create began.
	if err := os.Remove(filepath.Join(dir, "filler")); err != nil {
		t.Fatal(err)
	}
	snap, err := store.Load(context.Background(), env.StackID())
	if err != nil {
		t.Fatal(err)
	}
	if len(snap.PendingOperations) != 1 || snap.PendingOperations[0].Kind != resource.OperationCreating {
		t.Errorf("pending operations after the full disk = %v; want the create", snap.PendingOperations)
	}
}
