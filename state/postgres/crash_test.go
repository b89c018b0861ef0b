package postgres

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/groundwork-iac/groundwork/engine"
	"github.com/groundwork-iac/groundwork/enginetest"
	"github.com/groundwork-iac/groundwork/providers"
	"github.com/groundwork-iac/groundwork/providers/providertest"
	"github.com/groundwork-iac/groundwork/resource"
	"github.com/groundwork-iac/groundwork/state"
)

// The crash test: a helper process (this test binary, running
// TestCrashHelper) runs an Up on the PostgreSQL store, and is killed with
// SIGKILL partway. Its provider appends the name of every resource it has
// created to a ledger file — the "real world" — before it returns. After
// the kill the stack must load and pass its integrity check, every
// resource in the ledger must be in the state or in its pending operations
// (nothing created is forgotten), and every resource the state records as
// created must be in the ledger. Once the dead helper's lease lapses, an
// Up takes the stack over and converges.

const (
	crashResources = 300
	crashLease     = time.Second
	envHelper      = "GW_PG_CRASH_HELPER" // the store URL, in the helper
	envStack       = "GW_PG_CRASH_STACK"
	envLedger      = "GW_PG_CRASH_LEDGER"
)

func TestKillMidUp(t *testing.T) {
	if testing.Short() {
		t.Skip("starts and kills helper processes")
	}
	schema := newSchema(t)
	url := storeURL(t, map[string]string{"schema": schema, "lease": crashLease.String()})
	// The kill lands after the first create, a third of the way, two
	// thirds, and just before the end.
	for trial, after := range []int{1, crashResources / 3, 2 * crashResources / 3, crashResources - 2} {
		stack := "crash" + strconv.Itoa(trial)
		ledger := filepath.Join(t.TempDir(), "ledger")
		killed, out := killHelperAfter(t, url, stack, ledger, after)
		created := readLedger(t, ledger)
		t.Logf("trial %d: killed=%v after %d of %d creates", trial, killed, len(created), crashResources)
		if !killed {
			t.Logf("the helper finished before the kill:\n%s", out)
		}
		checkAfterKill(t, schema, stack, created)
		converge(t, schema, stack)
	}
}

// killHelperAfter starts the helper and kills it once the ledger holds
// `after` creates; it reports whether the kill came before the helper
// finished.
func killHelperAfter(t *testing.T, url, stack, ledger string, after int) (killed bool, out string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestCrashHelper$", "-test.count=1")
	cmd.Env = append(os.Environ(), envHelper+"="+url, envStack+"="+stack, envLedger+"="+ledger)
	var buf bytes.Buffer
	cmd.Stdout, cmd.Stderr = &buf, &buf
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	deadline := time.After(2 * time.Minute)
	for {
		select {
		case err := <-exited:
			if err != nil {
				t.Fatalf("the helper failed before the kill: %v\n%s", err, buf.String())
			}
			return false, buf.String()
		case <-deadline:
			cmd.Process.Kill()
			t.Fatalf("the helper made %d creates in two minutes\n%s", len(readLedger(t, ledger)), buf.String())
		case <-time.After(time.Millisecond):
		}
		if len(readLedger(t, ledger)) >= after {
			_ = cmd.Process.Signal(syscall.SIGKILL)
			err := <-exited
			var ee *exec.ExitError
			if errors.As(err, &ee) {
				if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
					return true, buf.String()
				}
			}
			if err != nil {
				t.Fatalf("the helper failed: %v\n%s", err, buf.String())
			}
			return false, buf.String()
		}
	}
}

// readLedger returns the names of the resources the helper created; a
// line cut short by the kill is not a create.
func readLedger(t *testing.T, path string) []string {
	t.Helper()
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		names = append(names, sc.Text())
	}
	if len(data) > 0 && data[len(data)-1] != '\n' && len(names) > 0 {
		names = names[:len(names)-1]
	}
	return names
}

func checkAfterKill(t *testing.T, schema, stack string, created []string) {
	t.Helper()
	s := openStore(t, schema, crashLease)
	snap, err := s.Load(bg, state.StackID{Project: "test", Stack: stack})
	if err != nil {
		t.Fatalf("Load after the kill: %v", err)
	}
	if err := snap.VerifyIntegrity(); err != nil {
		t.Fatalf("the state after the kill fails its integrity check: %v", err)
	}
	recorded, pending := map[string]bool{}, map[string]bool{}
	for _, r := range snap.Resources {
		if r.Type == thingType {
			recorded[r.URN.Name()] = true
		}
	}
	for _, op := range snap.PendingOperations {
		pending[op.Resource.URN.Name()] = true
	}
	inLedger := map[string]bool{}
	for _, name := range created {
		inLedger[name] = true
		if !recorded[name] && !pending[name] {
			t.Errorf("%s was created, but the state neither records it nor has a pending operation on it", name)
		}
	}
	for name := range recorded {
		if !inLedger[name] {
			t.Errorf("the state records %s as created, but it never was", name)
		}
	}
	t.Logf("after the kill: %d recorded, %d pending", len(recorded), len(pending))
}

// converge takes the stack over once the dead helper's lease lapses,
// refreshes it (which resolves the pending operations the kill left) and
// runs the helper's Up again, and checks that the stack ends with the
// program's goal and nothing pending. The helper's cloud died with it, so
// the refresh finds its resources gone and the Up creates them anew.
func converge(t *testing.T, schema, stack string) {
	t.Helper()
	env := newEnv(t, openStore(t, schema, crashLease), providertest.NewMemory().Provider())
	env.Stack = stack
	deadline := time.Now().Add(10 * crashLease)
	for {
		_, err := env.Engine().Refresh(bg)
		var le *state.LockedError
		if err == nil {
			break
		}
		if !errors.As(err, &le) || time.Now().After(deadline) {
			t.Fatalf("Refresh after the kill: %v", err)
		}
		time.Sleep(crashLease / 10)
	}
	if _, err := env.Up(things("r", crashResources)); err != nil {
		t.Fatalf("Up after the refresh: %v", err)
	}
	// What stays pending is the creates the kill cut short before their
	// provider returned an ID, which no refresh can look up: they stay
	// until discarded on purpose (here, where the cloud is thrown away).
	for _, op := range env.Snapshot().PendingOperations {
		if op.Kind != resource.OperationCreating || op.Resource.ID != "" {
			t.Errorf("after the refresh and the Up, a pending %s of %s (ID %q) is left", op.Kind, op.Resource.URN, op.Resource.ID)
		}
	}
	if _, err := env.Engine().Refresh(bg, engine.DiscardPendingCreates()); err != nil {
		t.Fatalf("Refresh discarding the pending creates: %v", err)
	}
	snap := env.Snapshot()
	if n := len(thingNames(snap)); n != crashResources || len(snap.PendingOperations) != 0 {
		t.Errorf("after converging: %d things, %d pending operations; want %d and none", n, len(snap.PendingOperations), crashResources)
	}
}

// TestCrashHelper is the helper process of TestKillMidUp.
func TestCrashHelper(t *testing.T) {
	url := os.Getenv(envHelper)
	if url == "" {
		t.Skip("the helper process of TestKillMidUp")
	}
	ledger, err := os.OpenFile(os.Getenv(envLedger), os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer ledger.Close()
	store, err := Open(context.Background(), url, fastSecrets())
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	p := providertest.NewMemory().Provider()
	create := p.CreateF
	p.CreateF = func(ctx context.Context, req providers.CreateRequest) (providers.CreateResponse, error) {
		time.Sleep(time.Duration(rand.IntN(2000)) * time.Microsecond)
		resp, err := create(ctx, req)
		if err == nil && req.URN.Type() == thingType {
			if _, err := ledger.WriteString(req.URN.Name() + "\n"); err != nil {
				return resp, err
			}
		}
		return resp, err
	}
	env := enginetest.New(t)
	env.Store = store
	env.Stack = os.Getenv(envStack)
	env.Provider("mem", "", p)
	if _, err := env.Up(things("r", crashResources), engine.Parallelism(16)); err != nil {
		t.Fatal(err)
	}
}
