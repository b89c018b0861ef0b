package storetest

import (
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/groundwork-iac/groundwork/resource"
	"github.com/groundwork-iac/groundwork/state"
)

// twoProjects: two projects' stacks of one name are two stacks. Each
// one's save, journal, crash replay, lock and removal leave the other's
// bytes and state as they were, and List names both.
func (s *suite) twoProjects(t *testing.T) {
	alpha := state.StackID{Project: "storetest-alpha", Stack: "shared"}
	beta := state.StackID{Project: "storetest-beta", Stack: "shared"}
	provider := func(id state.StackID) *resource.State {
		return &resource.State{Type: "pulumi:providers:test", URN: resource.NewURN(id.Stack, id.Project, "", "pulumi:providers:test", "default"),
			Custom: true, ID: "p1"}
	}
	of := func(id state.StackID, name string) *resource.State {
		return &resource.State{Type: "test:index:Thing", URN: resource.NewURN(id.Stack, id.Project, "", "test:index:Thing", name),
			Custom: true, ID: resource.ID(name + "-id"), Provider: string(provider(id).URN) + "::p1",
			Inputs: resource.PropertyMap{"name": resource.NewString(name)}}
	}
	st := s.open(t)
	mustSave(t, st, alpha, &state.Snapshot{Resources: []*resource.State{provider(alpha), of(alpha, "a1"), of(alpha, "a2")}})
	if s.h.Snapshot(t, beta) != nil || s.h.Journal(t, beta) != nil {
		t.Fatal("saving alpha's stack wrote beta's")
	}
	if got := mustLoad(t, st, beta); len(got.Resources) != 0 {
		t.Fatalf("Load(beta) = %v; want an empty stack: it was never written", names(got))
	}

	// Beta deploys: its journal and snapshot are its own.
	other := s.open(t)
	lb := mustLock(t, other, beta)
	// Alpha's stack is not locked by beta's lock.
	la := mustLock(t, st, alpha)
	base := &state.Snapshot{Resources: []*resource.State{provider(beta)}}
	jb := mustOpenJournal(t, other, beta, base)
	create(t, jb, of(beta, "b1"))
	if _, err := jb.Commit(bg()); err != nil {
		t.Fatal(err)
	}
	create(t, jb, of(beta, "b2")) // journaled, not committed: a crash
	if err := jb.Close(bg()); err != nil {
		t.Fatal(err)
	}
	if err := lb.Unlock(bg()); err != nil {
		t.Fatal(err)
	}
	alphaSnap, alphaJournal := s.h.Snapshot(t, alpha), s.h.Journal(t, alpha)
	if got := names(mustLoad(t, s.open(t), alpha)); !cmp.Equal(got, []string{"default", "a1", "a2"}) {
		t.Errorf("alpha's stack after beta's update = %v; want its own resources", got)
	}
	if got := names(mustLoad(t, s.open(t), beta)); !cmp.Equal(got, []string{"default", "b1", "b2"}) {
		t.Errorf("beta's stack after its crash = %v; want its own resources, replayed", got)
	}
	if err := la.Unlock(bg()); err != nil {
		t.Fatal(err)
	}

	list, err := s.open(t).List(bg())
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(list, alpha) || !slices.Contains(list, beta) {
		t.Errorf("List = %v; want both %s and %s", list, alpha, beta)
	}

	// Removing beta's stack leaves alpha's.
	if err := s.open(t).Remove(bg(), beta); err != nil {
		t.Fatal(err)
	}
	if string(s.h.Snapshot(t, alpha)) != string(alphaSnap) || string(s.h.Journal(t, alpha)) != string(alphaJournal) {
		t.Error("removing beta's stack changed alpha's bytes")
	}
	if got := names(mustLoad(t, s.open(t), alpha)); !cmp.Equal(got, []string{"default", "a1", "a2"}) {
		t.Errorf("alpha's stack after beta's removal = %v", got)
	}
	if err := s.open(t).Remove(bg(), alpha); err != nil {
		t.Fatal(err)
	}
}
