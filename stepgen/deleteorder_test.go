package stepgen_test

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/groundwork-iac/groundwork/deploy"
	"github.com/groundwork-iac/groundwork/plan"
	"github.com/groundwork-iac/groundwork/providers"
	"github.com/groundwork-iac/groundwork/resource"
	"github.com/groundwork-iac/groundwork/stepgen"
)

// TestDeleteOrderProperty checks the delete rule of the package
// documentation on random programs: an old snapshot of up to six
// resources tied by every kind of dependency (dependsOn, property
// dependencies that replace or update, parent, deletedWith), some with an
// old copy an earlier run left marked for deletion and ties of its own
// (checkCopiesDeleteOrder holds those to the rule too), then a
// program that keeps, updates, replaces (create-before-delete or
// delete-before-replace) or removes each, with new dependencies. A host
// plays the engine with random latency: it registers each resource once
// what it refers to has answered, in a random order, and answers calls,
// starts steps (once what they need has succeeded) and ends them in a
// random interleaving. The invariant: when a resource's old copy is
// deleted, every resource that depended on it in the last snapshot and
// whose old copy is deleted too has been deleted first, unless the
// generator could not know it would be (its registration came after the
// delete was issued, or never came). And the generator never waits for
// ever: every registration is answered and every step ends.
//
// It checks 1,000 programs (about a second) unless -rapid.checks or
// GROUNDWORK_RAPID_CHECKS says otherwise.
func TestDeleteOrderProperty(t *testing.T) {
	defer manyChecks(t)()
	rapid.Check(t, func(rt *rapid.T) {
		p := drawOrderProgram(rt)
		runOrderProgram(rt, p)
	})
}

// manyChecks sets rapid's number of checks to 1,000, or to
// GROUNDWORK_RAPID_CHECKS, unless -rapid.checks says otherwise; call the
// function it returns to set it back.
func manyChecks(t *testing.T) func() {
	checks := "1000"
	if n := os.Getenv("GROUNDWORK_RAPID_CHECKS"); n != "" {
		checks = n
	}
	// A value other than the default was given on the command line (this
	// function sets the flag back to the default when a test ends).
	f := flag.Lookup("rapid.checks")
	prev := f.Value.String()
	if prev != f.DefValue {
		return func() {}
	}
	if err := flag.Set("rapid.checks", checks); err != nil {
		t.Fatal(err)
	}
	return func() { _ = flag.Set("rapid.checks", prev) }
}

// orderRes is one resource of an order program: its old record (nil for
// none) and its registration in the new program (nil for removed).
type orderRes struct {
	name string
	old  *resource.State
	new  *orderGoal
	// copy is an old copy an earlier run marked for deletion and left
	// (its delete never ran), with dependencies of its own, or nil.
	copy *resource.State
}

type orderGoal struct {
	dbr       bool
	rv, v     string
	dependsOn []int
	// props maps a key to the resource whose "rv" output it takes; a key
	// starting with r replaces the resource when it changes.
	props       map[string]int
	parent      int // -1 for none
	deletedWith int // -1 for none
}

type orderProgram struct {
	res []*orderRes
}

const orderKinds = 5 // none, dependsOn, replacing property, updating property, deletedWith

func drawOrderProgram(t *rapid.T) *orderProgram {
	n := rapid.IntRange(2, 6).Draw(t, "n")
	p := &orderProgram{}
	parents := make([]int, n)
	for i := 0; i < n; i++ {
		r := &orderRes{name: fmt.Sprintf("r%d", i)}
		parents[i] = -1
		if i > 0 && rapid.IntRange(0, 3).Draw(t, fmt.Sprintf("parent?%d", i)) == 0 {
			parents[i] = rapid.IntRange(0, i-1).Draw(t, fmt.Sprintf("parent%d", i))
		}
		inputs := map[string]any{"rv": "1", "v": "1"}
		var opts []func(*resource.State)
		if pa := parents[i]; pa >= 0 {
			opts = append(opts, childOf(p.res[pa].old.URN))
		}
		for j := 0; j < i; j++ {
			ju := p.res[j].old.URN
			switch rapid.IntRange(0, orderKinds-1).Draw(t, fmt.Sprintf("olddep%d-%d", i, j)) {
			case 1:
				opts = append(opts, dependsOn(ju))
			case 2:
				inputs[fmt.Sprintf("rp%d", j)] = "1"
				opts = append(opts, inputFrom(fmt.Sprintf("rp%d", j), ju))
			case 3:
				inputs[fmt.Sprintf("p%d", j)] = "1"
				opts = append(opts, inputFrom(fmt.Sprintf("p%d", j), ju))
			case 4:
				opts = append(opts, func(s *resource.State) { s.DeletedWith = ju })
			}
		}
		r.old = recorded(r.name, inputs, opts...)
		r.old.ID = resource.ID("id-" + r.name)
		if rapid.IntRange(0, 3).Draw(t, fmt.Sprintf("copy?%d", i)) == 0 {
			r.copy = drawOldCopy(t, p, r.name, parents[i])
		}
		p.res = append(p.res, r)
	}
	for i, r := range p.res {
		if pa := parents[i]; pa >= 0 && p.res[pa].new == nil {
			continue // its parent is gone, and so is it
		}
		fate := rapid.IntRange(0, 4).Draw(t, fmt.Sprintf("fate%d", i))
		if fate == 0 {
			continue // removed
		}
		g := &orderGoal{rv: "1", v: "1", parent: parents[i], deletedWith: -1, props: map[string]int{}}
		switch fate {
		case 2:
			g.v = "2"
		case 3:
			g.rv = "2"
		}
		g.dbr = rapid.Bool().Draw(t, fmt.Sprintf("dbr%d", i))
		for j := 0; j < i; j++ {
			if p.res[j].new == nil {
				continue
			}
			switch rapid.IntRange(0, orderKinds-1).Draw(t, fmt.Sprintf("newdep%d-%d", i, j)) {
			case 1:
				g.dependsOn = append(g.dependsOn, j)
			case 2:
				g.props[fmt.Sprintf("rp%d", j)] = j
			case 3:
				g.props[fmt.Sprintf("p%d", j)] = j
			case 4:
				g.deletedWith = j
			}
		}
		r.new = g
	}
	return p
}

// drawOldCopy draws the old copy of resource name an earlier run left:
// its own ties to the resources before it (their old copies, where they
// have one, as a copy's references name copies first).
func drawOldCopy(t *rapid.T, p *orderProgram, name string, parent int) *resource.State {
	inputs := map[string]any{"rv": "0", "v": "0"}
	opts := []func(*resource.State){func(s *resource.State) { s.Delete, s.ID = true, resource.ID("id-"+name+"-old") }}
	if parent >= 0 {
		opts = append(opts, childOf(p.res[parent].old.URN))
	}
	for j, dep := range p.res {
		ju := dep.old.URN
		switch rapid.IntRange(0, orderKinds-1).Draw(t, fmt.Sprintf("copydep%s-%d", name, j)) {
		case 1:
			opts = append(opts, dependsOn(ju))
		case 2:
			inputs[fmt.Sprintf("rp%d", j)] = "0"
			opts = append(opts, inputFrom(fmt.Sprintf("rp%d", j), ju))
		case 3:
			inputs[fmt.Sprintf("p%d", j)] = "0"
			opts = append(opts, inputFrom(fmt.Sprintf("p%d", j), ju))
		case 4:
			opts = append(opts, func(s *resource.State) { s.DeletedWith = ju })
		}
	}
	return recorded(name, inputs, opts...)
}

// refersTo lists the resources g waits for before it is registered.
func (g *orderGoal) refersTo() []int {
	out := slices.Clone(g.dependsOn)
	for _, j := range g.props {
		out = append(out, j)
	}
	if g.parent >= 0 {
		out = append(out, g.parent)
	}
	if g.deletedWith >= 0 {
		out = append(out, g.deletedWith)
	}
	return out
}

// orderStep is a step as the host runs it.
type orderStep struct {
	step           *stepgen.Step
	issued, start  int
	end            int
	ok, ended, run bool
}

// orderHost runs an order program; seq counts the events.
type orderHost struct {
	t     *rapid.T
	p     *orderProgram
	gen   *stepgen.Generator
	prov  *providers.Func
	seq   int
	regs  map[int]*stepgen.Registration
	regAt map[resource.URN]int
	reply map[int]*stepgen.Reply
	calls []*stepgen.Call
	steps map[uint64]*orderStep
	order []uint64
	// deletedBy maps an old ID to the step that deleted it physically;
	// current is the step being applied.
	deletedBy map[resource.ID]*orderStep
	current   *orderStep
	created   int
	// refused is the plan's refusal of a registration or a step, when the
	// run holds to a plan (Config.Plan): the run stops there.
	refused *plan.ViolationError
	holding bool
	// deletesAt is when the host asked for the deletes after the program.
	deletesAt int
}

func (h *orderHost) Provider(string, string) (providers.Provider, error) { return h.prov, nil }

func runOrderProgram(t *rapid.T, p *orderProgram) {
	_, _ = runOrderProgramWith(t, p, stepgen.Config{})
}

// runOrderProgramWith runs p with cfg's plan settings and returns the
// generator once every step has ended, or the plan's refusal when the run
// holds to a plan (Config.Plan) and it refused a step.
func runOrderProgramWith(t *rapid.T, p *orderProgram, cfg stepgen.Config) (*stepgen.Generator, *plan.ViolationError) {
	h := &orderHost{t: t, p: p, regs: map[int]*stepgen.Registration{}, regAt: map[resource.URN]int{},
		reply: map[int]*stepgen.Reply{}, steps: map[uint64]*orderStep{}, deletedBy: map[resource.ID]*orderStep{}}
	h.prov = &providers.Func{
		DiffF: func(_ context.Context, req providers.DiffRequest) (providers.DiffResponse, error) {
			return orderDiff(req.OldInputs, req.NewInputs), nil
		},
		CreateF: func(_ context.Context, req providers.CreateRequest) (providers.CreateResponse, error) {
			h.created++
			return providers.CreateResponse{ID: resource.ID(fmt.Sprintf("id-%s-%d", req.URN.Name(), h.created)), Outputs: req.Inputs}, nil
		},
		UpdateF: func(_ context.Context, req providers.UpdateRequest) (providers.UpdateResponse, error) {
			return providers.UpdateResponse{Outputs: req.NewInputs}, nil
		},
		DeleteF: func(_ context.Context, req providers.DeleteRequest) (providers.DeleteResponse, error) {
			if h.deletedBy[req.ID] != nil {
				t.Fatalf("%s (%s) deleted twice", req.ID, req.URN)
			}
			h.deletedBy[req.ID] = h.current
			return providers.DeleteResponse{}, nil
		},
	}
	var old []*resource.State
	for _, r := range p.res {
		old = append(old, r.old)
		if r.copy != nil {
			old = append(old, r.copy)
		}
	}
	cfg.Stack, cfg.Project, cfg.Old = testStack, testProject, old
	gen, err := stepgen.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	h.gen = gen
	h.holding = cfg.Plan != nil
	deletesAsked := false
	for h.refused == nil {
		h.seq++
		moves := h.moves()
		if len(moves) == 0 {
			if !deletesAsked && h.programDone() && h.gen.Settled() {
				deletesAsked, h.deletesAt = true, h.seq
				if _, err := h.gen.Deletes(); err != nil {
					if errors.As(err, &h.refused) && cfg.Plan != nil {
						break
					}
					t.Fatalf("Deletes: %v", err)
				}
				h.take(h.gen.StartDeletes(), nil)
				continue
			}
			break
		}
		moves[rapid.IntRange(0, len(moves)-1).Draw(t, "move")]()
	}
	if h.refused != nil {
		return gen, h.refused
	}
	if !h.programDone() {
		t.Fatalf("stuck: registrations %d of %d answered, calls pending %d", len(h.reply), h.registered(), len(h.calls))
	}
	for _, id := range h.order {
		if s := h.steps[id]; !s.ended {
			t.Fatalf("step %d (%s %s) never ended", id, s.step.Op, s.step.URN())
		}
	}
	if !deletesAsked {
		t.Fatalf("the generator never settled")
	}
	h.checkDeleteOrder()
	h.checkCopiesDeleteOrder()
	return gen, nil
}

func orderDiff(olds, news resource.PropertyMap) resource.DiffResult {
	d := resource.DiffResult{Changes: resource.DiffNone}
	keys := map[resource.PropertyKey]bool{}
	for k := range olds {
		keys[k] = true
	}
	for k := range news {
		keys[k] = true
	}
	for _, k := range slices.Sorted(func(yield func(resource.PropertyKey) bool) {
		for k := range keys {
			if !yield(k) {
				return
			}
		}
	}) {
		o, ok1 := olds[k]
		n, ok2 := news[k]
		if ok1 == ok2 && o.DeepEquals(n) && !n.IsUnknown() {
			continue
		}
		d.Changes = resource.DiffSome
		d.ChangedKeys = append(d.ChangedKeys, k)
		if strings.HasPrefix(string(k), "r") {
			d.ReplaceKeys = append(d.ReplaceKeys, k)
		}
	}
	return d
}

func (h *orderHost) registered() int {
	n := 0
	for _, r := range h.p.res {
		if r.new != nil {
			n++
		}
	}
	return n
}

func (h *orderHost) programDone() bool { return len(h.reply) == h.registered() }

// moves lists what the host may do next.
func (h *orderHost) moves() []func() {
	var out []func()
	for i, r := range h.p.res {
		if r.new == nil || h.regs[i] != nil {
			continue
		}
		ready := true
		for _, j := range r.new.refersTo() {
			if rep := h.reply[j]; rep == nil || rep.Err != nil {
				ready = false
			}
		}
		if ready {
			out = append(out, func() { h.register(i) })
		}
	}
	for k := range h.calls {
		out = append(out, func() { h.answerCall(k) })
	}
	for _, id := range h.order {
		s := h.steps[id]
		switch {
		case s.run:
			out = append(out, func() { h.finish(s) })
		case !s.ended && h.startable(s):
			out = append(out, func() { s.run, s.start = true, h.seq })
		}
	}
	return out
}

func (h *orderHost) startable(s *orderStep) bool {
	for _, n := range s.step.Needs {
		if d := h.steps[n]; d == nil || !d.ended {
			return false
		}
	}
	for _, a := range s.step.After {
		if d := h.steps[a]; d == nil || !d.ended {
			return false
		}
	}
	return true
}

func (h *orderHost) register(i int) {
	r := h.p.res[i]
	ng := r.new
	inputs := map[string]any{"rv": ng.rv, "v": ng.v}
	g := goal(r.name, nil, func(g *resource.Goal) {
		g.DeleteBeforeReplace = ng.dbr
		for _, j := range ng.dependsOn {
			g.Dependencies = append(g.Dependencies, h.reply[j].Result.URN)
		}
		for k, j := range ng.props {
			rep := h.reply[j]
			inputs[k] = rep.Result.Outputs["rv"].StringValue()
			if g.PropertyDependencies == nil {
				g.PropertyDependencies = map[resource.PropertyKey][]resource.URN{}
			}
			g.PropertyDependencies[resource.PropertyKey(k)] = []resource.URN{rep.Result.URN}
			g.Dependencies = append(g.Dependencies, rep.Result.URN)
		}
		if ng.parent >= 0 {
			g.Parent = h.reply[ng.parent].Result.URN
		}
		if ng.deletedWith >= 0 {
			g.DeletedWith = h.reply[ng.deletedWith].Result.URN
		}
	})
	g.Inputs = props(inputs)
	reg := &stepgen.Registration{Goal: &g}
	h.regs[i] = reg
	acts, err := h.gen.Register(reg)
	h.regAt[reg.URN] = h.seq
	h.take(acts, err)
}

func (h *orderHost) answerCall(k int) {
	c := h.calls[k]
	h.calls = slices.Delete(h.calls, k, k+1)
	a := stepgen.Answer{Call: c}
	switch c.Kind {
	case stepgen.CallCheck:
		a.Check, a.Err = h.prov.Check(context.Background(), c.Check)
	case stepgen.CallDiff:
		a.Diff, a.Err = h.prov.Diff(context.Background(), c.Diff)
	}
	h.take(h.gen.Answer(a))
}

func (h *orderHost) finish(s *orderStep) {
	var o stepgen.Outcome
	bad := false
	for _, n := range s.step.Needs {
		if !h.steps[n].ok {
			bad = true
		}
	}
	if bad {
		o = stepgen.Outcome{Step: s.step, Err: errors.New("skipped"), Skipped: true}
	} else {
		h.current = s
		o = deploy.Apply(context.Background(), s.step, h, now)
		h.current = nil
	}
	s.run, s.ended, s.ok, s.end = false, true, o.Err == nil, h.seq
	h.take(h.gen.Done(o), nil)
}

// take records what the generator asked for.
func (h *orderHost) take(acts stepgen.Actions, err error) {
	h.calls = append(h.calls, acts.Calls...)
	for _, s := range acts.Steps {
		if h.steps[s.ID] != nil {
			h.t.Fatalf("step %d issued twice", s.ID)
		}
		h.steps[s.ID] = &orderStep{step: s, issued: h.seq}
		h.order = append(h.order, s.ID)
	}
	for i := range acts.Replies {
		rep := acts.Replies[i]
		for j, reg := range h.regs {
			if reg == rep.Reg {
				if errors.As(rep.Err, &h.refused) && h.gen != nil && h.holding {
					return
				}
				if rep.Err != nil {
					h.t.Fatalf("registration of %s failed: %v", reg.URN, rep.Err)
				}
				h.reply[j] = &rep
			}
		}
	}
	if errors.As(err, &h.refused) && h.holding {
		return
	}
	if err != nil && len(acts.Replies) == 0 {
		h.t.Fatalf("an event failed without a reply: %v", err)
	}
}

// checkDeleteOrder checks the invariant.
func (h *orderHost) checkDeleteOrder() {
	for _, d := range h.p.res {
		dDel := h.deletedBy[d.old.ID]
		if dDel == nil {
			continue
		}
		for _, x := range h.p.res {
			xDel := h.deletedBy[x.old.ID]
			if x == d || xDel == nil || !dependsOnOld(d.old, x.old.URN) {
				continue
			}
			at, registered := h.regAt[d.old.URN]
			if !registered || at > xDel.issued {
				continue // the generator could not know d would go
			}
			if dDel.end >= xDel.start {
				h.t.Fatalf("%s was deleted (%s, started at %d) before %s, which depended on it, was deleted (%s, ended at %d; registered at %d); steps:\n%s",
					x.name, xDel.step.Op, xDel.start, d.name, dDel.step.Op, dDel.end, at, h.stepTable())
			}
		}
	}
}

// checkCopiesDeleteOrder checks the delete rule for the old copies an
// earlier run left: such a copy and what it refers to (the old copy under
// that URN, if one, else the live record) both deleted, the copy goes
// first, unless what it refers to went in a delete-before-replace
// cascade and the copy's tie to it would not replace it (dependsOn, an
// updating input, parent, deletedWith): the cascade keeps such a
// dependent, as it keeps a live one the program does not register.
func (h *orderHost) checkCopiesDeleteOrder() {
	for _, d := range h.p.res {
		if d.copy == nil {
			continue
		}
		dDel := h.deletedBy[d.copy.ID]
		if dDel == nil {
			continue
		}
		for _, x := range h.p.res {
			target := x.old
			if x.copy != nil {
				target = x.copy
			}
			xDel := h.deletedBy[target.ID]
			if x == d || xDel == nil || !dependsOnOld(d.copy, x.old.URN) {
				continue
			}
			replacing := false
			for k, deps := range d.copy.PropertyDependencies {
				replacing = replacing || (strings.HasPrefix(string(k), "r") && slices.Contains(deps, x.old.URN))
			}
			inCascade := xDel.issued < h.deletesAt
			if !replacing && inCascade {
				continue
			}
			if dDel.end >= xDel.start {
				h.t.Fatalf("%s's old copy %s was deleted (%s %s, started at %d) before the old copy of %s, which depended on it, was deleted (%s, ended at %d); steps:\n%s",
					x.name, target.ID, xDel.step.Op, xDel.step.URN().Name(), xDel.start, d.name, dDel.step.Op, dDel.end, h.stepTable())
			}
		}
	}
}

// stepTable lists the steps the host ran, with their ties and times.
func (h *orderHost) stepTable() string {
	var b strings.Builder
	for _, id := range h.order {
		st := h.steps[id]
		fmt.Fprintf(&b, "  step %d %s %s (id %s) needs %v after %v: issued %d, started %d, ended %d\n", id, st.step.Op, st.step.URN().Name(),
			oldID(st.step), st.step.Needs, st.step.After, st.issued, st.start, st.end)
	}
	return b.String()
}

func oldID(s *stepgen.Step) resource.ID {
	if s.Old == nil {
		return ""
	}
	return s.Old.ID
}

func dependsOnOld(s *resource.State, u resource.URN) bool {
	if s.Parent == u || s.DeletedWith == u || slices.Contains(s.Dependencies, u) {
		return true
	}
	for _, deps := range s.PropertyDependencies {
		if slices.Contains(deps, u) {
			return true
		}
	}
	return false
}
