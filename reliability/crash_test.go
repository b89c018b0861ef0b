package reliability_test

import (
	"bytes"
	"context"
	"fmt"
	"maps"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/groundwork-iac/groundwork/engine"
	"github.com/groundwork-iac/groundwork/providers"
	"github.com/groundwork-iac/groundwork/reliability/internal/world"
	"github.com/groundwork-iac/groundwork/resource"
	"github.com/groundwork-iac/groundwork/state"
	"github.com/groundwork-iac/groundwork/state/filestore"
)

// The crash test. A helper process (internal/crashprog) runs Up with the
// file store against the ledger-backed world provider and is killed with
// SIGKILL at a random moment: after a random number of physical changes,
// or at a random time (which may fall while it loads, locks or commits).
// After every kill:
//
//  1. the stack loads and passes its integrity check;
//  2. every resource the ledger says exists is in the snapshot (by ID) or
//     in its pending operations (a pending create has no ID yet: it is
//     matched by the physical name its inputs determine, see
//     world.PhysicalID);
//  3. every resource the snapshot records as existing does exist, or has a
//     pending operation (a delete that ran but was not recorded);
//  4. after breaking the dead holder's lock, a Refresh (which resolves the
//     pending operations) and an Up converge to the program's goal: the
//     state holds exactly the goal, the world holds exactly one physical
//     resource per goal resource, and a further Up changes nothing.
//
// A create that ran but was killed before its success was journaled is
// resolved by the provider, not by the refresh: the world names resources
// after their inputs, so the retried create finds the resource and adopts
// it (the ledger records an "adopt"). Every adoption must be of a resource
// that was a pending create after the kill — an adoption of anything else
// means the engine created a resource twice.
//
// GROUNDWORK_CRASH_TRIALS sets the number of trials (default 30) and
// GROUNDWORK_CRASH_SEED the first trial's seed (default: from the clock,
// logged so a failure can be replayed).
func TestCrashConsistency(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and kills a helper process")
	}
	trials := envInt(t, "GROUNDWORK_CRASH_TRIALS", 30)
	seed0 := uint64(envInt(t, "GROUNDWORK_CRASH_SEED", int(time.Now().UnixNano()%1_000_000)))
	t.Logf("GROUNDWORK_CRASH_SEED=%d GROUNDWORK_CRASH_TRIALS=%d", seed0, trials)
	bin := buildHelper(t)
	var st crashStats
	start := time.Now()
	for i := range trials {
		seed := seed0 + uint64(i)
		if v := runCrashTrial(t, bin, seed, &st); len(v) > 0 {
			st.violations += len(v)
			t.Errorf("trial seed %d (replay with GROUNDWORK_CRASH_SEED=%d GROUNDWORK_CRASH_TRIALS=1):\n  %s", seed, seed, strings.Join(v, "\n  "))
		}
	}
	t.Logf("%d trials in %v: %d killed (%d at a random time, %d after a random physical change), %d ran to completion; "+
		"%d resources deployed, %d physical changes before kills, %d pending operations after kills, %d creates adopted on retry; %d violations",
		trials, time.Since(start).Round(time.Millisecond), st.killed, st.timeKills, st.killed-st.timeKills, st.completed,
		st.resources, st.changes, st.pending, st.adopted, st.violations)
	if path := os.Getenv("GROUNDWORK_CRASH_REPORT"); path != "" {
		line := fmt.Sprintf("trials=%d killed=%d completed=%d resources=%d changes=%d pending=%d adopted=%d violations=%d seed=%d duration=%v\n",
			trials, st.killed, st.completed, st.resources, st.changes, st.pending, st.adopted, st.violations, seed0, time.Since(start).Round(time.Second))
		if err := os.WriteFile(path, []byte(line), 0o644); err != nil {
			t.Error(err)
		}
	}
}

type crashStats struct {
	killed, timeKills, completed int
	resources, changes, pending  int
	adopted, violations          int
}

const (
	crashProject = "crashtest"
	crashStack   = "dev"
)

// crashID is the stack the trials work on, in the store.
var crashID = state.StackID{Project: crashProject, Stack: crashStack}

const ()

// trialStore is a trial's file store folder and whether its stack is
// keyed (world.StoreOptions).
type trialStore struct {
	dir   string
	keyed bool
}

// open opens the trial's file store with opts.
func (ts trialStore) open(opts ...state.Option) (*filestore.Store, error) {
	return filestore.New(ts.dir, append(opts, world.StoreOptions(ts.keyed)...)...)
}

// buildHelper builds the crash helper program into a temporary folder.
// GROUNDWORK_CRASH_RACE=1 builds it with the race detector.
func buildHelper(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "crashprog")
	args := []string{"build", "-o", bin}
	if os.Getenv("GROUNDWORK_CRASH_RACE") == "1" {
		args = append(args, "-race")
	}
	args = append(args, "github.com/groundwork-iac/groundwork/reliability/internal/crashprog")
	out, err := exec.Command("go", args...).CombinedOutput()
	if err != nil {
		t.Fatalf("building the crash helper: %v\n%s", err, out)
	}
	return bin
}

// runCrashTrial runs one trial and returns the violations it found.
func runCrashTrial(t *testing.T, bin string, seed uint64, st *crashStats) []string {
	r := rand.New(rand.NewPCG(seed, 0xc0ffee))
	n := 50 + r.IntN(151)
	v1, v2 := world.Generate(seed, n)
	dir := t.TempDir()
	// Every other trial keys its stack, so that kills land amid the
	// journal's tagged records and the snapshot's HMAC too.
	ts, ledgerPath := trialStore{dir: filepath.Join(dir, "store"), keyed: seed%2 == 1}, filepath.Join(dir, "ledger")
	target, version := v2, 2
	if r.IntN(4) == 0 {
		target, version = v1, 1 // crash while deploying from nothing
	} else if err := deploy(ts, ledgerPath, v1, false); err != nil {
		return []string{fmt.Sprintf("deploying v1 before the crash: %v", err)}
	}
	st.resources += target.Customs()

	before := len(mustRecords(t, ledgerPath))
	cmd := exec.Command(bin, "-store", ts.dir, "-ledger", ledgerPath, "-stack", crashStack,
		"-seed", fmt.Sprint(seed), "-n", fmt.Sprint(n), "-version", fmt.Sprint(version), "-sleep", "2ms",
		fmt.Sprintf("-keyed=%v", ts.keyed))
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	killed, timed := killAtRandom(r, cmd, exited, ledgerPath, before, estimateChanges(v1, target, version))
	switch err := <-exited; {
	case killed && err != nil:
		st.killed++
		if timed {
			st.timeKills++
		}
	case err != nil:
		return []string{fmt.Sprintf("the helper failed without being killed: %v\n%s", err, out.String())}
	default: // it finished before the signal landed
		st.completed++
	}
	recs := mustRecords(t, ledgerPath)
	st.changes += len(recs) - before

	v, pendingCreates := checkAfterKill(ts, recs, st)
	if len(v) > 0 {
		return v
	}
	return converge(ts, ledgerPath, target, len(recs), pendingCreates, st)
}

// estimateChanges guesses how many physical changes deploying target
// makes, to spread kills over the whole run.
func estimateChanges(v1, target world.Spec, version int) int {
	if version == 1 {
		return target.Customs()
	}
	old := map[string]world.Res{}
	for _, r := range v1.Res {
		old[r.Name] = r
	}
	n := 0
	for _, r := range target.Res {
		o, ok := old[r.Name]
		switch {
		case r.Component:
		case !ok:
			n++
		case o.Gen != r.Gen:
			n += 2
		case o.Val != r.Val:
			n++
		}
		delete(old, r.Name)
	}
	return n + len(old) + 1
}

// killAtRandom kills the helper with SIGKILL after a random number of new
// ledger lines, or (timed) after a random time of up to 60ms. It reports
// whether it sent the signal: not if the helper exited first.
func killAtRandom(r *rand.Rand, cmd *exec.Cmd, exited chan error, ledgerPath string, before, estimate int) (killed, timed bool) {
	kill := func() bool { return cmd.Process.Signal(syscall.SIGKILL) == nil }
	if r.IntN(4) == 0 {
		timer := time.NewTimer(time.Duration(r.IntN(60_000)) * time.Microsecond)
		defer timer.Stop()
		select {
		case err := <-exited:
			exited <- err
			return false, true
		case <-timer.C:
			return kill(), true
		}
	}
	want := before + 1 + r.IntN(estimate)
	for {
		select {
		case err := <-exited:
			exited <- err
			return false, false
		default:
		}
		if data, err := os.ReadFile(ledgerPath); err == nil && bytes.Count(data, []byte("\n")) >= want {
			return kill(), false
		}
		time.Sleep(100 * time.Microsecond)
	}
}

func mustRecords(t *testing.T, path string) []world.Record {
	recs, err := world.ReadLedger(path)
	if err != nil {
		t.Fatal(err)
	}
	return recs
}

// checkAfterKill checks what a kill left: the state loads, passes
// integrity, forgets no physical resource and claims none that does not
// exist. It returns the physical IDs of the pending creates.
func checkAfterKill(ts trialStore, recs []world.Record, st *crashStats) (violations []string, pendingCreates map[resource.ID]bool) {
	store, err := ts.open()
	if err != nil {
		return []string{err.Error()}, nil
	}
	snap, err := store.Load(bg, crashID)
	if err != nil {
		return []string{fmt.Sprintf("the state does not load after the kill: %v", err)}, nil
	}
	if err := snap.VerifyIntegrity(); err != nil {
		return []string{fmt.Sprintf("the state fails integrity after the kill: %v", err)}, nil
	}
	st.pending += len(snap.PendingOperations)
	known := map[resource.ID]bool{}
	pendingIDs := map[resource.ID]bool{}
	pendingCreates = map[resource.ID]bool{}
	for _, s := range snap.Resources {
		if s.ID != "" {
			known[s.ID] = true
		}
	}
	for _, op := range snap.PendingOperations {
		if op.Resource.ID != "" {
			known[op.Resource.ID] = true
			pendingIDs[op.Resource.ID] = true
		}
		if op.Kind == resource.OperationCreating && op.Resource.Type == world.ThingType {
			id := world.PhysicalID(op.Resource.URN, world.Strings(op.Resource.Inputs))
			known[id] = true
			pendingCreates[id] = true
		}
	}
	live := world.Live(recs)
	for _, id := range slices.Sorted(maps.Keys(live)) {
		if !known[id] {
			violations = append(violations, fmt.Sprintf("forgotten: %s (%s) exists but is neither in the state nor in its pending operations", id, live[id].URN))
		}
	}
	for _, s := range snap.Resources {
		if s.Type != world.ThingType || s.PendingReplacement {
			continue
		}
		if _, ok := live[s.ID]; !ok && !pendingIDs[s.ID] {
			violations = append(violations, fmt.Sprintf("phantom: the state records %s (id %s, delete=%v) but it does not exist and no pending operation explains it", s.URN, s.ID, s.Delete))
		}
	}
	return violations, pendingCreates
}

// deploy runs an Up of spec in this process, with a provider that does
// not sleep.
func deploy(ts trialStore, ledgerPath string, spec world.Spec, refreshFirst bool) error {
	eng, l, err := crashEngine(ts, ledgerPath)
	if err != nil {
		return err
	}
	defer l.Close()
	if refreshFirst {
		if _, err := eng.Refresh(bg); err != nil {
			return fmt.Errorf("refresh: %w", err)
		}
	}
	_, err = eng.Up(bg, spec.Program())
	return err
}

func crashEngine(ts trialStore, ledgerPath string) (*engine.Engine, *world.Ledger, error) {
	store, err := ts.open(state.WithSync(state.SyncNever))
	if err != nil {
		return nil, nil, err
	}
	l, err := world.OpenLedger(ledgerPath, false)
	if err != nil {
		return nil, nil, err
	}
	prov := world.NewProvider(l, 0, 1).Func()
	eng, err := engine.New(engine.Config{
		Project: crashProject, Stack: crashStack, Store: store,
		Providers: func() *providers.Registry {
			r := providers.NewRegistry()
			_ = r.RegisterFactory(world.Package, "1.0.0", func(context.Context) (providers.Provider, error) { return prov, nil })
			return r
		},
	})
	if err != nil {
		l.Close()
		return nil, nil, err
	}
	return eng, l, nil
}

// discardPendingCreates runs a refresh that discards the pending creates
// it cannot resolve.
func discardPendingCreates(ts trialStore, ledgerPath string) error {
	eng, l, err := crashEngine(ts, ledgerPath)
	if err != nil {
		return err
	}
	defer l.Close()
	_, err = eng.Refresh(bg, engine.DiscardPendingCreates())
	return err
}

var convergeMu sync.Mutex

// converge breaks the dead helper's lock, refreshes, deploys target again
// and checks that state and world both hold exactly the goal.
func converge(ts trialStore, ledgerPath string, target world.Spec, recsAtKill int, pendingCreates map[resource.ID]bool, st *crashStats) []string {
	convergeMu.Lock()
	defer convergeMu.Unlock()
	store, err := ts.open()
	if err != nil {
		return []string{err.Error()}
	}
	var before map[string]string
	if os.Getenv("GROUNDWORK_CRASH_DEBUG") != "" {
		before = histories(ts, ledgerPath)
	}
	if err := store.BreakLock(bg, crashID); err != nil {
		return []string{fmt.Sprintf("breaking the dead helper's lock: %v", err)}
	}
	if err := deploy(ts, ledgerPath, target, true); err != nil {
		if before != nil {
			for _, m := range regexp.MustCompile(`Thing::([rn]\d+)`).FindAllStringSubmatch(err.Error(), -1) {
				fmt.Printf("%s before the convergence:\n%s", m[1], before[m[1]])
			}
		}
		if _, lerr := store.Load(bg, crashID); lerr != nil {
			return []string{fmt.Sprintf("refresh and up after the kill: %v; and then the stack does not load: %v", err, lerr)}
		}
		return []string{fmt.Sprintf("refresh and up after the kill: %v", err)}
	}
	var v []string
	// What a refresh cannot resolve is the creates the kill cut short
	// before their provider returned an ID: they stay pending until
	// discarded on purpose. Here the world adopts what they made when the
	// up creates them again, so they are discarded.
	if snap, err := store.Load(bg, crashID); err == nil {
		for _, op := range snap.PendingOperations {
			if op.Kind != resource.OperationCreating || op.Resource.ID != "" {
				v = append(v, fmt.Sprintf("a pending %s of %s (ID %q) remains after refresh and up", op.Kind, op.Resource.URN, op.Resource.ID))
			}
		}
	}
	if err := discardPendingCreates(ts, ledgerPath); err != nil {
		return append(v, fmt.Sprintf("refresh discarding the pending creates: %v", err))
	}
	recs, err := world.ReadLedger(ledgerPath)
	if err != nil {
		return []string{err.Error()}
	}
	for _, r := range recs[recsAtKill:] {
		if r.Op == world.OpAdopt {
			st.adopted++
			if !pendingCreates[r.ID] {
				v = append(v, fmt.Sprintf("duplicate create: %s (%s) was created again though the state knew it", r.ID, r.URN))
			}
		}
	}
	snap, err := store.Load(bg, crashID)
	if err != nil {
		return append(v, fmt.Sprintf("loading after convergence: %v", err))
	}
	want := target.Expected(crashStack, crashProject)
	v = append(v, compareGoal(snap, world.Live(recs), want)...)
	if len(v) > 0 {
		return v
	}
	// Converged means converged: one more Up changes nothing.
	eng, l, err := crashEngine(ts, ledgerPath)
	if err != nil {
		return []string{err.Error()}
	}
	defer l.Close()
	res, err := eng.Up(bg, target.Program())
	if err != nil {
		return []string{fmt.Sprintf("a second up after convergence failed: %v", err)}
	}
	if res.HasChanges() {
		var ops []string
		for _, s := range res.Steps {
			ops = append(ops, fmt.Sprintf("%s %s", s.Op, s.URN.Name()))
		}
		return []string{fmt.Sprintf("a second up after convergence still changed something: %v", ops)}
	}
	return nil
}

// compareGoal checks that the state and the world hold exactly want.
func compareGoal(snap *state.Snapshot, live map[resource.ID]world.Physical, want map[string]world.Want) []string {
	var v []string
	if len(snap.PendingOperations) > 0 {
		v = append(v, fmt.Sprintf("%d pending operations remain after refresh and up", len(snap.PendingOperations)))
	}
	seen := map[string]bool{}
	for _, s := range snap.Resources {
		if s.Type != world.ThingType {
			continue
		}
		name := s.URN.Name()
		w, ok := want[name]
		switch {
		case !ok:
			v = append(v, fmt.Sprintf("state: %s is recorded but not in the program", s.URN))
		case seen[name]:
			v = append(v, fmt.Sprintf("state: %s is recorded twice", s.URN))
		case s.Delete || s.PendingReplacement:
			v = append(v, fmt.Sprintf("state: %s is left marked delete=%v pendingReplacement=%v", s.URN, s.Delete, s.PendingReplacement))
		case s.URN != w.URN || s.ID != w.ID || !maps.Equal(world.Strings(s.Inputs), w.Props):
			v = append(v, fmt.Sprintf("state: %s is recorded as id %s inputs %v; want %s id %s inputs %v",
				s.URN, s.ID, world.Strings(s.Inputs), w.URN, w.ID, w.Props))
		}
		seen[name] = true
	}
	for name := range want {
		if !seen[name] {
			v = append(v, fmt.Sprintf("state: %s is missing", name))
		}
	}
	wantIDs := map[resource.ID]string{}
	for name, w := range want {
		wantIDs[w.ID] = name
	}
	for _, id := range slices.Sorted(maps.Keys(live)) {
		if _, ok := wantIDs[id]; !ok {
			v = append(v, fmt.Sprintf("world: %s (%s) exists but is not part of the goal (a duplicate or an orphan)", id, live[id].URN))
		}
	}
	for id, name := range wantIDs {
		ph, ok := live[id]
		if !ok {
			v = append(v, fmt.Sprintf("world: %s (%s) does not exist", id, name))
		} else if !maps.Equal(ph.Props, want[name].Props) {
			v = append(v, fmt.Sprintf("world: %s has %v, want %v", id, ph.Props, want[name].Props))
		}
	}
	slices.Sort(v)
	return v
}

// histories describes, for GROUNDWORK_CRASH_DEBUG, what the state and the
// ledger hold for each resource name.
func histories(ts trialStore, ledgerPath string) map[string]string {
	out := map[string]string{}
	add := func(name, format string, args ...any) { out[name] += fmt.Sprintf(format, args...) }
	if store, err := ts.open(); err == nil {
		if snap, err := store.Load(bg, crashID); err == nil {
			for _, s := range snap.Resources {
				add(s.URN.Name(), "  recorded id=%s delete=%v pendingReplacement=%v inputs=%v deps=%v\n",
					s.ID, s.Delete, s.PendingReplacement, s.Inputs, s.Dependencies)
			}
			for _, op := range snap.PendingOperations {
				s := op.Resource
				add(s.URN.Name(), "  pending %s id=%s delete=%v pendingReplacement=%v inputs=%v\n",
					op.Kind, s.ID, s.Delete, s.PendingReplacement, s.Inputs)
			}
		}
	}
	recs, _ := world.ReadLedger(ledgerPath)
	for i, r := range recs {
		add(r.URN.Name(), "  ledger #%d %s %s %v\n", i, r.Op, r.ID, r.Props)
	}
	return out
}
