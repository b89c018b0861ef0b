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
