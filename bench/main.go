// Command bench measures the groundwork engine end to end on synthetic
// workloads: programs registered through engine.Context.Register against
// providers written as Go functions (providers.Func), with the state in a
// file store, an in-memory store or PostgreSQL (-store postgres, on the
// server GROUNDWORK_BENCH_POSTGRES or GROUNDWORK_TEST_POSTGRES names).
//
// Usage:
//
//	go run ./bench [-workload W1|W2|W3|W4|W5|all] [-op OP] [-n N]
//	               [-store file|memory|postgres] [-runs R] [-json]
//	go run ./bench -against OLD-BENCH|-against-commit REV [-pairs P]
//	               [workload flags] [-json]
//
// With no flags it runs every workload at a small size, as a smoke run.
// Each measurement (one operation of one run) happens in a child process
// (the binary re-executing itself) so that its peak RSS, allocation count
// and bytes written belong to that operation alone: the state the operation
// starts from is prepared first — in an earlier child for the file store,
// in the same child for the memory store, whose peak RSS is then reset
// through /proc/self/clear_refs before the operation starts.
//
// Each line reports one operation: the median, minimum and maximum wall
// time of the runs; the highest peak RSS; the median heap allocations per
// resource (everything the process allocated during the operation — the
// engine, the store, the program and the no-op provider — divided by n);
// and, for the file store, every byte written to the stack's folder during
// the operation (bytes_persisted, from /proc/self/io) beside the size of
// the snapshot it left. Workloads with a physical floor (W2, W4) report it
// as bound_ms and the median's ratio to it.
//
// With -against (a bench binary) or -against-commit (a commit to build
// one from) it compares two engines: it runs the old bench and itself in
// turn, -pairs times, alternating which goes first, each once with the
// workload flags the user gave plus -runs 1 -json, and prints for each
// measurement the medians of the per-pair ratios new/old of wall time,
// CPU time and peak RSS, and each side's allocations and peak goroutines.
//
// See BENCHMARKS.md at the repository root for the workloads, the targets
// and the figures.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
)

func main() {
	var (
		wlName  = flag.String("workload", "", "workload to run: W1, W2, W3, W4, W5 or all (default: all, at a small size)")
		op      = flag.String("op", "", "run only this operation of the workload (default: all of them)")
		nList   = flag.String("n", "", "number of resources, or a comma-separated list of sizes to measure each operation at in turn, reporting the scaling between them (default: the workload's small size)")
		store   = flag.String("store", "file", "state store: file, memory or postgres")
		runs    = flag.Int("runs", 3, "runs per measurement (each in its own process)")
		asJSON  = flag.Bool("json", false, "print one JSON object per line")
		seed    = flag.Int64("seed", 1, "seed of W5's random graph")
		profile = flag.String("profile", "", "write each measured operation's CPU and allocation profiles to this folder")
		cancel  = flag.Bool("cancellable", false, "run each operation under a context that can be cancelled, as gw does (the engine then bounds each provider call)")
		child   = flag.String("child", "", "internal: run one phase of a measurement in this process")
		against = flag.String("against", "", "compare with the bench binary at this path: run it and this one in turn, -pairs times, with the same flags, and print new/old ratios")
		commit  = flag.String("against-commit", "", "compare with the bench built from this commit of the current repository (as -against)")
		pairs   = flag.Int("pairs", 8, "with -against: how many times to run each side, alternating which goes first")
	)
	flag.Usage = usage
	flag.Parse()

	if *child != "" {
		if err := runChild(*child); err != nil {
			fmt.Fprintln(os.Stderr, "bench child:", err)
			os.Exit(1)
		}
		return
	}
	if flag.NArg() > 0 {
		fail("unexpected arguments %q", flag.Args())
	}
	if *against != "" || *commit != "" {
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
		err := runComparison(ctx, flag.CommandLine, *against, *commit, *pairs, *asJSON)
		stop()
		if err != nil {
			fmt.Fprintln(os.Stderr, "bench:", err)
			os.Exit(1)
		}
		return
	}
	if isSet("pairs") {
		fail("-pairs needs -against or -against-commit")
	}
	if *profile != "" {
		if err := os.MkdirAll(*profile, 0o755); err != nil {
			fail("%v", err)
		}
		abs, err := filepath.Abs(*profile)
		if err != nil {
			fail("%v", err)
		}
		*profile = abs
	}
	if *store != "file" && *store != "memory" && *store != "postgres" {
		fail("-store must be file, memory or postgres, not %q", *store)
	}
	if *runs < 1 {
		fail("-runs must be at least 1")
	}
	sizes, err := parseSizes(*nList)
	if err != nil {
		fail("-n: %v", err)
	}
	var selected []*workload
	switch strings.ToUpper(*wlName) {
	case "", "ALL":
		selected = workloads
	default:
		w := findWorkload(*wlName)
		if w == nil {
			fail("unknown workload %q (want W1, W2, W3, W4, W5 or all)", *wlName)
		}
		selected = []*workload{w}
	}
	out := newPrinter(os.Stdout, *asJSON)
	failed := false
	for _, w := range selected {
		ops := w.ops
		if *op != "" {
			if !w.hasOp(*op) {
				fail("workload %s has no operation %q (it has %s)", w.name, *op, strings.Join(w.ops, ", "))
			}
			ops = []string{*op}
		}
		ns := sizes
		if len(ns) == 0 {
			ns = []int{w.smallN}
		}
		st := *store
		if w.fileOnly && st == "memory" {
			fail("workload %s measures what a store persists; drop -store %s", w.name, st)
		}
		for _, o := range ops {
			var prev *Measurement
			for _, size := range ns {
				m, err := measure(spec{Workload: w.name, Op: o, N: size, Store: st, Seed: *seed, Cancellable: *cancel}, *runs, *profile)
				if err != nil {
					fmt.Fprintf(os.Stderr, "bench: %s %s n=%d: %v\n", w.name, o, size, err)
					failed = true
					continue
				}
				if prev != nil {
					m.setScaling(prev)
				}
				out.print(m)
				prev = m
			}
		}
	}
	if failed {
		os.Exit(1)
	}
}

// parseSizes reads -n: empty, one size or a comma-separated list of them,
// returned in ascending order.
func parseSizes(s string) ([]int, error) {
	if s == "" {
		return nil, nil
	}
	var out []int
	for _, f := range strings.Split(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 {
			return nil, fmt.Errorf("%q is not a positive number of resources", f)
		}
		out = append(out, n)
	}
	slices.Sort(out)
	return slices.Compact(out), nil
}

// isSet reports whether the flag was given on the command line.
func isSet(name string) bool {
	set := false
	flag.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}

func usage() {
	fmt.Fprintf(flag.CommandLine.Output(), "usage: go run ./bench [flags]\n\n")
	flag.VisitAll(func(f *flag.Flag) {
		if f.Name == "child" {
			return
		}
		fmt.Fprintf(flag.CommandLine.Output(), "  -%s\n    \t%s", f.Name, f.Usage)
		if f.DefValue != "" && f.DefValue != "false" && f.DefValue != "0" {
			fmt.Fprintf(flag.CommandLine.Output(), " (default %s)", f.DefValue)
		}
		fmt.Fprintln(flag.CommandLine.Output())
	})
}

func fail(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "bench: "+format+"\n", args...)
	os.Exit(2)
}

// printer writes measurements as text or JSON lines.
type printer struct {
	f      *os.File
	asJSON bool
}

func newPrinter(f *os.File, asJSON bool) *printer { return &printer{f: f, asJSON: asJSON} }

func (p *printer) print(m *Measurement) {
	if p.asJSON {
		b, _ := json.Marshal(m)
		fmt.Fprintln(p.f, string(b))
		return
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%-3s %-15s n=%-6d store=%-6s runs=%d  median=%8.1fms  min=%8.1fms  max=%8.1fms  cpu=%8.1fms (sys %.1f, gc %.1f in %d cycles, %d faults)  rss=%6.1fMB  allocs/res=%7.1f (program %.1f)  goroutines=%d (stacks %.1fMB)",
		m.Workload, m.Op, m.N, m.Store, m.Runs, m.MedianMS, m.MinMS, m.MaxMS, m.CPUMS, m.SysCPUMS, m.GCCPUMS, m.GCCycles, m.PageFaults,
		m.PeakRSSMB, m.AllocsPerResource, m.ProgramAllocsPerResource, m.PeakGoroutines, m.PeakStackMB)
	if m.BytesPersisted != nil {
		fmt.Fprintf(&b, "  persisted=%s", bytesString(*m.BytesPersisted))
		if m.SnapshotBytes != nil && *m.SnapshotBytes >= 4096 {
			fmt.Fprintf(&b, " (%.2f× the %s snapshot)", float64(*m.BytesPersisted)/float64(*m.SnapshotBytes), bytesString(*m.SnapshotBytes))
		}
	}
	if m.ScalingFromN != 0 {
		fmt.Fprintf(&b, "  scaling from n=%d: %.2fx (cpu %.2fx)", m.ScalingFromN, m.ScalingRatio, m.ScalingCPURatio)
	}
	if m.BoundMS != nil {
		fmt.Fprintf(&b, "  bound=%.0fms ratio=%.3f", *m.BoundMS, *m.RatioToBound)
		if m.ProviderPathMS != nil {
			fmt.Fprintf(&b, " (provider's own path %.1fms, engine overhead %.1fms", *m.ProviderPathMS, *m.EngineOverheadMS)
			if m.OverheadStartMS != nil {
				fmt.Fprintf(&b, ": %.1fms before the first Create, %.1fms after the last", *m.OverheadStartMS, *m.OverheadEndMS)
			}
			b.WriteString(")")
		}
	}
	if m.Antichains != nil {
		fmt.Fprintf(&b, "  antichains=%d order=%s", *m.Antichains, map[bool]string{true: "ok", false: "VIOLATED"}[*m.OrderOK])
	}
	fmt.Fprintf(&b, "  load=%.1f", m.LoadAvg)
	fmt.Fprintln(p.f, b.String())
}

func bytesString(n int64) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.2fMiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1fKiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%dB", n)
}
