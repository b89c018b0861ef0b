package main

import (
	"bytes"
	"flag"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// w1At is a W1 measurement at n = 10,000 on the file store.
func w1At(op string, wallMS, cpuMS, rssMB float64, goroutines int) sample {
	return sample{Workload: "W1", N: 10000, Op: op, Store: "file", MedianMS: wallMS, CPUMS: cpuMS, PeakRSSMB: rssMB, AllocsPerResource: 40, PeakGoroutines: goroutines}
}

func TestCompareResults(t *testing.T) {
	tests := []struct {
		name  string
		pairs []pairResult
		want  []Comparison
	}{{
		name: "one pair",
		pairs: []pairResult{
			{old: []sample{w1At("same", 100, 200, 50, 10)}, new: []sample{w1At("same", 110, 180, 55, 4)}},
		},
		want: []Comparison{{Workload: "W1", N: 10000, Op: "same", Store: "file", Pairs: 1,
			Wall: &Ratio{1.1, 1.1, 1.1}, CPU: &Ratio{0.9, 0.9, 0.9}, PeakRSS: &Ratio{1.1, 1.1, 1.1},
			Old: Side{MedianMS: 100, CPUMS: 200, PeakRSSMB: 50, AllocsPerResource: 40, PeakGoroutinesMedian: 10, PeakGoroutinesMax: 10},
			New: Side{MedianMS: 110, CPUMS: 180, PeakRSSMB: 55, AllocsPerResource: 40, PeakGoroutinesMedian: 4, PeakGoroutinesMax: 4}}},
	}, {
		// The median is of the per-pair ratios, not the ratio of the
		// medians: here the sides' medians are equal (100 and 100) but
		// every pair's ratio is at least 1.2 but one.
		name: "odd count: the middle ratio",
		pairs: []pairResult{
			{old: []sample{w1At("create", 100, 100, 10, 1)}, new: []sample{w1At("create", 300, 100, 10, 5)}},
			{old: []sample{w1At("create", 50, 100, 10, 2)}, new: []sample{w1At("create", 60, 100, 10, 7)}},
			{old: []sample{w1At("create", 200, 100, 10, 3)}, new: []sample{w1At("create", 100, 100, 10, 6)}},
		},
		want: []Comparison{{Workload: "W1", N: 10000, Op: "create", Store: "file", Pairs: 3,
			Wall: &Ratio{1.2, 0.5, 3}, CPU: &Ratio{1, 1, 1}, PeakRSS: &Ratio{1, 1, 1},
			Old: Side{MedianMS: 100, CPUMS: 100, PeakRSSMB: 10, AllocsPerResource: 40, PeakGoroutinesMedian: 2, PeakGoroutinesMax: 3},
			New: Side{MedianMS: 100, CPUMS: 100, PeakRSSMB: 10, AllocsPerResource: 40, PeakGoroutinesMedian: 6, PeakGoroutinesMax: 7}}},
	}, {
		name: "even count: the mean of the two middle ratios",
		pairs: []pairResult{
			{old: []sample{w1At("update", 100, 100, 10, 1)}, new: []sample{w1At("update", 100, 110, 10, 10)}},
			{old: []sample{w1At("update", 100, 100, 10, 1)}, new: []sample{w1At("update", 120, 90, 10, 20)}},
			{old: []sample{w1At("update", 100, 100, 10, 1)}, new: []sample{w1At("update", 140, 130, 10, 30)}},
			{old: []sample{w1At("update", 100, 100, 10, 1)}, new: []sample{w1At("update", 200, 100, 10, 41)}},
		},
		want: []Comparison{{Workload: "W1", N: 10000, Op: "update", Store: "file", Pairs: 4,
			Wall: &Ratio{1.3, 1, 2}, CPU: &Ratio{1.05, 0.9, 1.3}, PeakRSS: &Ratio{1, 1, 1},
			Old: Side{MedianMS: 100, CPUMS: 100, PeakRSSMB: 10, AllocsPerResource: 40, PeakGoroutinesMedian: 1, PeakGoroutinesMax: 1},
			New: Side{MedianMS: 130, CPUMS: 105, PeakRSSMB: 10, AllocsPerResource: 40, PeakGoroutinesMedian: 25, PeakGoroutinesMax: 41}}},
	}, {
		name: "several operations keep the new side's order; each side's own order does not matter",
		pairs: []pairResult{
			{old: []sample{w1At("destroy", 100, 100, 10, 1), w1At("create", 100, 100, 10, 1)},
				new: []sample{w1At("create", 200, 100, 10, 1), w1At("destroy", 50, 100, 10, 1)}},
		},
		want: []Comparison{
			{Workload: "W1", N: 10000, Op: "create", Store: "file", Pairs: 1,
				Wall: &Ratio{2, 2, 2}, CPU: &Ratio{1, 1, 1}, PeakRSS: &Ratio{1, 1, 1},
				Old: Side{MedianMS: 100, CPUMS: 100, PeakRSSMB: 10, AllocsPerResource: 40, PeakGoroutinesMedian: 1, PeakGoroutinesMax: 1},
				New: Side{MedianMS: 200, CPUMS: 100, PeakRSSMB: 10, AllocsPerResource: 40, PeakGoroutinesMedian: 1, PeakGoroutinesMax: 1}},
			{Workload: "W1", N: 10000, Op: "destroy", Store: "file", Pairs: 1,
				Wall: &Ratio{0.5, 0.5, 0.5}, CPU: &Ratio{1, 1, 1}, PeakRSS: &Ratio{1, 1, 1},
				Old: Side{MedianMS: 100, CPUMS: 100, PeakRSSMB: 10, AllocsPerResource: 40, PeakGoroutinesMedian: 1, PeakGoroutinesMax: 1},
				New: Side{MedianMS: 50, CPUMS: 100, PeakRSSMB: 10, AllocsPerResource: 40, PeakGoroutinesMedian: 1, PeakGoroutinesMax: 1}},
		},
	}, {
		name: "a zero on the old side leaves that pair out of the ratio, and no ratio where all are zero",
		pairs: []pairResult{
			{old: []sample{w1At("same", 0, 0, 10, 1)}, new: []sample{w1At("same", 1, 0.1, 10, 1)}},
			{old: []sample{w1At("same", 2, 0, 10, 1)}, new: []sample{w1At("same", 3, 0.1, 10, 1)}},
		},
		want: []Comparison{{Workload: "W1", N: 10000, Op: "same", Store: "file", Pairs: 2,
			Wall: &Ratio{1.5, 1.5, 1.5}, CPU: nil, PeakRSS: &Ratio{1, 1, 1},
			Old: Side{MedianMS: 1, CPUMS: 0, PeakRSSMB: 10, AllocsPerResource: 40, PeakGoroutinesMedian: 1, PeakGoroutinesMax: 1},
			New: Side{MedianMS: 2, CPUMS: 0.1, PeakRSSMB: 10, AllocsPerResource: 40, PeakGoroutinesMedian: 1, PeakGoroutinesMax: 1}}},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := compareResults(tt.pairs)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("comparisons (-want +got):\n%s", diff)
			}
		})
	}
}

func TestCompareResultsErrors(t *testing.T) {
	same, create := w1At("same", 1, 1, 1, 1), w1At("create", 1, 1, 1, 1)
	other := same
	other.N = 1000
	tests := []struct {
		name  string
		pairs []pairResult
		want  []string // substrings of the error
	}{
		{"no pairs", nil, []string{"no pairs"}},
		{"an operation only the new side measured",
			[]pairResult{{old: []sample{create}, new: []sample{create, same}}},
			[]string{"pair 1", "the new bench measured W1 same at n=10000 on the file store but the old bench did not"}},
		{"an operation only the old side measured",
			[]pairResult{{old: []sample{create}, new: []sample{create}}, {old: []sample{create, same}, new: []sample{create}}},
			[]string{"pair 2", "the old bench measured W1 same at n=10000 on the file store but the new bench did not"}},
		{"the same operation at another size",
			[]pairResult{{old: []sample{other}, new: []sample{same}}},
			[]string{"the new bench measured W1 same at n=10000 on the file store but the old bench did not"}},
		{"a side that measured nothing",
			[]pairResult{{old: nil, new: []sample{same}}},
			[]string{"pair 1: the old bench reported no measurement"}},
		{"a measurement reported twice",
			[]pairResult{{old: []sample{same}, new: []sample{same, same}}},
			[]string{"the new bench reported W1 same at n=10000 on the file store twice"}},
		{"a measurement that appears in a later pair only",
			[]pairResult{{old: []sample{same}, new: []sample{same}}, {old: []sample{same, create}, new: []sample{same, create}}},
			[]string{"pair 2: W1 create at n=10000 on the file store was not measured in pair 1"}},
		{"a measurement missing from a later pair",
			[]pairResult{{old: []sample{same, create}, new: []sample{same, create}}, {old: []sample{same}, new: []sample{same}}},
			[]string{"W1 create at n=10000 on the file store was measured in 1 of the 2 pairs"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := compareResults(tt.pairs)
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not say %q", err, w)
				}
			}
		})
	}
}

func TestPassedFlags(t *testing.T) {
	tests := []struct {
		args    []string
		want    []string
		wantErr string
	}{
		{[]string{"-against", "/old", "-workload", "W1", "-n", "10000", "-pairs", "4", "-json"},
			[]string{"-n=10000", "-workload=W1", "-runs=1", "-json"}, ""},
		{[]string{"-against", "/old", "-cancellable", "-op", "same", "-store", "memory"},
			[]string{"-cancellable=true", "-op=same", "-store=memory", "-runs=1", "-json"}, ""},
		{[]string{"-against", "/old"}, []string{"-runs=1", "-json"}, ""},
		{[]string{"-against", "/old", "-runs", "3"}, nil, "-runs does not combine with -against"},
		{[]string{"-against", "/old", "-profile", "/tmp/p"}, nil, "-profile does not combine with -against"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			fs := flag.NewFlagSet("bench", flag.ContinueOnError)
			for _, name := range []string{"against", "against-commit", "workload", "op", "n", "store", "profile"} {
				fs.String(name, "", "")
			}
			fs.Int("runs", 3, "")
			fs.Int("pairs", 8, "")
			fs.Bool("json", false, "")
			fs.Bool("cancellable", false, "")
			if err := fs.Parse(tt.args); err != nil {
				t.Fatal(err)
			}
			got, err := passedFlags(fs)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error %v, want one saying %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("flags (-want +got):\n%s", diff)
			}
		})
	}
}

func TestPrintComparisonsTable(t *testing.T) {
	cs := []Comparison{{Workload: "W1", N: 10000, Op: "same", Store: "file", Pairs: 2,
		Wall: &Ratio{1.05, 0.9, 1.2}, CPU: nil, PeakRSS: &Ratio{1, 1, 1},
		Old: Side{AllocsPerResource: 36.3, PeakGoroutinesMedian: 260, PeakGoroutinesMax: 260},
		New: Side{AllocsPerResource: 38.2, PeakGoroutinesMedian: 14.5, PeakGoroutinesMax: 45}}}
	var b bytes.Buffer
	if err := printComparisons(&b, cs, "heading", false); err != nil {
		t.Fatal(err)
	}
	want := "heading\n\n" +
		"| workload | operation | n | wall | CPU | peak RSS | allocs/resource: new (old) | peak goroutines, new: median, highest | old: median, highest |\n" +
		"| --- | --- | --- | --- | --- | --- | --- | --- | --- |\n" +
		"| W1 | same | 10000 | 1.05 (0.90–1.20) | – | 1.00 (1.00–1.00) | 38.2 (36.3) | 14.5, 45 | 260, 260 |\n"
	if diff := cmp.Diff(want, b.String()); diff != "" {
		t.Errorf("table (-want +got):\n%s", diff)
	}
}
