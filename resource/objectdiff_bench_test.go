package resource_test

import (
	"testing"

	"github.com/groundwork-iac/groundwork/resource"
)

// w1Inputs are the inputs of one resource of the engine's W1 workload (see
// BENCHMARKS.md): four small strings.
func w1Inputs(gen string) resource.PropertyMap {
	return resource.PropertyMap{
		"alpha": resource.NewString("a-r42-" + gen), "beta": resource.NewString("b-r42-" + gen),
		"gamma": resource.NewString("c-" + gen), "delta": resource.NewString("d-" + gen),
	}
}

// BenchmarkDiffW1 diffs the inputs of a W1 resource as a provider's Diff
// and the step generator's fallback do: unchanged (DeepEquals, then Diff)
// and with every input changed (Diff and the detailed diff built from it).
func BenchmarkDiffW1(b *testing.B) {
	b.Run("same", func(b *testing.B) {
		old, news := w1Inputs("0"), w1Inputs("0")
		b.ReportAllocs()
		for b.Loop() {
			if !old.DeepEquals(news) || old.Diff(news) != nil {
				b.Fatal("maps differ")
			}
		}
	})
	b.Run("changed", func(b *testing.B) {
		old, news := w1Inputs("0"), w1Inputs("1")
		b.ReportAllocs()
		for b.Loop() {
			d := old.Diff(news)
			if len(d.ChangedKeys()) != 4 || len(resource.DetailedDiffFromObjectDiff(d, true)) != 4 {
				b.Fatal("wrong diff")
			}
		}
	})
	b.Run("changed-keys", func(b *testing.B) {
		old, news := w1Inputs("0"), w1Inputs("1")
		b.ReportAllocs()
		for b.Loop() {
			if len(old.ChangedKeys(news)) != 4 {
				b.Fatal("wrong keys")
			}
		}
	})
}
