package providertest

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/groundwork-iac/groundwork/providers"
	"github.com/groundwork-iac/groundwork/resource"
)

// Harness describes a provider to Run: how to get one, and the inputs of a
// resource it manages.
type Harness struct {
	// New returns the provider under test, configured and ready for
	// resource operations. Run calls it once per check. Required.
	New func(t *testing.T) providers.Provider
	// Type is the type token of the resource the suite manages. Required.
	Type string
	// Inputs are valid inputs for a new resource. Required.
	Inputs resource.PropertyMap
	// Update are valid inputs that differ from Inputs by a change the
	// provider makes in place. Optional; without it the update checks are
	// skipped.
	Update resource.PropertyMap
	// Replace are valid inputs that differ from Inputs by a change that
	// forces a replacement. Optional.
	Replace resource.PropertyMap
	// Count reports how many physical resources exist. Optional; with it
	// the suite also checks that a preview creates nothing and that Create
	// and Delete create and delete exactly one resource.
	Count func() int
	// RespectsCancellation says that a call whose context is already
	// cancelled fails with that context's error, having done nothing.
	RespectsCancellation bool
	// Concurrency is how many Creates the suite runs at once (default 8).
	Concurrency int
	// SharedID says that every resource of the type gets the same ID (as
	// pulumi-random gives every RandomPassword the ID "none"), so that
	// concurrent Creates may return one ID repeatedly; it must not be
	// empty still.
	SharedID bool
}

// Run runs the conformance suite against the provider h describes, each
// check as a subtest:
//
//   - Check accepts valid inputs (keeping every input) deterministically;
//   - Create returns an ID and outputs, and Read finds the resource;
//   - Diff of unchanged inputs finds no change, of Update an in-place
//     change, of Replace a replacement;
//   - Update keeps the ID;
//   - after Delete, Read reports the resource gone (an empty ID);
//   - Create in a preview creates nothing;
//   - unknown inputs in a preview are no error for Check, Diff, Create or
//     Update;
//   - concurrent Creates give distinct, readable resources;
//   - a cancelled context stops Create (if RespectsCancellation).
func Run(t *testing.T, h Harness) {
	t.Helper()
	if h.New == nil || h.Type == "" || h.Inputs == nil {
		t.Fatal("providertest: the Harness needs New, Type and Inputs")
	}
	if err := resource.CheckType(h.Type); err != nil {
		t.Fatalf("providertest: Harness.Type %q is not a resource type: %v", h.Type, err)
	}
	s := &suite{h: h}
	t.Run("CheckAcceptsValidInputs", s.checkAcceptsValidInputs)
	t.Run("CreateReadDelete", s.createReadDelete)
	t.Run("DiffUnchangedIsNone", s.diffUnchanged)
	t.Run("UpdateInPlace", s.updateInPlace)
	t.Run("DiffReplace", s.diffReplace)
	t.Run("PreviewCreatesNothing", s.previewCreatesNothing)
	t.Run("PreviewWithUnknowns", s.previewWithUnknowns)
	t.Run("ConcurrentCreates", s.concurrentCreates)
	t.Run("CancelledContext", s.cancelledContext)
}

type suite struct{ h Harness }

func (s *suite) urn(name string) resource.URN {
	return resource.NewURN("test", "providertest", "", s.h.Type, name)
}

func (s *suite) count() int {
	if s.h.Count == nil {
		return 0
	}
	return s.h.Count()
}

// check runs Check and fails the test on an error or failures.
func (s *suite) check(t *testing.T, p providers.Provider, urn resource.URN, olds, news resource.PropertyMap) resource.PropertyMap {
	t.Helper()
	resp, err := p.Check(t.Context(), providers.CheckRequest{URN: urn, Olds: olds, News: news, RandomSeed: []byte(urn)})
	if err != nil {
		t.Fatalf("Check(%v): %v", news, err)
	}
	if len(resp.Failures) > 0 {
		t.Fatalf("Check(%v) rejected valid inputs: %v", news, resp.Failures)
	}
	return resp.Inputs
}

// created is a resource the suite created, for cleanup and follow-ups.
type created struct {
	urn             resource.URN
	id              resource.ID
	inputs, outputs resource.PropertyMap
}

func (s *suite) create(t *testing.T, p providers.Provider, name string, inputs resource.PropertyMap) created {
	t.Helper()
	urn := s.urn(name)
	checked := s.check(t, p, urn, nil, inputs)
	resp, err := p.Create(t.Context(), providers.CreateRequest{URN: urn, Inputs: checked})
	if err != nil {
		t.Fatalf("Create %s: %v", urn, err)
	}
	if resp.ID == "" {
		t.Fatalf("Create %s returned an empty ID; outside a preview a created resource must have one", urn)
	}
	if resp.Outputs == nil {
		t.Fatalf("Create %s returned no outputs", urn)
	}
	return created{urn: urn, id: resp.ID, inputs: checked, outputs: resp.Outputs}
}

func (s *suite) delete(t *testing.T, p providers.Provider, r created) {
	t.Helper()
	if _, err := p.Delete(t.Context(), providers.DeleteRequest{URN: r.urn, ID: r.id, Inputs: r.inputs, Outputs: r.outputs}); err != nil {
		t.Fatalf("Delete %s (%s): %v", r.urn, r.id, err)
	}
}

func (s *suite) read(t *testing.T, p providers.Provider, r created) providers.ReadResponse {
	t.Helper()
	resp, err := p.Read(t.Context(), providers.ReadRequest{URN: r.urn, ID: r.id, Inputs: r.inputs, State: r.outputs})
	if err != nil {
		t.Fatalf("Read %s (%s): %v", r.urn, r.id, err)
	}
	return resp
}

func (s *suite) checkAcceptsValidInputs(t *testing.T) {
	p := s.h.New(t)
	urn := s.urn("check")
	first := s.check(t, p, urn, nil, s.h.Inputs)
	for k := range s.h.Inputs {
		if _, ok := first[k]; !ok {
			t.Errorf("Check dropped input %q: checked inputs are %v", k, first)
		}
	}
	if again := s.check(t, p, urn, nil, s.h.Inputs); !again.DeepEquals(first) {
		t.Errorf("Check is not deterministic for the same inputs and seed:\nfirst:  %v\nsecond: %v", first, again)
	}
}

func (s *suite) createReadDelete(t *testing.T) {
	p := s.h.New(t)
	before := s.count()
	r := s.create(t, p, "crud", s.h.Inputs)
	if s.h.Count != nil && s.count() != before+1 {
		t.Errorf("Create made %d resources, want 1", s.count()-before)
	}
	if got := s.read(t, p, r); got.ID != r.id {
		t.Errorf("Read of the created resource returned ID %q, want %q", got.ID, r.id)
	}
	s.delete(t, p, r)
	if got := s.read(t, p, r); got.ID != "" {
		t.Errorf("Read after Delete returned ID %q, want an empty ID (not found)", got.ID)
	}
	if s.h.Count != nil && s.count() != before {
		t.Errorf("after Delete %d resources remain, want %d", s.count(), before)
	}
}

func (s *suite) diffUnchanged(t *testing.T) {
	p := s.h.New(t)
	r := s.create(t, p, "same", s.h.Inputs)
	defer s.delete(t, p, r)
	news := s.check(t, p, r.urn, r.inputs, s.h.Inputs)
	d, err := p.Diff(t.Context(), providers.DiffRequest{URN: r.urn, ID: r.id, OldInputs: r.inputs, OldOutputs: r.outputs, NewInputs: news})
	if err != nil {
		t.Fatalf("Diff: %v", err)
	}
	if d.Changes == resource.DiffSome || d.Replace() {
		t.Errorf("Diff of unchanged inputs = %+v, want no change (DiffNone or DiffUnknown)", d)
	}
}

func (s *suite) updateInPlace(t *testing.T) {
	if s.h.Update == nil {
		t.Skip("the Harness has no Update inputs")
	}
	p := s.h.New(t)
	r := s.create(t, p, "update", s.h.Inputs)
	defer func() { s.delete(t, p, r) }()
	news := s.check(t, p, r.urn, r.inputs, s.h.Update)
	d, err := p.Diff(t.Context(), providers.DiffRequest{URN: r.urn, ID: r.id, OldInputs: r.inputs, OldOutputs: r.outputs, NewInputs: news})
	if err != nil {
		t.Fatalf("Diff: %v", err)
	}
	if d.Changes != resource.DiffSome || d.Replace() {
		t.Fatalf("Diff of an in-place change = %+v, want DiffSome without replacement", d)
	}
	before := s.count()
	resp, err := p.Update(t.Context(), providers.UpdateRequest{URN: r.urn, ID: r.id, OldInputs: r.inputs, OldOutputs: r.outputs, NewInputs: news})
	if err != nil {
		t.Fatalf("Update: %v", err)
	}
	r.inputs, r.outputs = news, resp.Outputs
	if got := s.read(t, p, r); got.ID != r.id {
		t.Errorf("Read after Update returned ID %q, want the same ID %q", got.ID, r.id)
	}
	if s.h.Count != nil && s.count() != before {
		t.Errorf("Update changed the number of resources from %d to %d", before, s.count())
	}
}

func (s *suite) diffReplace(t *testing.T) {
	if s.h.Replace == nil {
		t.Skip("the Harness has no Replace inputs")
	}
	p := s.h.New(t)
	r := s.create(t, p, "replace", s.h.Inputs)
	defer s.delete(t, p, r)
	news := s.check(t, p, r.urn, r.inputs, s.h.Replace)
	d, err := p.Diff(t.Context(), providers.DiffRequest{URN: r.urn, ID: r.id, OldInputs: r.inputs, OldOutputs: r.outputs, NewInputs: news})
	if err != nil {
		t.Fatalf("Diff: %v", err)
	}
	if d.Changes != resource.DiffSome || !d.Replace() {
		t.Errorf("Diff of a replacing change = %+v, want DiffSome with a replacement", d)
	}
}

func (s *suite) previewCreatesNothing(t *testing.T) {
	p := s.h.New(t)
	urn := s.urn("preview")
	checked := s.check(t, p, urn, nil, s.h.Inputs)
	before := s.count()
	if _, err := p.Create(t.Context(), providers.CreateRequest{URN: urn, Inputs: checked, Preview: true}); err != nil {
		t.Fatalf("Create in a preview: %v", err)
	}
	if s.h.Count != nil && s.count() != before {
		t.Errorf("Create in a preview made %d resources, want none", s.count()-before)
	}
}

// withUnknown returns m with its first key (in sorted order) unknown.
func withUnknown(m resource.PropertyMap) resource.PropertyMap {
	out := m.Copy()
	if keys := m.StableKeys(); len(keys) > 0 {
		out[keys[0]] = resource.NewUnknown()
	}
	return out
}

func (s *suite) previewWithUnknowns(t *testing.T) {
	p := s.h.New(t)
	ctx := t.Context()
	urn := s.urn("unknowns")
	unknown := withUnknown(s.h.Inputs)
	resp, err := p.Check(ctx, providers.CheckRequest{URN: urn, News: unknown, RandomSeed: []byte(urn)})
	if err != nil {
		t.Fatalf("Check with unknown inputs: %v", err)
	}
	checked := resp.Inputs
	if checked == nil {
		checked = unknown
	}
	before := s.count()
	if _, err := p.Create(ctx, providers.CreateRequest{URN: urn, Inputs: checked, Preview: true}); err != nil {
		t.Errorf("Create in a preview with unknown inputs: %v", err)
	}
	r := s.create(t, p, "unknowns-update", s.h.Inputs)
	defer s.delete(t, p, r)
	if _, err := p.Diff(ctx, providers.DiffRequest{URN: r.urn, ID: r.id, OldInputs: r.inputs, OldOutputs: r.outputs, NewInputs: checked}); err != nil {
		t.Errorf("Diff against unknown inputs: %v", err)
	}
	if _, err := p.Update(ctx, providers.UpdateRequest{URN: r.urn, ID: r.id, OldInputs: r.inputs, OldOutputs: r.outputs, NewInputs: checked, Preview: true}); err != nil {
		t.Errorf("Update in a preview with unknown inputs: %v", err)
	}
	if s.h.Count != nil && s.count() != before+1 {
		t.Errorf("a preview with unknowns changed the number of resources: %d, want %d", s.count(), before+1)
	}
}

func (s *suite) concurrentCreates(t *testing.T) {
	p := s.h.New(t)
	n := s.h.Concurrency
	if n <= 0 {
		n = 8
	}
	before := s.count()
	results := make([]created, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			urn := s.urn(fmt.Sprintf("concurrent-%d", i))
			resp, err := p.Create(t.Context(), providers.CreateRequest{URN: urn, Inputs: s.h.Inputs})
			results[i], errs[i] = created{urn: urn, id: resp.ID, inputs: s.h.Inputs, outputs: resp.Outputs}, err
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatalf("concurrent Creates: %v", err)
	}
	seen := map[resource.ID]bool{}
	for _, r := range results {
		if r.id == "" || seen[r.id] && !s.h.SharedID {
			t.Errorf("concurrent Creates returned an empty or duplicate ID %q", r.id)
		}
		seen[r.id] = true
		if got := s.read(t, p, r); got.ID != r.id {
			t.Errorf("Read of concurrently created %s returned ID %q", r.id, got.ID)
		}
	}
	if s.h.Count != nil && s.count() != before+n {
		t.Errorf("%d concurrent Creates made %d resources", n, s.count()-before)
	}
	for _, r := range results {
		s.delete(t, p, r)
	}
}

func (s *suite) cancelledContext(t *testing.T) {
	if !s.h.RespectsCancellation {
		t.Skip("the Harness does not claim to respect cancellation")
	}
	p := s.h.New(t)
	urn := s.urn("cancelled")
	checked := s.check(t, p, urn, nil, s.h.Inputs)
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	before := s.count()
	resp, err := p.Create(ctx, providers.CreateRequest{URN: urn, Inputs: checked})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("Create with a cancelled context = (%q, %v), want an error wrapping context.Canceled", resp.ID, err)
	}
	if s.h.Count != nil && s.count() != before {
		t.Errorf("Create with a cancelled context made %d resources", s.count()-before)
	}
}
