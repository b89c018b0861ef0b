package stepgen_test

import (
	"context"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/groundwork-iac/groundwork/providers"
	"github.com/groundwork-iac/groundwork/resource"
	"github.com/groundwork-iac/groundwork/stepgen"
)

// TestUntargeted: a registration outside the targets touches nothing and
// asks no provider. A recorded resource keeps its state exactly; a new one
// is not created, leaves no record, and has unknown outputs.
func TestUntargeted(t *testing.T) {
	old := recorded("a", map[string]any{"x": 1})
	for name, cfg := range map[string]stepgen.Config{
		"not among the targets": {Targets: map[resource.URN]bool{urn("other"): true}},
		"excluded":              {Excludes: map[resource.URN]bool{urn("a"): true, urn("new"): true}},
	} {
		t.Run(name, func(t *testing.T) {
			cfg.Old = []*resource.State{old}
			h := newHost(t, cfg, nil)
			recordedStep := onlyStep(t, h.mustRegister(goal("a", map[string]any{"x": 2})))
			if recordedStep.Op != stepgen.OpSame || recordedStep.Old != old || recordedStep.New != old {
				t.Errorf("recorded: %s old %p new %p, want same with the recorded state as both", recordedStep.Op, recordedStep.Old, recordedStep.New)
			}
			if recordedStep.JournalOp() != "" || result(recordedStep) != "old→old" || h.gen.State(urn("a")) != old {
				t.Errorf("recorded: journal %q result %s", recordedStep.JournalOp(), result(recordedStep))
			}

			newStep := onlyStep(t, h.mustRegister(goal("new", map[string]any{"x": 1, "y": "z"})))
			if newStep.Op != stepgen.OpSame || newStep.Old != nil {
				t.Errorf("new: %s of %v, want same of nothing", newStep.Op, newStep.Old)
			}
			if diff := cmp.Diff(props(map[string]any{"x": resource.NewUnknown(), "y": resource.NewUnknown()}), newStep.New.Outputs); diff != "" {
				t.Errorf("new: outputs (-want +got):\n%s", diff)
			}
			if newStep.JournalOp() != "" || result(newStep) != "nil→nil" {
				t.Errorf("new: journal %q result %s, want no record", newStep.JournalOp(), result(newStep))
			}
			if o := h.applyOne(newStep); o.Err != nil || o.New != newStep.New {
				t.Errorf("Apply: %v, new %p; want the unknown outputs carried over", o.Err, o.New)
			}
			if len(h.calls) != 0 {
				t.Errorf("calls = %v, want none", h.callNames())
			}
		})
	}
}

// TestAlwaysTargeted: the stack's root and provider resources are always
// registered normally, whatever the targets, because the targeted
// resources need them.
func TestAlwaysTargeted(t *testing.T) {
	h := newHost(t, stepgen.Config{Targets: map[resource.URN]bool{urn("a"): true}}, nil)
	for _, g := range []resource.Goal{
		{Type: resource.RootStackType, Name: "proj-dev"},
		{Type: providers.ProviderType("test"), Name: "explicit", Custom: true},
		goal("a", nil),
	} {
		if s := onlyStep(t, h.mustRegister(g)); s.Op != stepgen.OpCreate {
			t.Errorf("%s: %s, want create", g.Type, s.Op)
		}
	}
}

// TestRead: an external resource is read by ID on every run; it is never
// deleted physically.
func TestRead(t *testing.T) {
	var reads []providers.ReadRequest
	prov := &providers.Func{ReadF: func(_ context.Context, req providers.ReadRequest) (providers.ReadResponse, error) {
		reads = append(reads, req)
		if req.ID == "gone" {
			return providers.ReadResponse{}, nil
		}
		return providers.ReadResponse{ID: req.ID, Outputs: props(map[string]any{"size": 3, "key": "k"})}, nil
	}}
	prev := recorded("ext", nil, func(s *resource.State) {
		s.External, s.ID, s.Outputs = true, "vol-1", props(map[string]any{"size": 2, "key": "k"})
	})
	h := newHost(t, stepgen.Config{Old: []*resource.State{prev}}, prov)

	t.Run("first read", func(t *testing.T) {
		inputs := props(map[string]any{"size": 3, "__provider": "serialized"})
		reg := &stepgen.Registration{Goal: &resource.Goal{Type: thing, Name: "fresh", Provider: provRef, Inputs: inputs, AdditionalSecretOutputs: []resource.PropertyKey{"key"}}}
		acts, err := h.gen.Read(reg, "vol-9")
		if err != nil || len(acts.Calls) != 0 {
			t.Fatalf("Read = %v calls, %v", len(acts.Calls), err)
		}
		s := onlyStep(t, [][]*stepgen.Step{acts.Steps})
		if s.Op != stepgen.OpRead || s.Old != nil || !s.New.Custom || !s.New.External || s.New.ID != "vol-9" || reg.URN != urn("fresh") {
			t.Fatalf("step %s old %v new %+v", s.Op, s.Old, s.New)
		}
		if s.JournalOp() != resource.OperationReading || result(s) != "nil→new" {
			t.Errorf("journal %q result %s", s.JournalOp(), result(s))
		}
		o := h.applyOne(s)
		if o.Err != nil {
			t.Fatal(o.Err)
		}
		want := props(map[string]any{"size": 3, "key": resource.NewSecret(resource.NewString("k"))})
		if diff := cmp.Diff(want, o.New.Outputs); diff != "" {
			t.Errorf("outputs (-want +got):\n%s", diff)
		}
		// The program's inputs go as the inputs and the state, as the
		// reference engine sends them.
		if diff := cmp.Diff(providers.ReadRequest{URN: urn("fresh"), ID: "vol-9", Inputs: inputs, State: inputs}, reads[len(reads)-1]); diff != "" {
			t.Errorf("read request (-want +got):\n%s", diff)
		}
		if !o.New.Created.Equal(fixedNow) {
			t.Errorf("created %v, want now", o.New.Created)
		}
	})
	t.Run("read again", func(t *testing.T) {
		acts, err := h.gen.Read(&stepgen.Registration{Goal: &resource.Goal{Type: thing, Name: "ext", Provider: provRef}}, "vol-1")
		if err != nil {
			t.Fatal(err)
		}
		s := onlyStep(t, [][]*stepgen.Step{acts.Steps})
		if s.Old != prev || result(s) != "old→new" {
			t.Fatalf("old %p result %s, want the recorded read replaced", s.Old, result(s))
		}
		o := h.applyOne(s)
		if o.Err != nil {
			t.Fatal(o.Err)
		}
		if diff := cmp.Diff([]resource.PropertyKey{"size"}, o.Keys); diff != "" {
			t.Errorf("changed keys (-want +got):\n%s", diff)
		}
	})
	t.Run("not found", func(t *testing.T) {
		acts, err := h.gen.Read(&stepgen.Registration{Goal: &resource.Goal{Type: thing, Name: "nothing", Provider: provRef}}, "gone")
		if err != nil {
			t.Fatal(err)
		}
		err = h.applyOne(onlyStep(t, [][]*stepgen.Step{acts.Steps})).Err
		var nf *stepgen.NotFoundError
		if !errors.As(err, &nf) || nf.ID != "gone" {
			t.Errorf("Apply = %v, want NotFoundError for id gone", err)
		}
	})
	for name, call := range map[string]func() error{
		"no ID": func() error {
			_, err := h.gen.Read(&stepgen.Registration{Goal: &resource.Goal{Type: thing, Name: "x"}}, "")
			return err
		},
		"bad type": func() error {
			_, err := h.gen.Read(&stepgen.Registration{Goal: &resource.Goal{Type: "nope", Name: "x"}}, "id")
			return err
		},
		"twice": func() error {
			_, err := h.gen.Read(&stepgen.Registration{Goal: &resource.Goal{Type: thing, Name: "ext"}}, "vol-1")
			if !errors.As(err, new(*stepgen.DuplicateURNError)) {
				return nil
			}
			return err
		},
	} {
		t.Run(name, func(t *testing.T) {
			if err := call(); err == nil {
				t.Error("Read accepted it")
			}
		})
	}
	t.Run("an external resource no longer read is forgotten", func(t *testing.T) {
		g := newHost(t, stepgen.Config{Old: []*resource.State{prev}}, nil)
		layers, err := g.deletes()
		if err != nil {
			t.Fatal(err)
		}
		s := layers[0][0]
		if s.Op != stepgen.OpDiscard || s.JournalOp() != "" || !s.Local() {
			t.Errorf("%s journaling %q, want a discard without a provider call", s.Op, s.JournalOp())
		}
	})
}

// TestImport: a registration with an import ID and no recorded state
// adopts the physical resource: no Check or Diff is asked; the step reads
// the resource, checks the program's inputs against it and refuses any
// difference.
func TestImport(t *testing.T) {
	existing := props(map[string]any{"size": 1, "name": "bucket"})
	newProv := func(t *testing.T, calls *[]string) *providers.Func {
		return &providers.Func{
			ReadF: func(_ context.Context, req providers.ReadRequest) (providers.ReadResponse, error) {
				*calls = append(*calls, "read "+string(req.ID))
				if req.ID == "missing" {
					return providers.ReadResponse{}, nil
				}
				return providers.ReadResponse{ID: req.ID, Inputs: existing, Outputs: existing}, nil
			},
			CheckF: func(_ context.Context, req providers.CheckRequest) (providers.CheckResponse, error) {
				*calls = append(*calls, "check")
				if diff := cmp.Diff(existing, req.Olds); diff != "" {
					t.Errorf("import check olds (-want +got):\n%s", diff)
				}
				if len(req.RandomSeed) == 0 {
					t.Error("import check without a random seed")
				}
				return providers.CheckResponse{Inputs: req.News}, nil
			},
			DiffF: func(_ context.Context, req providers.DiffRequest) (providers.DiffResponse, error) {
				*calls = append(*calls, "diff")
				return providers.DiffInputs(req.OldInputs, req.NewInputs), nil
			},
		}
	}
	tests := []struct {
		name      string
		id        resource.ID
		inputs    map[string]any
		wantCalls []string
		wantErr   func(error) bool
		wantIn    resource.PropertyMap
	}{
		{
			name: "inputs match", id: "b-1", inputs: map[string]any{"size": 1, "name": "bucket"},
			wantCalls: []string{"read b-1", "check", "diff"}, wantIn: existing,
		},
		{
			name: "no inputs: adopted as read", id: "b-1",
			wantCalls: []string{"read b-1"}, wantIn: existing,
		},
		{
			name: "inputs differ", id: "b-1", inputs: map[string]any{"size": 2, "name": "bucket"},
			wantCalls: []string{"read b-1", "check", "diff"},
			wantErr: func(err error) bool {
				var me *stepgen.ImportMismatchError
				return errors.As(err, &me) && cmp.Equal(me.Keys, []resource.PropertyKey{"size"}) && me.ID == "b-1"
			},
		},
		{
			name: "no such resource", id: "missing",
			wantCalls: []string{"read missing"},
			wantErr:   func(err error) bool { return errors.As(err, new(*stepgen.NotFoundError)) },
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var calls []string
			h := newHost(t, stepgen.Config{}, newProv(t, &calls))
			s := onlyStep(t, h.mustRegister(goal("a", tt.inputs, func(g *resource.Goal) { g.ImportID = tt.id })))
			if len(h.calls) != 0 {
				t.Errorf("generator calls = %v, want none", h.callNames())
			}
			if s.Op != stepgen.OpImport || s.Old != nil || s.New.ID != tt.id || s.New.ImportID != tt.id {
				t.Fatalf("step %s old %v id %q import id %q", s.Op, s.Old, s.New.ID, s.New.ImportID)
			}
			if s.JournalOp() != resource.OperationImporting || result(s) != "nil→new" {
				t.Errorf("journal %q result %s", s.JournalOp(), result(s))
			}
			o := h.applyOne(s)
			err := o.Err
			if diff := cmp.Diff(tt.wantCalls, calls); diff != "" {
				t.Errorf("provider calls (-want +got):\n%s", diff)
			}
			if tt.wantErr != nil {
				if !tt.wantErr(err) {
					t.Errorf("Apply = %v, want another error", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.wantIn, o.New.Inputs); diff != "" {
				t.Errorf("inputs (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(existing, o.New.Outputs); diff != "" {
				t.Errorf("outputs (-want +got):\n%s", diff)
			}
		})
	}
	t.Run("already managed with that ID: an ordinary registration", func(t *testing.T) {
		h := newHost(t, stepgen.Config{Old: []*resource.State{recorded("a", nil)}}, nil)
		s := onlyStep(t, h.mustRegister(goal("a", nil, func(g *resource.Goal) { g.ImportID = "id-a" })))
		if s.Op != stepgen.OpSame {
			t.Errorf("step %s, want same", s.Op)
		}
	})
}

// TestRefresh: one read per recorded custom resource within the targets
// (old copies of replaced resources included); components, providers and
// leftovers of an interrupted delete-before-replace are not read. A pending
// operation that left a resource with a known ID and no record is read too;
// one on a recorded resource is left to the read of the record.
func TestRefresh(t *testing.T) {
	a := recorded("a", map[string]any{"x": 1})
	old := []*resource.State{
		{Type: group, URN: groupURN("g")},
		{Type: providers.ProviderType("test"), URN: provURN, Custom: true, ID: "prov-1"},
		a,
		recorded("ext", nil, func(s *resource.State) { s.External = true }),
		recorded("pending", nil, func(s *resource.State) { s.PendingReplacement = true }),
		recorded("untargeted", nil),
		recorded("gone", nil),
		recorded("replaced", nil, func(s *resource.State) { s.Delete = true }),
	}
	orphan := recorded("orphan", nil, func(s *resource.State) { s.ID = "id-orphan" })
	pending := []resource.Operation{
		{Kind: resource.OperationCreating, Resource: orphan},
		{Kind: resource.OperationUpdating, Resource: a.Clone()},
		{Kind: resource.OperationDeleting, Resource: old[len(old)-1].Clone()},
		{Kind: resource.OperationCreating, Resource: recorded("no-id", nil, func(s *resource.State) { s.ID = "" })},
		{Kind: resource.OperationCreating, Resource: nil},
	}
	prov := &providers.Func{ReadF: func(_ context.Context, req providers.ReadRequest) (providers.ReadResponse, error) {
		if req.ID == "id-gone" {
			return providers.ReadResponse{}, nil
		}
		return providers.ReadResponse{ID: req.ID, Inputs: req.Inputs, Outputs: props(map[string]any{"x": 5})}, nil
	}}
	h := newHost(t, stepgen.Config{Old: old, Excludes: map[resource.URN]bool{urn("untargeted"): true}}, prov)
	chains := chainsOf(h.gen.Refresh(pending).Steps)
	want := [][]string{{"refresh a"}, {"refresh ext"}, {"refresh gone"}, {"refresh replaced"}, {"refresh orphan"}}
	if diff := cmp.Diff(want, opNames(chains)); diff != "" {
		t.Fatalf("refresh chains (-want +got):\n%s", diff)
	}
	for _, ch := range chains {
		s := ch[0]
		if s.JournalOp() != resource.OperationReading || s.Reg != nil || len(s.Needs) != 0 || len(s.After) != 0 {
			t.Errorf("%s: journal %q reg %v needs %v after %v", s.URN().Name(), s.JournalOp(), s.Reg, s.Needs, s.After)
		}
	}
	refreshed := h.apply(chains[:2])[0]
	if refreshed.Step.Old != a || outcomeResult(refreshed) != "old→new" || refreshed.New.ID != "id-a" {
		t.Errorf("refresh of a: old %p result %s id %q", refreshed.Step.Old, outcomeResult(refreshed), refreshed.New.ID)
	}
	if diff := cmp.Diff(props(map[string]any{"x": 5}), refreshed.New.Outputs); diff != "" {
		t.Errorf("refreshed outputs (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]resource.PropertyKey{"x"}, refreshed.Keys); diff != "" {
		t.Errorf("refreshed keys (-want +got):\n%s", diff)
	}

	gone := h.applyOne(chains[2][0])
	if gone.Err != nil {
		t.Fatal(gone.Err)
	}
	// Records may still refer to it: the step records nothing itself and
	// says it is gone, for the host to remove it with those references.
	if !gone.Gone || gone.New != nil || outcomeResult(gone) != "nil→nil" {
		t.Errorf("a resource found gone: gone %v new %v result %s", gone.Gone, gone.New, outcomeResult(gone))
	}
	if refreshed.Gone {
		t.Error("a resource found is reported gone")
	}

	found := chains[4][0]
	if found.Old != nil || found.New.ID != "id-orphan" {
		t.Fatalf("pending-operation read: old %v id %q", found.Old, found.New.ID)
	}
	fo := h.applyOne(found)
	if fo.Err != nil {
		t.Fatal(fo.Err)
	}
	if outcomeResult(fo) != "nil→new" {
		t.Errorf("a resource a pending operation left and that exists: result %s, want it recorded", outcomeResult(fo))
	}
}

// TestRefreshTargets: with targets, only the named resources are read.
func TestRefreshTargets(t *testing.T) {
	old := []*resource.State{recorded("a", nil), recorded("b", nil)}
	pending := []resource.Operation{{Kind: resource.OperationCreating, Resource: recorded("c", nil)}}
	h := newHost(t, stepgen.Config{Old: old, Targets: map[resource.URN]bool{urn("b"): true}}, nil)
	if diff := cmp.Diff([][]string{{"refresh b"}}, opNames(chainsOf(h.gen.Refresh(pending).Steps))); diff != "" {
		t.Errorf("refresh chains (-want +got):\n%s", diff)
	}
}

// TestReadOfAManagedResource: a read under the URN of a resource the stack
// manages takes its place, as in the reference engine: with the same ID
// the stack lets go of it (a read whose record replaces the managed one;
// nothing is deleted); with another ID the managed one is replaced by the
// one read (a read-replacement whose record condemns it, then a replace),
// and deleted after the program, unless it is protected and the read asks
// for protection too (the read-replacement is refused).
func TestReadOfAManagedResource(t *testing.T) {
	protect := func(s *resource.State) { s.Protect = true }
	tests := []struct {
		name      string
		old       *resource.State
		id        resource.ID
		protect   bool // the read asks for protection
		want      []string
		refused   bool
		condemns  bool
		wantAfter [][]string // Deletes after the program
	}{
		{name: "the same ID: relinquished", old: recorded("a", nil), id: "id-a",
			want: []string{"read a"}},
		{name: "another ID: replaced", old: recorded("a", nil), id: "vol-2",
			want: []string{"read-replacement a", "replace a"}, condemns: true,
			wantAfter: [][]string{{"delete-replaced a"}}},
		{name: "another ID, protected in the record only", old: recorded("a", nil, protect), id: "vol-2",
			want: []string{"read-replacement a", "replace a"}, condemns: true,
			wantAfter: [][]string{{"delete-replaced a"}}},
		{name: "another ID, protected in the record and the read: refused", old: recorded("a", nil, protect), id: "vol-2", protect: true,
			want: []string{"read-replacement a"}, refused: true},
		{name: "a record pending replacement is taken over", id: "vol-2",
			old:  recorded("a", nil, func(s *resource.State) { s.PendingReplacement = true }),
			want: []string{"read a"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			prov := &providers.Func{
				ReadF: func(_ context.Context, req providers.ReadRequest) (providers.ReadResponse, error) {
					return providers.ReadResponse{ID: req.ID, Outputs: props(map[string]any{"size": 3})}, nil
				},
				DeleteF: failOnDelete(t),
			}
			h := newHost(t, stepgen.Config{Old: []*resource.State{tt.old}}, prov)
			chains, err := h.drive(h.gen.Read(&stepgen.Registration{Goal: &resource.Goal{Type: thing, Name: "a", Provider: provRef, Protect: tt.protect}}, tt.id))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff([][]string{tt.want}, opNames(chains)); diff != "" {
				t.Fatalf("chains (-want +got):\n%s", diff)
			}
			s := chains[0][0]
			if tt.refused {
				var pe *stepgen.ProtectedError
				if !errors.As(s.Refused(), &pe) || pe.URN != urn("a") || pe.Action != "replace" {
					t.Fatalf("refused with %v, want a ProtectedError refusing to replace a", s.Refused())
				}
				if layers, _ := h.deletes(); len(layers) != 0 {
					t.Errorf("deletes after the refused read: %v", antichainNames(layers))
				}
				return
			}
			if s.Old != tt.old || !s.New.External || !s.New.Custom || s.New.ID != tt.id || result(s) != "old→new" || condemns(s) != tt.condemns {
				t.Errorf("old %p new %+v result %s condemns %t", s.Old, s.New, result(s), condemns(s))
			}
			if s.JournalOp() != resource.OperationReading {
				t.Errorf("journal op %q, want reading", s.JournalOp())
			}
			h.apply(chains)
			layers, err := h.deletes()
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.wantAfter, antichainNames(layers), cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("deletes after the program (-want +got):\n%s", diff)
			}
		})
	}
}
