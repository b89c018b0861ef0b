package reliability_test

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/groundwork-iac/groundwork/engine"
	"github.com/groundwork-iac/groundwork/providers"
	"github.com/groundwork-iac/groundwork/resource"
	"github.com/groundwork-iac/groundwork/state"
	"github.com/groundwork-iac/groundwork/state/memstore"
)

// TestLifecycleProperties runs random sequences of operations (preview,
// up, refresh, destroy and their previews, with targets and
// continue-on-error) of random programs (parents, dependencies, property
// dependencies, explicit and default providers, protect,
// delete-before-replace, ignore- and replace-on-changes, aliases (renames,
// of the explicit provider too), retain-on-delete, deleted-with) against a
// provider that fails at random steps (plainly, or after creating or
// updating: providers.InitError), and checks after every operation:
//
//   - it returned (within a bound: no deadlock) and left no goroutine of
//     the engine running;
//   - the stored state loads and passes its integrity check, with no
//     pending operation (nothing crashed);
//   - a preview wrote nothing: the store's bytes and the world are
//     unchanged;
//   - the state forgets nothing: every resource that exists is recorded,
//     unless it was let go on purpose (retain-on-delete, or deleted with
//     another resource whose delete succeeded);
//   - the state holds what the world holds: every recorded resource exists
//     with exactly the recorded inputs and outputs, so every step that
//     succeeded, before or after a failure, is recorded;
//   - every step that started was reported as done or failed, and an
//     operation whose provider failed reports an error.
//
// Shrunk failures are kept under testdata/rapid and replayed first on
// every run. GROUNDWORK_RAPID_CHECKS sets the number of cases (default
// 100, rapid's -rapid.checks also works) and GROUNDWORK_RAPID_SIZE the
// largest program (default 6 resources).
func TestLifecycleProperties(t *testing.T) {
	if n := os.Getenv("GROUNDWORK_RAPID_CHECKS"); n != "" {
		if err := flag.Set("rapid.checks", n); err != nil {
			t.Fatal(err)
		}
	}
	size := envInt(t, "GROUNDWORK_RAPID_SIZE", 6)
	rapid.Check(t, func(rt *rapid.T) { lifecycle(rt, size) })
}

// slot is one resource of a generated program.
type slot struct {
	custom      bool
	renamed     bool
	parent      int
	deps        []int
	ref         int
	deletedWith int
	gen, val    int
	protect     bool
	dbr         bool
	ignoreVal   bool
	replaceVal  bool
	retain      bool
	explicit    bool
}

type program struct {
	slots   []*slot // nil: not registered
	provCfg int
	// provRenamed names the explicit provider "explicitx" instead of
	// "explicit" (each an alias of the other).
	provRenamed bool
}

func (p program) names() []string {
	var out []string
	for i, s := range p.slots {
		if s != nil {
			out = append(out, slotName(i, s.renamed))
		}
	}
	return out
}

// String describes the program for failure logs.
func (p program) String() string {
	var b strings.Builder
	if p.provRenamed {
		b.WriteString(" (explicit provider renamed)")
	}
	for i, s := range p.slots {
		if s == nil {
			continue
		}
		fmt.Fprintf(&b, "\n    %s custom=%v parent=%d deps=%v ref=%d deletedWith=%d gen=%d val=%d protect=%v dbr=%v ignoreVal=%v replaceVal=%v retain=%v explicit=%v",
			slotName(i, s.renamed), s.custom, s.parent, s.deps, s.ref, s.deletedWith, s.gen, s.val, s.protect, s.dbr, s.ignoreVal, s.replaceVal, s.retain, s.explicit)
	}
	return b.String()
}

func slotName(i int, renamed bool) string {
	if renamed {
		return fmt.Sprintf("s%dx", i)
	}
	return fmt.Sprintf("s%d", i)
}

const group = "fz:index:Group"

// drawProgram draws a program over size slots; custom[i] says which slots
// are custom resources (fixed for a whole case).
func drawProgram(t *rapid.T, custom []bool) program {
	p := program{slots: make([]*slot, len(custom)), provCfg: rapid.IntRange(0, 1).Draw(t, "provCfg"),
		provRenamed: rapid.IntRange(0, 3).Draw(t, "provRenamed") == 0}
	often := func(label string) bool { return rapid.IntRange(0, 4).Draw(t, label) == 0 }
	for i := range custom {
		if rapid.IntRange(0, 3).Draw(t, fmt.Sprintf("present%d", i)) == 0 {
			continue
		}
		var earlier, earlierCustom []int
		for j := range i {
			if p.slots[j] != nil {
				earlier = append(earlier, j)
				if custom[j] {
					earlierCustom = append(earlierCustom, j)
				}
			}
		}
		pick := func(label string, from []int) int {
			if len(from) == 0 || !often(label+"?") {
				return -1
			}
			return rapid.SampledFrom(from).Draw(t, label)
		}
		s := &slot{custom: custom[i], renamed: often(fmt.Sprintf("renamed%d", i))}
		s.parent = pick(fmt.Sprintf("parent%d", i), earlier)
		s.deletedWith = pick(fmt.Sprintf("deletedWith%d", i), earlier)
		for _, j := range earlier {
			if often(fmt.Sprintf("dep%d-%d", i, j)) {
				s.deps = append(s.deps, j)
			}
		}
		if s.custom {
			s.ref = pick(fmt.Sprintf("ref%d", i), earlierCustom)
			s.gen = rapid.IntRange(1, 2).Draw(t, fmt.Sprintf("gen%d", i))
			s.val = rapid.IntRange(1, 2).Draw(t, fmt.Sprintf("val%d", i))
			s.protect = rapid.IntRange(0, 9).Draw(t, fmt.Sprintf("protect%d", i)) == 0
			s.dbr = often(fmt.Sprintf("dbr%d", i))
			s.ignoreVal = rapid.IntRange(0, 9).Draw(t, fmt.Sprintf("ignore%d", i)) == 0
			s.replaceVal = often(fmt.Sprintf("replaceOnChanges%d", i))
			s.retain = rapid.IntRange(0, 9).Draw(t, fmt.Sprintf("retain%d", i)) == 0
			s.explicit = often(fmt.Sprintf("explicit%d", i))
		} else {
			s.ref = -1
		}
		p.slots[i] = s
	}
	return p
}

// run registers the program.
func (p program) run(ctx *engine.Context) error {
	hs := make([]*engine.Resource, len(p.slots))
	var prov *engine.Resource
	for _, s := range p.slots {
		if s != nil && s.explicit {
			name, was := "explicit", "explicitx"
			if p.provRenamed {
				name, was = was, name
			}
			prov = ctx.Provider("fz", name, engine.Props{"cfg": p.provCfg}, engine.Aliases(resource.Alias{Name: was}))
			break
		}
	}
	for i, s := range p.slots {
		if s == nil {
			continue
		}
		opts := []engine.ResourceOption{engine.Aliases(resource.Alias{Name: slotName(i, !s.renamed)})}
		if s.parent >= 0 {
			opts = append(opts, engine.Parent(hs[s.parent]))
		}
		for _, d := range s.deps {
			opts = append(opts, engine.DependsOn(hs[d]))
		}
		if s.deletedWith >= 0 {
			opts = append(opts, engine.DeletedWith(hs[s.deletedWith]))
		}
		name := slotName(i, s.renamed)
		if !s.custom {
			hs[i] = ctx.Component(group, name, opts...)
			continue
		}
		props := engine.Props{"gen": s.gen, "val": s.val}
		if s.ref >= 0 {
			props["ref"] = hs[s.ref].ID()
		}
		if s.protect {
			opts = append(opts, engine.Protect())
		}
		if s.dbr {
			opts = append(opts, engine.DeleteBeforeReplace())
		}
		if s.ignoreVal {
			opts = append(opts, engine.IgnoreChanges("val"))
		}
		if s.replaceVal {
			opts = append(opts, engine.ReplaceOnChanges("val"))
		}
		if s.retain {
			opts = append(opts, engine.RetainOnDelete())
		}
		if s.explicit {
			opts = append(opts, engine.Provider(prov))
		}
		hs[i] = ctx.Register(thing, name, props, opts...)
	}
	return nil
}

// lifecycleWorld is one case's stack and world.
type lifecycleWorld struct {
	cloud  *fakeCloud
	store  *memstore.Store
	events []engine.Event
	// letGo are physical resources the state may have dropped on purpose.
	letGo map[resource.ID]bool
}

func (w *lifecycleWorld) engine() *engine.Engine {
	prov := w.cloud.provider()
	eng, err := engine.New(engine.Config{
		Project: "fz", Stack: "dev", Store: w.store,
		Providers: func() *providers.Registry {
			r := providers.NewRegistry()
			_ = r.RegisterFactory("fz", "1.0.0", func(context.Context) (providers.Provider, error) { return prov, nil })
			return r
		},
		OnEvent: func(e engine.Event) { w.events = append(w.events, e) },
	})
	if err != nil {
		panic(err)
	}
	return eng
}

func lifecycle(t *rapid.T, maxSize int) {
	size := rapid.IntRange(1, maxSize).Draw(t, "size")
	custom := rapid.SliceOfN(rapid.IntRange(0, 4), size, size).Draw(t, "kinds")
	isCustom := make([]bool, size)
	for i, k := range custom {
		isCustom[i] = k != 0
	}
	w := &lifecycleWorld{cloud: newCloud(), store: memstore.New(), letGo: map[resource.ID]bool{}}
	prog := drawProgram(t, isCustom)
	ops := rapid.IntRange(1, 6).Draw(t, "ops")
	for n := range ops {
		kind := rapid.SampledFrom([]string{"up", "up", "up", "preview", "refresh", "destroy", "preview-destroy", "preview-refresh"}).Draw(t, fmt.Sprintf("op%d", n))
		if (kind == "up" || kind == "preview") && rapid.Bool().Draw(t, fmt.Sprintf("newProgram%d", n)) {
			prog = drawProgram(t, isCustom)
		}
		var opts []engine.Option
		if rapid.Bool().Draw(t, fmt.Sprintf("continueOnError%d", n)) {
			opts = append(opts, engine.ContinueOnError())
		}
		if rapid.IntRange(0, 4).Draw(t, fmt.Sprintf("targeted%d", n)) == 0 {
			if targets := drawTargets(t, w, n); len(targets) > 0 {
				opts = append(opts, engine.Targets(targets...))
			}
		}
		w.cloud.Fail(drawFailures(t, size, n))
		t.Logf("operation %d: %s with %d options, failures %v, of:%v", n, kind, len(opts), w.cloud.failures, prog)
		w.operate(t, kind, prog, opts)
	}
}

func drawTargets(t *rapid.T, w *lifecycleWorld, n int) []resource.URN {
	snap, err := w.store.Load(bg, state.StackID{Project: "fz", Stack: "dev"})
	if err != nil {
		t.Fatalf("load: %v", err)
	}
	var urns []resource.URN
	for _, r := range snap.Resources {
		if r.Type == thing || r.Type == group {
			urns = append(urns, r.URN)
		}
	}
	if len(urns) == 0 {
		return nil
	}
	return rapid.SliceOfN(rapid.SampledFrom(urns), 1, 2).Draw(t, fmt.Sprintf("targets%d", n))
}

func drawFailures(t *rapid.T, size, n int) map[string]failMode {
	f := map[string]failMode{}
	count := rapid.IntRange(0, 3).Draw(t, fmt.Sprintf("failures%d", n))
	for k := range count {
		op := rapid.SampledFrom([]string{"create", "update", "delete", "check", "diff"}).Draw(t, fmt.Sprintf("failOp%d-%d", n, k))
		name := slotName(rapid.IntRange(0, size-1).Draw(t, fmt.Sprintf("failSlot%d-%d", n, k)), rapid.Bool().Draw(t, fmt.Sprintf("failRenamed%d-%d", n, k)))
		mode := failPlain
		if (op == "create" || op == "update") && rapid.Bool().Draw(t, fmt.Sprintf("failInit%d-%d", n, k)) {
			mode = failInit
		}
		f[op+" "+name] = mode
	}
	return f
}

// operate runs one operation and checks every invariant after it.
func (w *lifecycleWorld) operate(t *rapid.T, kind string, prog program, opts []engine.Option) {
	before, err := w.store.Load(bg, state.StackID{Project: "fz", Stack: "dev"})
	if err != nil {
		t.Fatalf("load before %s: %v", kind, err)
	}
	files := w.store.Files(state.StackID{Project: "fz", Stack: "dev"})
	changes := w.cloud.Changes()
	w.events = nil
	w.cloud.mu.Lock()
	clear(w.cloud.failed)
	w.cloud.mu.Unlock()
	eng := w.engine()
	out := bounded(t, 20*time.Second, kind, func() upResult {
		var res *engine.Result
		var err error
		switch kind {
		case "up":
			res, err = eng.Up(bg, prog.run, opts...)
		case "preview":
			res, err = eng.Preview(bg, prog.run, opts...)
		case "refresh":
			res, err = eng.Refresh(bg, opts...)
		case "destroy":
			res, err = eng.Destroy(bg, opts...)
		case "preview-destroy":
			res, err = eng.PreviewDestroy(bg, opts...)
		case "preview-refresh":
			res, err = eng.PreviewRefresh(bg, opts...)
		}
		return upResult{res, err}
	})
	if out.err != nil {
		t.Logf("  %s: %v", kind, out.err)
	}
	if leaked := leakedGoroutines(); len(leaked) > 0 {
		t.Fatalf("%s left %d goroutines of the engine running:\n%s", kind, len(leaked), strings.Join(leaked, "\n\n"))
	}
	after, err := w.store.Load(bg, state.StackID{Project: "fz", Stack: "dev"})
	if err != nil {
		t.Fatalf("after %s the state does not load: %v", kind, err)
	}
	if err := after.VerifyIntegrity(); err != nil {
		t.Fatalf("after %s the state fails integrity: %v", kind, err)
	}
	if len(after.PendingOperations) > 0 {
		t.Fatalf("after %s, with no crash, %d pending operations remain (first: %s %s)", kind,
			len(after.PendingOperations), after.PendingOperations[0].Kind, after.PendingOperations[0].Resource.URN)
	}
	if strings.HasPrefix(kind, "preview") {
		if !maps.EqualFunc(files, w.store.Files(state.StackID{Project: "fz", Stack: "dev"}), bytes.Equal) {
			t.Fatalf("%s changed the store", kind)
		}
		if c := w.cloud.Changes(); c != changes {
			t.Fatalf("%s changed the world (%d changes)", kind, c-changes)
		}
	}
	w.checkWorld(t, kind, before, after)
	w.checkReported(t, kind, out.err)
}

// checkWorld checks that the state forgets no resource that exists and
// records every one as it is.
func (w *lifecycleWorld) checkWorld(t *rapid.T, kind string, before, after *state.Snapshot) {
	for _, r := range before.Resources {
		if r.RetainOnDelete {
			w.letGo[r.ID] = true
		}
	}
	live := w.cloud.Live()
	w.letGoWith(before, after, live)
	recorded := map[resource.ID]*resource.State{}
	for _, r := range after.Resources {
		if r.Type != thing {
			continue
		}
		if r.PendingReplacement {
			if r.RetainOnDelete {
				w.letGo[r.ID] = true // replaced without a delete: let go
				continue
			}
			if _, ok := live[r.ID]; ok {
				t.Fatalf("after %s: %s is recorded as deleted (pending replacement) but exists", kind, r.URN)
			}
			continue
		}
		if prev, dup := recorded[r.ID]; dup {
			t.Fatalf("after %s: id %s is recorded twice (%s and %s)", kind, r.ID, prev.URN, r.URN)
		}
		recorded[r.ID] = r
		ph, ok := live[r.ID]
		if !ok {
			t.Fatalf("after %s: %s (id %s, delete=%v) is recorded but does not exist", kind, r.URN, r.ID, r.Delete)
		}
		if !r.Inputs.DeepEquals(ph.Inputs) {
			t.Fatalf("after %s: %s is recorded with inputs %v, but the world holds %v", kind, r.URN, r.Inputs, ph.Inputs)
		}
		if want := outputsOf(r.ID, ph.Inputs); !r.Outputs.DeepEquals(want) {
			t.Fatalf("after %s: %s is recorded with outputs %v, but the world holds %v", kind, r.URN, r.Outputs, want)
		}
	}
	for _, id := range slices.Sorted(maps.Keys(live)) {
		if recorded[id] == nil && !w.letGo[id] {
			t.Fatalf("after %s: %s (%s) exists but the state forgot it", kind, id, live[id].URN)
		}
	}
}

// letGoWith lets go the resources deleted with another (deletedWith) that
// left the state together with it: a copy of their target left the state
// in the same operation and no longer exists, or was let go itself. The
// fake world does not delete one resource with another, so they still
// exist. A resource whose target's delete failed must stay recorded.
func (w *lifecycleWorld) letGoWith(before, after *state.Snapshot, live map[resource.ID]phys) {
	type key struct {
		urn resource.URN
		id  resource.ID
	}
	stays := map[key]bool{}
	for _, r := range after.Resources {
		stays[key{r.URN, r.ID}] = true
	}
	// gone holds the URNs (and former URNs) of which a copy left the state
	// and is gone. The snapshot lists a target before what goes with it,
	// so one pass resolves chains.
	gone := map[resource.URN]bool{}
	for _, r := range before.Resources {
		if stays[key{r.URN, r.ID}] {
			continue
		}
		if r.DeletedWith != "" && gone[r.DeletedWith] {
			w.letGo[r.ID] = true
		}
		if _, exists := live[r.ID]; !exists || r.Type != thing || w.letGo[r.ID] {
			gone[r.URN] = true
			for _, a := range r.Aliases {
				gone[a] = true
			}
		}
	}
}

// checkReported checks that every step that started was reported as done
// or failed, and that a provider failure made the operation fail.
func (w *lifecycleWorld) checkReported(t *rapid.T, kind string, err error) {
	started := map[string]int{}
	for _, e := range w.events {
		switch e := e.(type) {
		case engine.StepStartEvent:
			started[string(e.Op)+" "+string(e.URN)]++
		case engine.StepDoneEvent:
			started[string(e.Op)+" "+string(e.URN)]--
		case engine.StepFailedEvent:
			if !e.Skipped {
				started[string(e.Op)+" "+string(e.URN)]--
			}
		}
	}
	for step, n := range started {
		if n != 0 {
			t.Fatalf("%s: step %s started %+d times more than it ended", kind, step, n)
		}
	}
	w.cloud.mu.Lock()
	failed := w.cloud.failed[failPlain] + w.cloud.failed[failInit]
	w.cloud.mu.Unlock()
	if failed > 0 && err == nil {
		t.Fatalf("%s: %d provider calls failed, but the operation reported no error", kind, failed)
	}
	var ce *engine.CancelledError
	if errors.As(err, &ce) {
		t.Fatalf("%s: reported a cancellation nobody asked for: %v", kind, err)
	}
}
