package conformance

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/groundwork-iac/groundwork/conformance/spec"
)

// TestRegressions replays the reduced programs of the differences found and
// fixed: both engines must agree on each, with no difference at all.
func TestRegressions(t *testing.T) {
	files, err := filepath.Glob("testdata/regressions/*.json")
	if err != nil {
		t.Fatal(err)
	}
	for _, file := range files {
		t.Run(strings.TrimSuffix(filepath.Base(file), ".json"), func(t *testing.T) {
			p, err := spec.Load(file)
			if err != nil {
				t.Fatal(err)
			}
			o := Check(context.Background(), quiet{t}, p)
			if len(o.Differences) > 0 || len(o.Known) > 0 {
				t.Errorf("the engines differ on\n%s%s%v", p.Describe(), differences(o), o.Known)
			}
		})
	}
}

// TestDeliberateDifferences replays, for each deliberate difference
// COMPATIBILITY.md lists, a program that shows it: the comparer must
// recognise it there, and find nothing else.
func TestDeliberateDifferences(t *testing.T) {
	for _, k := range knownDifferences {
		if !k.deliberate {
			continue
		}
		t.Run(k.name, func(t *testing.T) {
			p, err := spec.Load(filepath.Join("testdata", "deliberate", k.name+".json"))
			if err != nil {
				t.Fatal(err)
			}
			o := Check(context.Background(), quiet{t}, p)
			if len(o.Differences) > 0 || len(o.KnownNames()) != 1 || o.KnownNames()[0] != k.name {
				t.Errorf("want only %s on\n%s\ngot%s%v", k.name, p.Describe(), differences(o), o.KnownNames())
			}
		})
	}
}

// TestKnownDifferencesByCause replays reduced programs that show a known
// difference in a form its recogniser must match by its cause (a failed
// injected delete where the usual form has a missing object, a copy let
// go through retain-on-delete, ...): each must show that difference and
// nothing else. A program whose difference depends on the schedule
// (sometimes) may also show none.
func TestKnownDifferencesByCause(t *testing.T) {
	tests := []struct {
		file, name string
		sometimes  bool
	}{
		{"double-delete-after-interrupted-dbr-failed", "double-delete-after-interrupted-dbr", false},
		{"protected-dependency-copies-kept-retained", "protected-dependency-copies-kept", false},
		{"protected-dependency-copies-kept-dependency", "protected-dependency-copies-kept", false},
		{"snapshot-check-fails-on-parent-and-child-retyped", "snapshot-check-fails-on-parent-and-child-renames", false},
		{"deletes-beside-a-failure-failed-steps", "deletes-beside-a-failure-under-bounded-parallelism", true},
		{"deletes-beside-a-failure-other-copy", "deletes-beside-a-failure-under-bounded-parallelism", true},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			p, err := spec.Load(filepath.Join("testdata", "known", tt.file+".json"))
			if err != nil {
				t.Fatal(err)
			}
			o := Check(context.Background(), quiet{t}, p)
			names := o.KnownNames()
			if len(o.Differences) > 0 || len(names) > 1 || (len(names) == 1 && names[0] != tt.name) || (len(names) == 0 && !tt.sometimes) {
				t.Errorf("want only %s on\n%s\ngot%s%v", tt.name, p.Describe(), differences(o), names)
			}
		})
	}
}
