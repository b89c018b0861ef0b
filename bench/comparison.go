package main

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
)

// sample is what a comparison reads of one line of `bench -json`: the
// fields every version of the command prints.
type sample struct {
	Workload          string  `json:"workload"`
	N                 int     `json:"n"`
	Op                string  `json:"op"`
	Store             string  `json:"store"`
	MedianMS          float64 `json:"median_ms"`
	CPUMS             float64 `json:"cpu_ms"`
	PeakRSSMB         float64 `json:"peak_rss_mb"`
	AllocsPerResource float64 `json:"allocs_per_resource"`
	PeakGoroutines    int     `json:"peak_goroutines"`
	LoadAvg           float64 `json:"load_avg"`
}

// measured names one measurement a side reports: an operation of a
// workload at a size on a store.
type measured struct {
	workload, op, store string
	n                   int
}

func (s sample) key() measured {
	return measured{workload: s.Workload, op: s.Op, store: s.Store, n: s.N}
}

func (k measured) String() string {
	return fmt.Sprintf("%s %s at n=%d on the %s store", k.workload, k.op, k.n, k.store)
}

// pairResult is one round of a comparison: what the old and the new bench
// each reported when run once, one after the other.
type pairResult struct {
	old, new []sample
}

// Ratio summarises one figure's new/old ratios over the pairs: their
// median (the mean of the two middle ones for an even count) and range.
type Ratio struct {
	Median float64 `json:"median"`
	Min    float64 `json:"min"`
	Max    float64 `json:"max"`
}

// Side is what one bench reported for one measurement over all the pairs:
// the medians of its figures, and the median and highest of its peak
// goroutine counts.
type Side struct {
	MedianMS             float64 `json:"median_ms"`
	CPUMS                float64 `json:"cpu_ms"`
	PeakRSSMB            float64 `json:"peak_rss_mb"`
	AllocsPerResource    float64 `json:"allocs_per_resource"`
	PeakGoroutinesMedian float64 `json:"peak_goroutines_median"`
	PeakGoroutinesMax    int     `json:"peak_goroutines_max"`
}

// Comparison is one measurement compared across the pairs: an output line
// of `bench -against ... -json`. A ratio is nil where the old side's figure
// was zero in every pair.
type Comparison struct {
	Workload string `json:"workload"`
	N        int    `json:"n"`
	Op       string `json:"op"`
	Store    string `json:"store"`
	Pairs    int    `json:"pairs"`
	Wall     *Ratio `json:"wall_ratio"`
	CPU      *Ratio `json:"cpu_ratio"`
	PeakRSS  *Ratio `json:"peak_rss_ratio"`
	Old      Side   `json:"old"`
	New      Side   `json:"new"`
}

// compareResults pairs each measurement of the new side with the old
// side's in the same round and summarises every figure over the rounds.
// Both sides must report the same measurements in every round; the
// comparisons come in the order the new side reported them.
func compareResults(pairs []pairResult) ([]Comparison, error) {
	if len(pairs) == 0 {
		return nil, fmt.Errorf("no pairs to compare")
	}
	type both struct{ old, new []sample }
	byKey := map[measured]*both{}
	var order []measured
	for i, p := range pairs {
		old, err := index(p.old)
		if err != nil {
			return nil, fmt.Errorf("pair %d: the old bench %w", i+1, err)
		}
		cur, err := index(p.new)
		if err != nil {
			return nil, fmt.Errorf("pair %d: the new bench %w", i+1, err)
		}
		if err := sameMeasurements(old, cur); err != nil {
			return nil, fmt.Errorf("pair %d: %w", i+1, err)
		}
		for _, s := range p.new {
			k := s.key()
			b := byKey[k]
			if b == nil {
				if i > 0 {
					return nil, fmt.Errorf("pair %d: %s was not measured in pair 1", i+1, k)
				}
				b = &both{}
				byKey[k] = b
				order = append(order, k)
			}
			b.old = append(b.old, old[k])
			b.new = append(b.new, s)
		}
	}
	out := make([]Comparison, 0, len(order))
	for _, k := range order {
		b := byKey[k]
		if len(b.new) != len(pairs) {
			return nil, fmt.Errorf("%s was measured in %d of the %d pairs", k, len(b.new), len(pairs))
		}
		out = append(out, Comparison{
			Workload: k.workload, N: k.n, Op: k.op, Store: k.store, Pairs: len(pairs),
			Wall:    ratios(b.old, b.new, func(s sample) float64 { return s.MedianMS }),
			CPU:     ratios(b.old, b.new, func(s sample) float64 { return s.CPUMS }),
			PeakRSS: ratios(b.old, b.new, func(s sample) float64 { return s.PeakRSSMB }),
			Old:     summarizeSide(b.old),
			New:     summarizeSide(b.new),
		})
	}
	return out, nil
}

// index maps one side's samples of a round by what they measure.
func index(samples []sample) (map[measured]sample, error) {
	if len(samples) == 0 {
		return nil, fmt.Errorf("reported no measurement")
	}
	m := make(map[measured]sample, len(samples))
	for _, s := range samples {
		k := s.key()
		if _, dup := m[k]; dup {
			return nil, fmt.Errorf("reported %s twice", k)
		}
		m[k] = s
	}
	return m, nil
}

// sameMeasurements reports the first measurement one side has and the
// other lacks.
func sameMeasurements(old, cur map[measured]sample) error {
	for _, side := range []struct {
		has, lacks       map[measured]sample
		hasName, lacking string
	}{{cur, old, "new", "old"}, {old, cur, "old", "new"}} {
		var missing []string
		for k := range side.has {
			if _, ok := side.lacks[k]; !ok {
				missing = append(missing, k.String())
			}
		}
		if len(missing) > 0 {
			slices.Sort(missing)
			return fmt.Errorf("the %s bench measured %s but the %s bench did not: both must measure the same workloads and operations",
				side.hasName, strings.Join(missing, ", "), side.lacking)
		}
	}
	return nil
}

// ratios returns the summary of new/old of one figure over the pairs,
// leaving out pairs where the old figure is zero; nil if that is all of
// them.
func ratios(old, cur []sample, figure func(sample) float64) *Ratio {
	var rs []float64
	for i := range old {
		if o := figure(old[i]); o > 0 {
			rs = append(rs, figure(cur[i])/o)
		}
	}
	if len(rs) == 0 {
		return nil
	}
	slices.Sort(rs)
	return &Ratio{Median: round2(medianOf(rs)), Min: round2(rs[0]), Max: round2(rs[len(rs)-1])}
}

func summarizeSide(ss []sample) Side {
	pick := func(figure func(sample) float64) float64 {
		v := make([]float64, len(ss))
		for i, s := range ss {
			v[i] = figure(s)
		}
		slices.Sort(v)
		return round1(medianOf(v))
	}
	side := Side{
		MedianMS:             pick(func(s sample) float64 { return s.MedianMS }),
		CPUMS:                pick(func(s sample) float64 { return s.CPUMS }),
		PeakRSSMB:            pick(func(s sample) float64 { return s.PeakRSSMB }),
		AllocsPerResource:    pick(func(s sample) float64 { return s.AllocsPerResource }),
		PeakGoroutinesMedian: pick(func(s sample) float64 { return float64(s.PeakGoroutines) }),
	}
	for _, s := range ss {
		side.PeakGoroutinesMax = max(side.PeakGoroutinesMax, s.PeakGoroutines)
	}
	return side
}

// medianOf returns the median of sorted, non-empty values: the middle one,
// or the mean of the two middle ones for an even count.
func medianOf(sorted []float64) float64 {
	n := len(sorted)
	if n%2 == 1 {
		return sorted[n/2]
	}
	return (sorted[n/2-1] + sorted[n/2]) / 2
}

// printComparisons writes the comparisons as one JSON object per line, or
// as a Markdown table under a line naming the two sides.
func printComparisons(w io.Writer, cs []Comparison, heading string, asJSON bool) error {
	if asJSON {
		enc := json.NewEncoder(w)
		for _, c := range cs {
			if err := enc.Encode(c); err != nil {
				return err
			}
		}
		return nil
	}
	var b strings.Builder
	b.WriteString(heading + "\n\n")
	b.WriteString("| workload | operation | n | wall | CPU | peak RSS | allocs/resource: new (old) | peak goroutines, new: median, highest | old: median, highest |\n")
	b.WriteString("| --- | --- | --- | --- | --- | --- | --- | --- | --- |\n")
	for _, c := range cs {
		fmt.Fprintf(&b, "| %s | %s | %d | %s | %s | %s | %.1f (%.1f) | %s, %d | %s, %d |\n",
			c.Workload, c.Op, c.N, c.Wall, c.CPU, c.PeakRSS,
			c.New.AllocsPerResource, c.Old.AllocsPerResource,
			countString(c.New.PeakGoroutinesMedian), c.New.PeakGoroutinesMax,
			countString(c.Old.PeakGoroutinesMedian), c.Old.PeakGoroutinesMax)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// String formats a ratio as its median and range, or a dash for none.
func (r *Ratio) String() string {
	if r == nil {
		return "–"
	}
	return fmt.Sprintf("%.2f (%.2f–%.2f)", r.Median, r.Min, r.Max)
}

// countString formats a median count: whole, or with the half an even
// number of pairs can give.
func countString(f float64) string {
	if f == float64(int64(f)) {
		return fmt.Sprintf("%d", int64(f))
	}
	return fmt.Sprintf("%.1f", f)
}
