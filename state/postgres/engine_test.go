package postgres

import (
	"context"
	"errors"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/groundwork-iac/groundwork/engine"
	"github.com/groundwork-iac/groundwork/enginetest"
	"github.com/groundwork-iac/groundwork/providers"
	"github.com/groundwork-iac/groundwork/providers/providertest"
	"github.com/groundwork-iac/groundwork/resource"
	"github.com/groundwork-iac/groundwork/state"
)

// The engine over the PostgreSQL store: a large Up, two engines racing for
// one stack, and an engine whose lease is taken over mid-operation.

const thingType = "mem:index:Thing"

// things declares n resources, each tenth depending on the one before it.
func things(prefix string, n int) engine.Program {
	return func(ctx *engine.Context) error {
		var prev *engine.Resource
		for i := range n {
			var opts []engine.ResourceOption
			if i%10 == 9 && prev != nil {
				opts = append(opts, engine.DependsOn(prev))
			}
			prev = ctx.Register(thingType, prefix+strconv.Itoa(i), engine.Props{"name": prefix + strconv.Itoa(i), "size": i}, opts...)
		}
		return nil
	}
}

// thingNames returns the names of the recorded things, sorted.
func thingNames(snap *state.Snapshot) []string {
	var out []string
	for _, r := range snap.Resources {
		if r.Type == thingType {
			out = append(out, r.URN.Name())
		}
	}
	slices.Sort(out)
	return out
}

func newEnv(t *testing.T, store state.Store, p providers.Provider) *enginetest.Env {
	env := enginetest.New(t)
	env.Store = store
	env.Provider("mem", "", p)
	return env
}

func TestUpThousandResources(t *testing.T) {
	const n = 1000
	schema := newSchema(t)
	mem := providertest.NewMemory()
	env := newEnv(t, openStore(t, schema, 0), mem.Provider())
	start := time.Now()
	res, err := env.Up(things("r", n))
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("Up of %d resources on PostgreSQL: %v", n, time.Since(start).Round(time.Millisecond))
	if got := res.Counts[engine.StepCreate]; got != n+1 {
		t.Errorf("%d creates; want %d things and the stack", got, n)
	}
	// Another client reads what was recorded.
	other := openStore(t, schema, 0)
	snap, err := other.Load(bg, env.StackID())
	if err != nil {
		t.Fatal(err)
	}
	if got := len(thingNames(snap)); got != n || len(snap.PendingOperations) != 0 || mem.Count() != n {
		t.Errorf("recorded %d things and %d pending operations, the cloud holds %d; want %d, none, %d",
			got, len(snap.PendingOperations), mem.Count(), n, n)
	}
	r := newRaw(t, schema)
	if rows := r.int(`SELECT count(*) FROM {s}.journal WHERE stack = $1`, env.Stack); rows != 0 {
		t.Errorf("%d journal rows left after the Up; want none", rows)
	}
	if locks := r.int(`SELECT count(*) FROM {s}.locks`); locks != 0 {
		t.Errorf("%d locks left after the Up; want none", locks)
	}

	start = time.Now()
	res, err = env.Up(things("r", n))
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("unchanged rerun: %v", time.Since(start).Round(time.Millisecond))
	if res.HasChanges() {
		t.Errorf("an unchanged rerun changed something: %v", res.Counts)
	}
	if _, err := env.Destroy(); err != nil {
		t.Fatal(err)
	}
	if mem.Count() != 0 || len(thingNames(env.Snapshot())) != 0 {
		t.Errorf("after Destroy the cloud holds %d, the state %d", mem.Count(), len(thingNames(env.Snapshot())))
	}
}

// countingProvider wraps a Memory and counts the creates, slowly enough
// that two operations would overlap.
func countingProvider(mem *providertest.Memory, creates *int64, mu *sync.Mutex) *providers.Func {
	p := mem.Provider()
	create := p.CreateF
	p.CreateF = func(ctx context.Context, req providers.CreateRequest) (providers.CreateResponse, error) {
		mu.Lock()
		*creates++
		mu.Unlock()
		time.Sleep(time.Millisecond)
		return create(ctx, req)
	}
	return p
}

// Two engines, each with its own connection pool as if on two hosts, start
// an Up of the same stack at the same moment: one wins, the other fails
// at once with the lock error naming the winner, and the stack holds the
// winner's work alone. Each engine's creates wait until the other's Up
// has returned (or a few seconds have passed), so that the winner still
// holds the lock when the other tries, however the goroutines are
// scheduled: on a busy machine the winner could otherwise finish before
// the other starts, and both would rightly succeed one after the other.
func TestTwoEnginesRaceForOneStack(t *testing.T) {
	schema := newSchema(t)
	for round := range 5 {
		stack := "race" + strconv.Itoa(round)
		var (
			mu      sync.Mutex
			creates [2]int64
			errs    [2]error
			wg      sync.WaitGroup
		)
		mem := providertest.NewMemory()
		envs := [2]*enginetest.Env{}
		returned := [2]chan struct{}{make(chan struct{}), make(chan struct{})}
		for i := range envs {
			p := countingProvider(mem, &creates[i], &mu)
			create := p.CreateF
			p.CreateF = func(ctx context.Context, req providers.CreateRequest) (providers.CreateResponse, error) {
				select {
				case <-returned[1-i]:
				case <-time.After(5 * time.Second):
				}
				return create(ctx, req)
			}
			envs[i] = newEnv(t, openStore(t, schema, 0), p)
			envs[i].Stack = stack
		}
		startLine := make(chan struct{})
		for i, env := range envs {
			wg.Add(1)
			go func() {
				defer wg.Done()
				defer close(returned[i])
				<-startLine
				_, errs[i] = env.Up(things(string(rune('a'+i)), 50))
			}()
		}
		close(startLine)
		wg.Wait()

		winner := -1
		for i, err := range errs {
			var le *state.LockedError
			switch {
			case err == nil:
				if winner >= 0 {
					t.Fatalf("round %d: both engines completed an Up of the same stack", round)
				}
				winner = i
			case errors.As(err, &le):
				if le.Holder.Operation != string(engine.OpUp) || le.Holder.Expires.IsZero() {
					t.Errorf("round %d: the lock error does not name the winner's lease: %+v", round, le.Holder)
				}
				if creates[i] != 0 {
					t.Errorf("round %d: the engine that lost the lock created %d resources", round, creates[i])
				}
			default:
				t.Fatalf("round %d: engine %d: %v; want success or *state.LockedError", round, i, err)
			}
		}
		if winner < 0 {
			t.Fatalf("round %d: neither engine completed: %v", round, errs)
		}
		got := thingNames(mustLoadWith(t, openStore(t, schema, 0), state.StackID{Project: "test", Stack: stack}))
		want := thingNames(envs[winner].Snapshot())
		prefix := string(rune('a' + winner))
		if len(got) != 50 || !slices.Equal(got, want) {
			t.Errorf("round %d: the stack holds %d things; want the winner's 50", round, len(got))
		}
		for _, name := range got {
			if !strings.HasPrefix(name, prefix) {
				t.Errorf("round %d: the stack holds %s, which the winner (%s) did not create", round, name, prefix)
			}
		}
	}
}

func mustLoadWith(t *testing.T, s state.Store, stack state.StackID) *state.Snapshot {
	t.Helper()
	snap, err := s.Load(bg, stack)
	if err != nil {
		t.Fatal(err)
	}
	return snap
}

// An engine stalls mid-operation past its lease; a second engine takes the
// stack over and deploys. When the first wakes up, its journal refuses its
// next step, so its Up fails with state.ErrLockLost and nothing it does
// lands between the second engine's steps.
func TestStalledEngineIsFencedAfterTakeover(t *testing.T) {
	schema := newSchema(t)
	mem := providertest.NewMemory()
	inCreate, wake := make(chan struct{}), make(chan struct{})
	stalling := mem.Provider()
	create := stalling.CreateF
	stalling.CreateF = func(ctx context.Context, req providers.CreateRequest) (providers.CreateResponse, error) {
		if req.URN.Name() == "stalls" {
			close(inCreate)
			<-wake
		}
		return create(ctx, req)
	}
	first := newEnv(t, openStore(t, schema, 0), stalling)
	done := make(chan error, 1)
	go func() {
		_, err := first.Up(func(ctx *engine.Context) error {
			for i := range 5 {
				ctx.Register(thingType, "first"+strconv.Itoa(i), engine.Props{"name": i})
			}
			ctx.Register(thingType, "stalls", engine.Props{"name": "stalls"})
			return nil
		})
		done <- err
	}()
	<-inCreate
	// The first engine's lease lapses while it stalls.
	newRaw(t, schema).expire(first.StackID())

	second := newEnv(t, openStore(t, schema, 0), mem.Provider())
	if _, err := second.Up(things("second", 10)); err != nil {
		t.Fatalf("the second engine, after the first one's lease lapsed: %v", err)
	}
	close(wake)
	err := <-done
	if !errors.Is(err, state.ErrLockLost) {
		t.Fatalf("the stalled engine's Up = %v; want an error wrapping state.ErrLockLost", err)
	}
	t.Logf("the stalled engine: %v", err)
	snap := mustLoadWith(t, openStore(t, schema, 0), first.StackID())
	got := thingNames(snap)
	want := thingNames(second.Snapshot())
	if !slices.Equal(got, want) || len(got) != 10 {
		t.Errorf("the stack holds %v; want the second engine's 10 things", got)
	}
	// The stalled create did happen in the cloud, after its begin was
	// recorded: the stack says so with a pending operation, for the next
	// refresh to resolve, rather than forget it or record it as done.
	if len(snap.PendingOperations) != 1 || snap.PendingOperations[0].Resource.URN.Name() != "stalls" ||
		snap.PendingOperations[0].Kind != resource.OperationCreating {
		t.Errorf("pending operations = %v; want the stalled create alone", snap.PendingOperations)
	}
	for _, name := range got {
		if !strings.HasPrefix(name, "second") {
			t.Errorf("the stack holds %s, which the second engine did not record", name)
		}
	}
}

// Two projects that share a stack name in one database never see each
// other's stack.
func TestTwoProjectsShareAStackName(t *testing.T) {
	enginetest.CheckTwoProjects(t, openStore(t, newSchema(t), 0))
}
