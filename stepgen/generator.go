package stepgen

import (
	"crypto/sha256"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/groundwork-iac/groundwork/plan"
	"github.com/groundwork-iac/groundwork/providers"
	"github.com/groundwork-iac/groundwork/resource"
)

// Config sets up a Generator for one deployment.
type Config struct {
	Stack   string
	Project string
	// Old are the resources of the last snapshot, in dependency order.
	Old []*resource.State
	// Preview makes every step a preview: no provider call that changes
	// anything.
	Preview bool
	// ContinueOnError goes on deleting after a delete fails: only the
	// deletes that need it are skipped (the host's walker skips them).
	// Without it, no antichain of deletes is issued after one in which a
	// delete failed.
	ContinueOnError bool
	// StackSeed makes the random seeds handed to Check unique to the stack.
	StackSeed []byte
	// ReplaceTargets are resources the operation must replace whatever
	// their diff says.
	ReplaceTargets []resource.URN
	// InputsOnlyDiff compares old and new inputs instead of calling the
	// provider's Diff.
	InputsOnlyDiff bool
	// Analyze makes the generator ask for a CallAnalyze after each Check.
	Analyze bool
	// Targets, when non-nil, limits the operation to these resources:
	// others keep their recorded state untouched, are not created if new,
	// and are not deleted.
	Targets map[resource.URN]bool
	// Excludes are resources the operation must leave alone, even when
	// Targets is nil.
	Excludes map[resource.URN]bool
	// KeepUnregistered keeps old resources the program did not register
	// instead of deleting them (a standalone import).
	KeepUnregistered bool
	// Plan, when set, holds the operation to a saved plan: a step, option
	// or input it does not allow fails its registration with a
	// *plan.ViolationError (see PlanKept for the steps never taken).
	Plan *plan.Plan
	// RecordPlan records what the generator decides as a plan (Plan).
	RecordPlan bool
}

// Registration is one resource registration from the program. The host
// creates it and the generator fills in URN; the generator answers it with
// exactly one Reply once its step has ended (or through the error of the
// event that failed it).
type Registration struct {
	// Goal is what the program asks for. The generator reads it and never
	// changes it; it keeps the pointer (and so the goal's maps and slices)
	// for as long as the registration's steps need it.
	Goal *resource.Goal
	// URN is set by Generator.Register (and given by the host to
	// RegisterOutputs).
	URN resource.URN
	// Waiter is the host's: whoever waits for the registration's reply.
	// The generator never reads or changes it; a host that keeps its
	// waiter here finds it from a Reply without an index of its own.
	Waiter any

	// replied is set once the generator has answered the registration.
	replied bool
	// first is the first step issued for it, once numbered: a
	// delete-before-replace cascade of a resource it depended on waits
	// for it (dependents.go).
	first *Step
	// at is the record of the URN it last registered (urns.go);
	// recordOf uses it for that URN only, whatever URN holds now.
	at *urnState
}

type phase uint8

const (
	phaseCheck phase = iota
	phaseAnalyze
	phaseProviderDiff
	phaseDiff
	phaseRecheck
	phaseDependents
)

// work is the generator's bookkeeping for one registration in flight.
type work struct {
	reg  *Registration
	old  *resource.State
	new  *resource.State
	diff resource.DiffResult
	// providerChanged says the provider's change is the diff: the steps
	// then name "provider" as what changed (see changedKeys).
	providerChanged bool
	// early holds a Diff made right after the Check (Call.DiffAfterCheck)
	// while the analyzers run, until the decision that needs it; without
	// analyzers the decision follows the Check's answer at once and the
	// Diff is handed to it directly.
	early *earlyDiff
	// dbr tracks the dependents of a delete-before-replace.
	dbr *dependentsWork
	// refusal is the analyzers' verdict on the resource, when they
	// refused it: the step it comes to fails with it (Step.Refused).
	refusal error
}

// changedKeys are the top-level properties the steps of w name as
// changed: the diff's, or "provider" when the provider's change is the
// diff.
func (w *work) changedKeys() []resource.PropertyKey {
	if w.providerChanged {
		return []resource.PropertyKey{"provider"}
	}
	return w.diff.ChangedKeys
}

// earlyDiff is the outcome of a Diff made right after a Check.
type earlyDiff struct {
	diff resource.DiffResult
	err  error
	ok   bool
}

// Generator turns registrations into steps. It is a pure, single-threaded
// state machine: it starts no goroutines and calls no provider. When it needs
// a provider's Check or Diff it returns a Call; the engine makes the call and
// feeds the result back through Answer. A Generator must not be used from
// more than one goroutine at a time.
type Generator struct {
	cfg Config
	// urns holds what the generator knows of each URN it meets: its live
	// old state, its registration in this run, the state that
	// registration produced and its last step (urns.go); spare are
	// records allocated for it and not used yet. takenCopies are the old
	// states taken over that are not the live record of their URN (the
	// old copies marked for deletion a Refresh reads).
	urns        map[resource.URN]*urnState
	spare       []urnState
	takenCopies map[*resource.State]bool
	// condemned are old copies marked for deletion, in snapshot order:
	// leftovers from earlier runs (the first leftovers of them) and
	// copies replaced in this one.
	condemned []*resource.State
	leftovers int
	// refused are the deletes Deletes refused (see Refused), and
	// blockers what keeps each from being reported (see
	// RefusalBlockers).
	refused  []*Step
	blockers map[*Step]refusalBlockers
	// components indexes the components others depend on, for Deletes.
	components *componentIndex
	// cascades are the delete-before-replace cascades under way, parked
	// those waiting for a dependent's registration to be decided, and
	// cascadeDeletes the delete a cascade issued for each dependent it
	// deleted, and copyDeletes for each old copy a cascade deleted (left
	// by an earlier run, or condemned by a create-before-delete
	// replacement) (dependents.go).
	cascades       []*work
	parked         []parked
	cascadeDeletes map[resource.URN]*Step
	copyDeletes    map[*resource.State]*Step
	// declared holds, for each registration of this run that declared
	// aliases, the URNs they name: its children inherit them.
	declared map[resource.URN][]resource.URN
	replace  map[resource.URN]bool
	// plan records and checks saved plans (plan.go).
	plan planner

	// nextID is the ID of the last step issued (done.go).
	nextID uint64
	// staged are the sequences of steps issued by the event under way,
	// stagedSteps their steps, until seal numbers them.
	staged      []staged
	stagedSteps []*Step
	// inflight counts the steps issued whose outcome has not come back,
	// calls the calls issued and not answered; bad holds the steps that
	// failed or were skipped.
	inflight int
	calls    int
	bad      map[uint64]bool
	// deleting is the deletes after the program, while they run
	// (deletes.go).
	deleting *deletion
}

// New returns a generator for one deployment.
func New(cfg Config) (*Generator, error) {
	// A program usually registers again what the stack holds: sized for
	// that, the maps do not grow (and rehash) as the run goes.
	g := &Generator{
		cfg:            cfg,
		urns:           make(map[resource.URN]*urnState, len(cfg.Old)),
		spare:          make([]urnState, len(cfg.Old)),
		cascadeDeletes: map[resource.URN]*Step{},
		replace:        make(map[resource.URN]bool, len(cfg.ReplaceTargets)),
		plan:           newPlanner(cfg),
		bad:            map[uint64]bool{},
	}
	for _, s := range cfg.Old {
		if s == nil {
			return nil, fmt.Errorf("old snapshot holds a nil resource")
		}
		if s.Delete {
			g.condemned = append(g.condemned, s)
			continue
		}
		e := g.entry(s.URN)
		if e.old != nil {
			return nil, fmt.Errorf("old snapshot holds %s twice; the state is corrupt: run a refresh or repair the stack", s.URN)
		}
		e.old = s
	}
	g.leftovers = len(g.condemned)
	for _, u := range cfg.ReplaceTargets {
		g.replace[u] = true
	}
	return g, nil
}

// checkType checks a registration's type: a custom resource (provider or
// not) or a remote component needs a type token, whose package names its
// provider; a local component may have any type the SDKs accept.
func checkType(goal *resource.Goal) error {
	if goal.Custom || goal.Remote {
		return resource.CheckType(goal.Type)
	}
	return resource.CheckComponentType(goal.Type)
}

// URNFor builds the URN a registration of goal would get.
func (g *Generator) URNFor(goal resource.Goal) resource.URN {
	parentType := ""
	if goal.Parent != "" {
		parentType = goal.Parent.QualifiedType()
	}
	return resource.NewURN(g.cfg.Stack, g.cfg.Project, parentType, goal.Type, goal.Name)
}

// Register takes a registration and returns what to do next. An error
// fails this registration only; the generator stays usable. As with every
// input that fails a registration (Read, RegisterOutputs, Answer), the
// Actions returned with an error hold nothing but the registration's
// reply, which carries the error.
func (g *Generator) Register(reg *Registration) (Actions, error) {
	acts, err := g.planned(g.register(reg))
	acts, err = g.failed(reg, acts, err)
	return g.resume(acts), err
}

// failed returns acts, or, when err fails reg, actions that hold only
// reg's reply.
func (g *Generator) failed(reg *Registration, acts Actions, err error) (Actions, error) {
	if err == nil {
		return acts, nil
	}
	acts = Actions{}
	if reg != nil && !reg.replied {
		g.reply(&acts, reg, providers.RegisterResult{}, err)
	}
	return acts, err
}

func (g *Generator) register(reg *Registration) (Actions, error) {
	if reg == nil || reg.Goal == nil {
		return Actions{}, &RegistrationError{Reason: "the registration has no goal; set Registration.Goal to the resource's type, name and inputs"}
	}
	goal := reg.Goal
	if err := checkType(goal); err != nil {
		return Actions{}, &RegistrationError{Type: goal.Type, Name: goal.Name, Reason: fmt.Sprintf("bad type %q: %v", goal.Type, err)}
	}
	if goal.Name == "" {
		return Actions{}, &RegistrationError{Type: goal.Type, Reason: "the name is empty"}
	}
	if !utf8.ValidString(goal.Name) || !utf8.ValidString(goal.Type) {
		return Actions{}, &RegistrationError{Type: strings.ToValidUTF8(goal.Type, "\uFFFD"), Name: strings.ToValidUTF8(goal.Name, "\uFFFD"),
			Reason: "the name or type is not valid UTF-8; it would be recorded altered, and the resource replaced on every update"}
	}
	if goal.Parent != "" {
		if !g.registered(goal.Parent) {
			return Actions{}, &RegistrationError{Type: goal.Type, Name: goal.Name,
				Reason: fmt.Sprintf("parent %s has not been registered in this run; register the parent first", goal.Parent)}
		}
	}
	urn := g.URNFor(*goal)
	reg.URN = urn
	e := g.entry(urn)
	if e.registered {
		return Actions{}, &DuplicateURNError{URN: urn}
	}
	old, err := g.findOld(e, urn, goal)
	if err != nil {
		return Actions{}, err
	}
	e.registered, e.took = true, old
	reg.at = e
	if old != nil {
		g.take(old, reg)
	}
	g.declareAliases(urn, goal)
	if !g.targeted(urn) {
		return g.untargeted(reg, old), nil
	}
	if goal.ImportID != "" && goal.Custom {
		if old == nil {
			if err := g.planGoal(&work{reg: reg, new: g.newState(urn, goal, nil)}); err != nil {
				return Actions{}, err
			}
			return g.importStep(reg, urn, goal), nil
		}
		if old.ID != goal.ImportID {
			return Actions{}, &RegistrationError{URN: urn, Reason: fmt.Sprintf(
				"asks to import id %q but the stack already manages this resource with id %q; remove the import option", goal.ImportID, old.ID)}
		}
	}
	if old != nil && old.PendingReplacement {
		// A delete-before-replace deleted it and a crash stopped the
		// create: the physical resource is gone, so create it afresh
		// (the create's result replaces the leftover record).
		w := &work{reg: reg, old: old, new: g.newState(urn, goal, old)}
		w.new.ID = ""
		if !goal.Custom {
			return g.single(w, OpCreate), nil
		}
		return ask(g.checkCall(w, nil)), nil
	}
	w := &work{reg: reg, old: old, new: g.newState(urn, goal, old)}
	if old != nil && len(goal.IgnoreChanges) > 0 {
		in, err := applyIgnoreChanges(old.Inputs, w.new.Inputs, goal.IgnoreChanges)
		if err != nil {
			return Actions{}, &RegistrationError{URN: urn, Reason: err.Error()}
		}
		w.new.Inputs = in
	}
	if !goal.Custom {
		if err := g.planGoal(w); err != nil {
			return Actions{}, err
		}
		return g.decideComponent(w), nil
	}
	return ask(g.checkCall(w, old)), nil
}

// newState builds the state a registration asks for, before Check.
func (g *Generator) newState(urn resource.URN, goal *resource.Goal, old *resource.State) *resource.State {
	s := &resource.State{
		Type: goal.Type, URN: urn, Custom: goal.Custom,
		Inputs: goal.Inputs, Parent: goal.Parent, Protect: goal.Protect,
		Dependencies: goal.Dependencies, PropertyDependencies: goal.PropertyDependencies,
		Provider: goal.Provider, RetainOnDelete: goal.RetainOnDelete, DeletedWith: goal.DeletedWith,
		IgnoreChanges: goal.IgnoreChanges, ReplaceOnChanges: goal.ReplaceOnChanges,
		CustomTimeouts: goal.CustomTimeouts, ImportID: goal.ImportID,
		AdditionalSecretOutputs: goal.AdditionalSecretOutputs, Hooks: goal.Hooks,
	}
	if s.Inputs == nil {
		s.Inputs = resource.PropertyMap{}
	}
	if old != nil {
		s.ID = old.ID
		s.Created = old.Created
		s.Modified = old.Modified
		s.External = old.External
		// The URNs the resource was known by stay with it, so that a
		// record still naming an old URN (a child or dependent not yet
		// rewritten by its own step) keeps resolving.
		s.Aliases = slices.Clone(old.Aliases)
		if old.URN != urn && !slices.Contains(s.Aliases, old.URN) {
			s.Aliases = append(s.Aliases, old.URN)
		}
	}
	return s
}

func (g *Generator) checkCall(w *work, old *resource.State) Call {
	req := providers.CheckRequest{URN: w.new.URN, News: w.new.Inputs, RandomSeed: g.seed(w.new.URN)}
	if old != nil {
		req.Olds = old.Inputs
	}
	c := Call{Kind: CallCheck, Reg: w.reg, Provider: w.new.Provider, Type: w.new.Type, Check: req, work: w, phase: phaseCheck}
	if old != nil && g.diffFollowsCheck(w) {
		c.DiffAfterCheck = true
		c.Diff = g.diffRequest(w)
	}
	return c
}

// diffFollowsCheck reports whether a custom resource's first Check, when
// it succeeds, leads straight to a provider Diff: the path afterFirstCheck
// takes to diffCall.
func (g *Generator) diffFollowsCheck(w *work) bool {
	return w.old != nil && !w.old.PendingReplacement && !g.replace[w.new.URN] &&
		w.old.Provider == w.new.Provider && !g.cfg.InputsOnlyDiff && !g.cfg.Analyze && w.new.Custom
}

func (g *Generator) seed(urn resource.URN) []byte {
	// The data hashed is built on the stack when it fits, as it does for
	// most URNs: the sum is the one allocation.
	var scratch [256]byte
	buf := append(append(scratch[:0], g.cfg.StackSeed...), urn...)
	sum := sha256.Sum256(buf)
	return append([]byte(nil), sum[:]...)
}

// Answer takes the result of a Call and returns what to do next. An error
// fails the call's registration (see Register).
func (g *Generator) Answer(a Answer) (Actions, error) {
	if a.Call == nil || a.Call.work == nil {
		return Actions{}, fmt.Errorf("answer without the call it answers")
	}
	g.calls--
	acts, err := g.planned(g.answer(a))
	if err != nil && a.Call.phase == phaseDependents {
		g.endCascade(a.Call.work)
	}
	acts, err = g.failed(a.Call.Reg, acts, err)
	return g.resume(acts), err
}

func (g *Generator) answer(a Answer) (Actions, error) {
	w := a.Call.work
	urn := w.new.URN
	switch a.Call.phase {
	case phaseCheck, phaseRecheck:
		if a.Err != nil {
			return Actions{}, callFailed("checking", urn, a.Err)
		}
		if len(a.Check.Failures) > 0 {
			return Actions{}, &CheckFailedError{URN: urn, Failures: a.Check.Failures}
		}
		w.new.Inputs = a.Check.Inputs
		if w.new.Inputs == nil {
			w.new.Inputs = resource.PropertyMap{}
		}
		if !g.cfg.Preview && w.new.Inputs.ContainsUnknowns() {
			return Actions{}, &RegistrationError{URN: urn, Reason: "an input is unknown outside a preview: it depends on an output of a resource this operation does not create (is it outside the targets?)"}
		}
		if err := g.checkReferences(w.new); err != nil {
			return Actions{}, err
		}
		if a.Call.phase == phaseRecheck {
			return g.replacement(w)
		}
		if err := g.planGoal(w); err != nil {
			return Actions{}, err
		}
		var early earlyDiff
		if a.Diffed {
			early = earlyDiff{diff: a.Diff, err: a.DiffErr, ok: true}
		}
		if g.cfg.Analyze {
			if early.ok {
				stash := early // on the heap only on this path
				w.early = &stash
			}
			return ask(Call{Kind: CallAnalyze, Reg: w.reg, Type: w.new.Type, New: w.new, work: w, phase: phaseAnalyze}), nil
		}
		return g.afterFirstCheck(w, early)
	case phaseAnalyze:
		// A refusal (or an analyzer that fails) fails the step the
		// registration comes to: the decision goes on, so that the
		// failed step is the one the resource would have taken.
		w.refusal = a.Err
		var early earlyDiff
		if w.early != nil {
			early, w.early = *w.early, nil
		}
		return g.afterFirstCheck(w, early)
	case phaseProviderDiff:
		if a.Err != nil {
			return Actions{}, fmt.Errorf("comparing the default providers of %s: %w", urn, a.Err)
		}
		if a.Diff.Replace() {
			w.diff = resource.DiffResult{Changes: resource.DiffSome, ReplaceKeys: []resource.PropertyKey{"provider"}}
			w.providerChanged = true
			return g.startReplace(w)
		}
		return g.diffCall(w), nil
	case phaseDiff:
		return g.diffAnswered(w, a.Diff, a.Err)
	case phaseDependents:
		return g.dependentAnswered(w, a)
	}
	return Actions{}, fmt.Errorf("answer in an unknown phase %d", a.Call.phase)
}

// RegisterOutputs records a component's outputs: reg.URN names the
// component, registered earlier in this run. It returns the step that
// writes them; its outcome answers reg. An error fails reg (see Register).
func (g *Generator) RegisterOutputs(reg *Registration, outputs resource.PropertyMap) (Actions, error) {
	acts, err := g.registerOutputs(reg, outputs, true)
	return g.failed(reg, acts, err)
}

// KeepOutputs is RegisterOutputs for the outputs a host keeps for the
// stack after a failure: those recorded before, with the ones the program
// registered over them. A plan neither records nor holds them: it holds
// what the program registers, and the program did not get that far.
func (g *Generator) KeepOutputs(reg *Registration, outputs resource.PropertyMap) (Actions, error) {
	acts, err := g.registerOutputs(reg, outputs, false)
	return g.failed(reg, acts, err)
}

func (g *Generator) registerOutputs(reg *Registration, outputs resource.PropertyMap, planned bool) (Actions, error) {
	urn := reg.URN
	cur := g.State(urn)
	if cur == nil {
		return Actions{}, &RegistrationError{URN: urn, Reason: "outputs registered for a resource not registered in this run"}
	}
	if planned {
		if err := g.planOutputs(urn, cur.Outputs, outputs); err != nil {
			return Actions{}, err
		}
	}
	next := cur.Clone()
	next.Outputs = outputs
	g.setNew(reg, urn, next)
	var acts Actions
	g.issueAlone(&acts, nil, g.loneStep(OpOutputs, urn, cur, next, reg))
	g.seal(false)
	return acts, nil
}

// State returns the state a registration of this run produced, or nil.
func (g *Generator) State(urn resource.URN) *resource.State {
	if e := g.urns[urn]; e != nil {
		return e.new
	}
	return nil
}

// Old returns the live old state recorded under urn, or nil.
func (g *Generator) Old(urn resource.URN) *resource.State {
	if e := g.urns[urn]; e != nil {
		return e.old
	}
	return nil
}
