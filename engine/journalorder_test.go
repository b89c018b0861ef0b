package engine_test

import (
	"context"
	"slices"
	"sync"
	"testing"

	"github.com/groundwork-iac/groundwork/engine"
	"github.com/groundwork-iac/groundwork/enginetest"
	"github.com/groundwork-iac/groundwork/providers"
	"github.com/groundwork-iac/groundwork/state"
)

// eventLog is a log of what happened, in order, from many goroutines.
type eventLog struct {
	mu     sync.Mutex
	events []string
}

func (l *eventLog) add(ev string) {
	l.mu.Lock()
	l.events = append(l.events, ev)
	l.mu.Unlock()
}

func (l *eventLog) index(t *testing.T, ev string) int {
	t.Helper()
	l.mu.Lock()
	defer l.mu.Unlock()
	i := slices.Index(l.events, ev)
	if i < 0 {
		t.Fatalf("no %q in %q", ev, l.events)
	}
	return i
}

// loggingStore logs every journal entry once its Append has returned:
// once it is durable.
type loggingStore struct {
	state.Store
	log *eventLog
}

func (s loggingStore) OpenJournal(ctx context.Context, stack state.StackID, base *state.Snapshot) (state.Journal, error) {
	j, err := s.Store.OpenJournal(ctx, stack, base)
	if err != nil {
		return nil, err
	}
	return &loggingJournal{Journal: j, log: s.log, names: map[uint64]string{}}, nil
}

type loggingJournal struct {
	state.Journal
	log   *eventLog
	mu    sync.Mutex
	names map[uint64]string // the resource of each begin, by Seq
}

func (j *loggingJournal) Append(ctx context.Context, e state.Entry) (uint64, error) {
	seq, err := j.Journal.Append(ctx, e)
	if err != nil {
		return seq, err
	}
	j.mu.Lock()
	name := ""
	switch {
	case e.Kind == state.EntryBegin && e.New != nil:
		name = e.New.URN.Name()
		j.names[seq] = name
	case e.Kind == state.EntrySuccess || e.Kind == state.EntryFailure:
		name = j.names[e.Begin]
	}
	j.mu.Unlock()
	if name != "" {
		j.log.add(e.Kind.String() + " " + name + " durable")
	}
	return seq, nil
}

// The ordering rules of the journal, as the provider and the program see
// them: a step's begin is durable before its provider is called, and its
// end is durable before the registration is answered, so nothing that
// depends on the step (here b, whose input is a's output) starts before
// a's outcome is recorded.
func TestJournalOrdering(t *testing.T) {
	log := &eventLog{}
	c := newCloud()
	p := c.provider()
	create, check := p.CreateF, p.CheckF
	p.CreateF = func(ctx context.Context, req providers.CreateRequest) (providers.CreateResponse, error) {
		log.add("create " + req.URN.Name())
		return create(ctx, req)
	}
	p.CheckF = func(ctx context.Context, req providers.CheckRequest) (providers.CheckResponse, error) {
		log.add("check " + req.URN.Name())
		return check(ctx, req)
	}
	env := enginetest.New(t)
	env.Provider("test", "", p)
	env.Store = loggingStore{Store: env.Store, log: log}
	_, err := env.Up(func(ctx *engine.Context) error {
		a := ctx.Register(thing, "a", engine.Props{})
		ctx.Register(thing, "b", engine.Props{"from": a.Output("id")})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	order := []string{"begin a durable", "create a", "success a durable", "check b", "begin b durable", "create b", "success b durable"}
	for i := 1; i < len(order); i++ {
		if log.index(t, order[i-1]) > log.index(t, order[i]) {
			t.Errorf("%q came after %q; want it before (log %q)", order[i-1], order[i], log.events)
		}
	}
}
