// Package conformance runs the differential conformance suite: programs
// generated from seeds (package gen), each run through Pulumi's engine and
// through groundwork (package drive), compared run by run (package
// compare), with the differences that are expected — deliberate ones
// COMPATIBILITY.md lists, and pending ones — recognised and counted
// (known.go), and the others reduced to minimal programs (package reduce)
// and checked in under testdata/regressions.
//
// TESTING.md ("The differential conformance suite") says how to run the
// campaigns.
package conformance

import (
	"context"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/pulumi/pulumi/pkg/v3/engine/lifecycletest/framework"

	"github.com/groundwork-iac/groundwork/conformance/compare"
	"github.com/groundwork-iac/groundwork/conformance/drive"
	"github.com/groundwork-iac/groundwork/conformance/gen"
	"github.com/groundwork-iac/groundwork/conformance/reduce"
	"github.com/groundwork-iac/groundwork/conformance/spec"
)

// Outcome is what checking one program found.
type Outcome struct {
	Program    *spec.Program
	Reference  *drive.Trace
	Groundwork *drive.Trace
	*compare.Result
}

// Check runs p through both engines and compares them, recognising the
// known differences.
func Check(ctx context.Context, tb framework.TB, p *spec.Program) *Outcome {
	ref := drive.Pulumi(tb, p)
	gw := drive.Groundwork(ctx, p)
	return &Outcome{Program: p, Reference: ref, Groundwork: gw, Result: compare.Compare(p, ref, gw, explainer(p, ref, gw))}
}

// Signature is a short description of o's first unexplained difference
// with names, IDs and values masked, so that programs showing the same
// problem group together.
func (o *Outcome) Signature() string {
	if len(o.Differences) == 0 {
		return ""
	}
	d := o.Differences[0]
	s := d.Kind + ": " + d.Detail
	for _, re := range masks {
		s = re.ReplaceAllString(s, "_")
	}
	if len(s) > 140 {
		s = s[:140] + "…"
	}
	return s
}

var masks = []*regexp.Regexp{
	regexp.MustCompile(`[a-z0-9_-]+-\d+\.[0-9a-f]{8}`), // outputs
	regexp.MustCompile(`\b[a-z0-9_-]+-\d+\b`),          // IDs
	regexp.MustCompile(`::[a-z0-9_-]+\b`),              // names
	regexp.MustCompile(`\bv\d+\b`),                     // values
	regexp.MustCompile(`\bup \d+`),                     // runs
}

// Campaign is a run of many generated programs.
type Campaign struct {
	// Seed is the first program's seed; program k has seed Seed+k.
	Seed     int64
	Programs int
	// Features, if set, is every program's; otherwise each program draws
	// its own from its seed (gen.Random), so that a campaign covers
	// their combinations.
	Features *gen.Features
	// Workers bounds the programs checked at once (default 2).
	Workers int
	// FixedSchedule runs every program on the default schedule instead
	// of one drawn from its seed (DrawSchedule).
	FixedSchedule bool
	// Reruns is how many times a program that shows an unexplained
	// difference is checked again (Finding.Reproduced).
	Reruns int
	// Concurrent registers each program's resources concurrently
	// (spec.Schedule.Concurrent): the engines then see different orders,
	// so only the invariants each keeps on its own (Report.Broken) count.
	Concurrent bool
}

// Finding is a program that showed an unexplained difference.
type Finding struct {
	Seed     int64
	Features gen.Features
	*Outcome
	// Reproduced counts the reruns (of Campaign.Reruns) that showed an
	// unexplained difference again.
	Reproduced int
}

// Report is what a campaign found.
type Report struct {
	Programs int
	// Clean counts the programs that showed no difference at all.
	Clean int
	// Known counts, by name, the programs that showed each known
	// difference; KnownSeeds lists their seeds.
	Known      map[string]int
	KnownSeeds map[string][]int64
	// Findings are the programs with an unexplained difference, by seed.
	Findings []Finding
	// Broken maps the seed of each program in which groundwork broke an
	// invariant (compare.Invariants), whether the reference engine broke
	// it too or not, to the first it broke; ReferenceBroken is the same
	// for the reference engine. Only the runs compared count.
	Broken, ReferenceBroken map[int64]string
}

// Run checks the campaign's programs.
func (c Campaign) Run(ctx context.Context, tb framework.TB) *Report {
	workers := c.Workers
	if workers <= 0 {
		workers = 2
	}
	rep := &Report{Programs: c.Programs, Known: map[string]int{}, KnownSeeds: map[string][]int64{},
		Broken: map[int64]string{}, ReferenceBroken: map[int64]string{}}
	var mu sync.Mutex
	var wg sync.WaitGroup
	next := make(chan int64)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for seed := range next {
				f := gen.Random(seed)
				if c.Features != nil {
					f = *c.Features
				}
				p := gen.Generate(seed, gen.Config{Features: f})
				if !c.FixedSchedule {
					p.Schedule = DrawSchedule(seed)
				}
				if c.Concurrent {
					if p.Schedule == nil {
						p.Schedule = &spec.Schedule{}
					}
					p.Schedule.Concurrent = true
				}
				o := Check(ctx, tb, p)
				again := 0
				if len(o.Differences) > 0 && !c.Concurrent {
					again = rerun(ctx, tb, p, c.Reruns)
				}
				last := o.Run // runs after it start from other states
				if c.Concurrent {
					last = -1 // each engine keeps the invariants on its own
				}
				mu.Lock()
				rep.add(seed, f, o, again, last)
				mu.Unlock()
			}
		}()
	}
	for k := 0; k < c.Programs && ctx.Err() == nil; k++ {
		next <- c.Seed + int64(k)
	}
	close(next)
	wg.Wait()
	sort.Slice(rep.Findings, func(i, j int) bool { return rep.Findings[i].Seed < rep.Findings[j].Seed })
	return rep
}

func (r *Report) add(seed int64, f gen.Features, o *Outcome, reproduced, last int) {
	for _, name := range o.KnownNames() {
		r.Known[name]++
		r.KnownSeeds[name] = append(r.KnownSeeds[name], seed)
	}
	if v := firstBroken(o.Groundwork, last); v != "" {
		r.Broken[seed] = v
	}
	if v := firstBroken(o.Reference, last); v != "" {
		r.ReferenceBroken[seed] = v
	}
	switch {
	case len(o.Differences) > 0:
		r.Findings = append(r.Findings, Finding{Seed: seed, Features: f, Outcome: o, Reproduced: reproduced})
	case len(o.Known) == 0:
		r.Clean++
	}
}

// Deliberate counts the programs that showed a difference COMPATIBILITY.md
// lists (a program showing two counts once per difference).
func (r *Report) Deliberate() int {
	n := 0
	for _, k := range knownDifferences {
		if k.deliberate {
			n += r.Known[k.name]
		}
	}
	return n
}

// String summarizes the report.
func (r *Report) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d programs: %d with no difference, %d with an unexplained difference\n",
		r.Programs, r.Clean, len(r.Findings))
	for _, k := range knownDifferences {
		if n := r.Known[k.name]; n > 0 {
			kind := "pending"
			if k.deliberate {
				kind = "deliberate (COMPATIBILITY.md)"
			}
			seeds := slices.Sorted(slices.Values(r.KnownSeeds[k.name]))
			fmt.Fprintf(&b, "  known, %s: %s: %d programs (1 in %.0f; seeds %v)\n", kind, k.name, n, float64(r.Programs)/float64(n), seeds)
		}
	}
	for _, x := range []struct {
		engine string
		broken map[int64]string
	}{{"groundwork", r.Broken}, {"the reference engine", r.ReferenceBroken}} {
		for _, seed := range slices.Sorted(maps.Keys(x.broken)) {
			fmt.Fprintf(&b, "  %s broke an invariant in seed %d: %s\n", x.engine, seed, x.broken[seed])
		}
	}
	groups := map[string][]int64{}
	for _, f := range r.Findings {
		groups[f.Signature()] = append(groups[f.Signature()], f.Seed)
	}
	sigs := make([]string, 0, len(groups))
	for s := range groups {
		sigs = append(sigs, s)
	}
	slices.SortFunc(sigs, func(a, b string) int { return len(groups[b]) - len(groups[a]) })
	for _, s := range sigs {
		seeds := groups[s]
		fmt.Fprintf(&b, "  %d × %s (seeds %v)\n", len(seeds), s, seeds[:min(len(seeds), 8)])
	}
	return b.String()
}

// Reduce shrinks o's program to a minimal one that still shows an
// unexplained difference of the same kind, within budget checks.
func Reduce(ctx context.Context, tb framework.TB, o *Outcome, budget int) *Outcome {
	kind := o.Differences[0].Kind
	var last *Outcome
	keep := func(p *spec.Program) bool {
		c := Check(ctx, tb, p)
		if len(c.Differences) > 0 && c.Differences[0].Kind == kind {
			last = c
			return true
		}
		return false
	}
	small := reduce.Reduce(o.Program, keep, budget)
	if last == nil || last.Program != small {
		last = Check(ctx, tb, small)
	}
	return last
}
