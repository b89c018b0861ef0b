package deploy_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/groundwork-iac/groundwork/deploy"
	"github.com/groundwork-iac/groundwork/monitor"
	"github.com/groundwork-iac/groundwork/providers"
	"github.com/groundwork-iac/groundwork/resource"
	"github.com/groundwork-iac/groundwork/state"
	"github.com/groundwork-iac/groundwork/stepgen"
)

// callingBack is a journal that calls back (AppendAsync), from a
// goroutine of its own, and notes each entry with whether its context
// was done when it was handed over. Its other methods are not called.
type callingBack struct {
	state.Journal
	wg      sync.WaitGroup
	mu      sync.Mutex
	seq     uint64
	entries []handedOver
}

type handedOver struct {
	e    state.Entry
	seq  uint64
	done bool // the context was done
}

func (j *callingBack) Append(context.Context, state.Entry) (uint64, error) {
	return 0, errors.New("Append called on a journal that calls back")
}

func (j *callingBack) AppendAsync(ctx context.Context, e state.Entry, done func(uint64, error)) {
	j.mu.Lock()
	j.seq++
	seq := j.seq
	j.entries = append(j.entries, handedOver{e: e, seq: seq, done: ctx.Err() != nil})
	j.mu.Unlock()
	j.wg.Add(1)
	go func() {
		defer j.wg.Done()
		done(seq, nil)
	}()
}

// TestHostHandsItsEntriesToAJournalThatCallsBack runs a create through a
// Host whose journal calls back, with the operation cancelled while the
// provider creates: the step's begin is handed over under the operation's
// context, before the provider is called; its end, the success of that
// begin with the new resource, under a context the cancellation does not
// reach, since the step did run.
func TestHostHandsItsEntriesToAJournalThatCallsBack(t *testing.T) {
	opCtx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	j := &callingBack{}
	reg := providers.NewRegistry()
	if err := reg.RegisterFactory("demo", "1.0.0", func(context.Context) (providers.Provider, error) {
		return &providers.Func{CreateF: func(_ context.Context, req providers.CreateRequest) (providers.CreateResponse, error) {
			j.mu.Lock()
			begun := len(j.entries) > 0 && j.entries[len(j.entries)-1].e.Kind == state.EntryBegin
			j.mu.Unlock()
			if !begun {
				t.Errorf("the create of %s was called before its begin was handed over", req.URN.Name())
			}
			cancel(errors.New("interrupted"))
			return providers.CreateResponse{ID: "id-a", Outputs: req.Inputs}, nil
		}}, nil
	}); err != nil {
		t.Fatal(err)
	}
	gen, err := stepgen.New(stepgen.Config{Stack: "dev", Project: "demo"})
	if err != nil {
		t.Fatal(err)
	}
	h := deploy.New(deploy.Config{Generator: gen, Source: reg, Registry: reg, Secrets: &resource.SecretFilter{},
		Observer: &observer{ended: map[string][]error{}}, Journal: j, Start: time.Now(), Parallelism: 4})
	h.Start(opCtx)
	mon := monitor.New(monitor.Config{Deployer: h, Providers: reg})
	a, err := mon.RegisterResource(context.Background(), resource.Goal{Type: "demo:index:Thing", Name: "a", Custom: true})
	if err != nil || a.ID != "id-a" {
		t.Fatalf("a: got ID %q and error %v, want ID id-a and no error", a.ID, err)
	}
	h.CloseRegistrations()
	_ = h.Settle(context.Background())
	h.Stop()
	_ = h.Wait()
	j.wg.Wait()

	j.mu.Lock()
	defer j.mu.Unlock()
	var mine []handedOver
	for _, h := range j.entries {
		if h.e.New != nil && h.e.New.URN.Name() == "a" {
			mine = append(mine, h)
		}
	}
	if len(mine) != 2 {
		t.Fatalf("a's entries: %+v, want its begin and its end", mine)
	}
	begin, end := mine[0], mine[1]
	if begin.e.Kind != state.EntryBegin || begin.done {
		t.Errorf("a's first entry: kind %v, context done %v; want a begin, under a live context", begin.e.Kind, begin.done)
	}
	if end.e.Kind != state.EntrySuccess || end.e.Begin != begin.seq || end.e.New == nil || end.e.New.ID != "id-a" {
		t.Errorf("a's end: %+v; want the success of its begin (%d) recording ID id-a", end.e, begin.seq)
	}
	if end.done {
		t.Error("a's end was handed over under the cancelled context, want one the cancellation does not reach")
	}
}
