package world

import (
	"slices"
	"testing"

	"github.com/groundwork-iac/groundwork/conformance/spec"
)

const urnA = "urn:pulumi:stk::proj::world:index:Thing::a"

func TestWorld(t *testing.T) {
	w := New()
	w.Begin(0, []spec.Failure{{Op: spec.OpUpdate, Name: "a"}})
	id, outs, err := w.Create(urnA, map[string]string{"v": "1"})
	if err != nil || id != "a-1" || outs["v"] != "1" || outs[spec.OutKey] == "" {
		t.Fatalf("create: %q %v %v", id, outs, err)
	}
	for range 2 {
		if _, err := w.Update(urnA, id, map[string]string{"v": "2"}); err == nil {
			t.Fatal("the armed update failure did not fire")
		}
	}
	w.Begin(1, nil)
	outs2, err := w.Update(urnA, id, map[string]string{"v": "2"})
	if err != nil || outs2[spec.OutKey] == outs[spec.OutKey] {
		t.Fatalf("update in the next run: %v %v (the failure is the run's; the output follows the inputs)", outs2, err)
	}
	id2, _, _ := w.Create(urnA, map[string]string{"v": "3"})
	if id2 != "a-2" {
		t.Fatalf("second create got ID %q", id2)
	}
	if err := w.Delete(urnA, id); err != nil {
		t.Fatal(err)
	}
	if err := w.Delete(urnA, id); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range append(w.Ledger(0), w.Ledger(1)...) {
		got = append(got, e.String())
	}
	want := []string{
		"create world:index:Thing::a a-1", "update world:index:Thing::a a-1 (failed)", "update world:index:Thing::a a-1 (failed)",
		"update world:index:Thing::a a-1",
		"create world:index:Thing::a a-2", "delete world:index:Thing::a a-1", "delete world:index:Thing::a a-1 (missing)",
	}
	if !slices.Equal(got, want) {
		t.Fatalf("ledger\n%v\nwant\n%v", got, want)
	}
	if live := w.Live(); len(live) != 1 || live["a-2"].Inputs["v"] != "3" {
		t.Fatalf("live %v", live)
	}
}

func TestDiff(t *testing.T) {
	changed, replace := Diff(map[string]string{"v": "1", "rv": "1", "x": "1"}, map[string]string{"v": "2", "rv": Unknown, "y": "1"})
	if !slices.Equal(changed, []string{"rv", "v", "x", "y"}) || !slices.Equal(replace, []string{"rv"}) {
		t.Fatalf("changed %v, replace %v", changed, replace)
	}
	if c, _ := Diff(map[string]string{"v": "1"}, map[string]string{"v": "1"}); len(c) != 0 {
		t.Fatalf("equal inputs changed %v", c)
	}
}
