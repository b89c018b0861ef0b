package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// spec names one measurement: an operation of a workload at a size.
type spec struct {
	Workload string `json:"workload"`
	Op       string `json:"op"`
	N        int    `json:"n"`
	Store    string `json:"store"`
	Seed     int64  `json:"seed"`
	// Cancellable runs the operation under a context that can be
	// cancelled (as gw's is), where the engine bounds each provider call.
	Cancellable bool `json:"cancellable,omitempty"`
	// Phase is "setup" (prepare the state the operation starts from, in
	// Dir) or "measure" (prepare it too if the store is in memory, then
	// run and measure the operation). Set by the parent.
	Phase string `json:"phase,omitempty"`
	Dir   string `json:"dir,omitempty"`
	// Profile, if set, is a path prefix: the measuring child writes the
	// operation's CPU profile to Profile+".cpu.pprof" and its allocation
	// profile to Profile+".allocs.pprof".
	Profile string `json:"profile,omitempty"`
}

// Measurement is one output line: an operation measured over several runs.
type Measurement struct {
	Workload string  `json:"workload"`
	N        int     `json:"n"`
	Op       string  `json:"op"`
	Store    string  `json:"store"`
	Runs     int     `json:"runs"`
	MedianMS float64 `json:"median_ms"`
	MinMS    float64 `json:"min_ms"`
	MaxMS    float64 `json:"max_ms"`
	// CPUMS is the median CPU time (user and system, all threads) the
	// operation took: beside the wall time it shows whether the
	// operation waits or computes.
	CPUMS float64 `json:"cpu_ms"`
	// SysCPUMS is the system (kernel) part of CPUMS, PageFaults the minor
	// page faults the operation caused (first touches of fresh memory,
	// most of the system time), GCCycles the garbage collections it ran
	// and GCCPUMS the CPU the runtime counts for them: medians, showing
	// how much of an operation is the memory it allocates.
	SysCPUMS          float64 `json:"sys_cpu_ms"`
	PageFaults        int64   `json:"page_faults"`
	GCCycles          uint32  `json:"gc_cycles"`
	GCCPUMS           float64 `json:"gc_cpu_ms"`
	PeakRSSMB         float64 `json:"peak_rss_mb"`
	AllocsPerResource float64 `json:"allocs_per_resource"`
	// ProgramAllocsPerResource is the part of AllocsPerResource the
	// benchmark's own program makes building each registration's inputs
	// (measured by building them without registering): the engine's own
	// allocations are the difference, EngineAllocsPerResource.
	ProgramAllocsPerResource float64 `json:"program_allocs_per_resource"`
	EngineAllocsPerResource  float64 `json:"engine_allocs_per_resource"`
	// BytesPerResource is the median of bytes allocated per resource.
	BytesPerResource float64 `json:"alloc_bytes_per_resource"`
	// BytesPersisted counts what the operation wrote to the stack's
	// folder; nil for the memory store.
	BytesPersisted *int64 `json:"bytes_persisted"`
	// SnapshotBytes is the size of the snapshot the operation left; nil
	// for the memory store.
	SnapshotBytes *int64 `json:"snapshot_bytes,omitempty"`
	// PersistedToSnapshot is BytesPersisted over SnapshotBytes.
	PersistedToSnapshot *float64 `json:"persisted_to_snapshot,omitempty"`
	BoundMS             *float64 `json:"bound_ms,omitempty"`
	RatioToBound        *float64 `json:"ratio_to_bound,omitempty"`
	// ProviderPathMS is, for W2, the median time the provider itself took
	// along the longest chain (its sleeps, the timer's lateness included),
	// and EngineOverheadMS the median of each run's wall time minus it:
	// what the engine adds to the chain.
	ProviderPathMS   *float64 `json:"provider_path_ms,omitempty"`
	EngineOverheadMS *float64 `json:"engine_overhead_ms,omitempty"`
	// OverheadStartMS and OverheadEndMS split the overhead: the median
	// time from the operation's start to the first Create (opening the
	// store, the program's first registrations, the journal's first
	// durable begin) and from the last Create's end to the operation's
	// end (the last step's record, the final snapshot, closing). The rest
	// is spent between the levels of the chains.
	OverheadStartMS *float64 `json:"overhead_start_ms,omitempty"`
	OverheadEndMS   *float64 `json:"overhead_end_ms,omitempty"`
	// Antichains and OrderOK report, for W5, how many antichains the
	// deletes (or creates) formed and whether every provider call saw its
	// dependencies present (creates) or its dependents gone, antichain by
	// antichain (deletes).
	Antichains *int  `json:"antichains,omitempty"`
	OrderOK    *bool `json:"order_ok,omitempty"`
	GOMAXPROCS int   `json:"gomaxprocs"`
	// PeakGoroutines is the most goroutines seen alive during the
	// operation (sampled every millisecond), over all runs.
	PeakGoroutines int `json:"peak_goroutines"`
	// PeakStackMB is the most memory goroutine stacks held at once.
	PeakStackMB float64 `json:"peak_stack_mb"`
	// LoadAvg is the machine's one-minute load average when the
	// measurement began: on a shared machine, a figure taken under load
	// is not comparable with one taken on an idle machine.
	LoadAvg float64 `json:"load_avg"`
	// ScalingFromN, ScalingRatio and ScalingCPURatio compare this
	// measurement with the same operation at a smaller size measured just
	// before it (-n with several sizes): median wall time and median CPU
	// time, this one over that one.
	ScalingFromN    int     `json:"scaling_from_n,omitempty"`
	ScalingRatio    float64 `json:"scaling_ratio,omitempty"`
	ScalingCPURatio float64 `json:"scaling_cpu_ratio,omitempty"`
}

func (m *Measurement) setScaling(smaller *Measurement) {
	m.ScalingFromN = smaller.N
	if smaller.MedianMS > 0 {
		m.ScalingRatio = round2(m.MedianMS / smaller.MedianMS)
	}
	if smaller.CPUMS > 0 {
		m.ScalingCPURatio = round2(m.CPUMS / smaller.CPUMS)
	}
}

// childResult is what a measuring child reports on its stdout.
type childResult struct {
	Nanos         int64  `json:"nanos"`
	CPUNanos      int64  `json:"cpu_nanos"`
	SysNanos      int64  `json:"sys_nanos"`
	PageFaults    int64  `json:"page_faults"`
	GCCycles      uint32 `json:"gc_cycles"`
	GCCPUNanos    int64  `json:"gc_cpu_nanos"`
	Goroutines    int    `json:"goroutines"`
	StackBytes    uint64 `json:"stack_bytes"`
	PeakRSSKB     int64  `json:"peak_rss_kb"`
	RSSReset      bool   `json:"rss_reset"`
	Mallocs       uint64 `json:"mallocs"`
	ProgramMalloc uint64 `json:"program_mallocs"`
	AllocBytes    uint64 `json:"alloc_bytes"`
	Written       int64  `json:"written"`
	SnapshotBytes int64  `json:"snapshot_bytes"`
	BoundNanos    int64  `json:"bound_nanos,omitempty"`
	ProviderPath  int64  `json:"provider_path_nanos,omitempty"`
	BeforeFirst   int64  `json:"before_first_nanos,omitempty"`
	AfterLast     int64  `json:"after_last_nanos,omitempty"`
	Antichains    int    `json:"antichains,omitempty"`
	OrderOK       *bool  `json:"order_ok,omitempty"`
}

// measure runs s runs times, each in fresh child processes, and sums up.
func measure(s spec, runs int, profileDir string) (*Measurement, error) {
	w := findWorkload(s.Workload)
	load := loadAverage()
	results := make([]childResult, 0, runs)
	for run := range runs {
		if profileDir != "" {
			s.Profile = filepath.Join(profileDir, fmt.Sprintf("%s-%s-n%d-%s-run%d", s.Workload, s.Op, s.N, s.Store, run+1))
		}
		r, err := measureOnce(w, s)
		if err != nil {
			return nil, err
		}
		results = append(results, r)
	}
	return summarize(s, results, load), nil
}

func measureOnce(w *workload, s spec) (childResult, error) {
	dir, err := os.MkdirTemp("", "groundwork-bench-")
	if err != nil {
		return childResult{}, err
	}
	defer os.RemoveAll(dir)
	s.Dir = dir
	defer dropStore(s)
	if s.Store != "memory" && w.needsSetup(s.Op) {
		s.Phase = "setup"
		if _, err := spawn(s); err != nil {
			return childResult{}, fmt.Errorf("preparing the state: %w", err)
		}
	}
	s.Phase = "measure"
	out, err := spawn(s)
	if err != nil {
		return childResult{}, err
	}
	var r childResult
	if err := json.Unmarshal(out, &r); err != nil {
		return childResult{}, fmt.Errorf("reading the child's result %q: %w", out, err)
	}
	return r, nil
}

// spawn re-executes this binary on one phase of s and returns its stdout.
func spawn(s spec) ([]byte, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, err
	}
	arg, _ := json.Marshal(s)
	cmd := exec.Command(exe, "-child", string(arg))
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("%v: %s", err, strings.TrimSpace(stderr.String()))
	}
	return bytes.TrimSpace(stdout.Bytes()), nil
}

func summarize(s spec, rs []childResult, loadAvg float64) *Measurement {
	ms := func(ns int64) float64 { return float64(ns) / 1e6 }
	times := make([]int64, len(rs))
	cpu := make([]int64, len(rs))
	sys := make([]int64, len(rs))
	faults := make([]int64, len(rs))
	gcCPU := make([]int64, len(rs))
	gcs := make([]int64, len(rs))
	allocs := make([]float64, len(rs))
	allocBytes := make([]float64, len(rs))
	progAllocs := make([]float64, len(rs))
	var peak int64
	var gs int
	var stacks uint64
	for i, r := range rs {
		times[i] = r.Nanos
		cpu[i] = r.CPUNanos
		sys[i] = r.SysNanos
		faults[i] = r.PageFaults
		gcCPU[i] = r.GCCPUNanos
		gcs[i] = int64(r.GCCycles)
		allocs[i] = float64(r.Mallocs) / float64(s.N)
		allocBytes[i] = float64(r.AllocBytes) / float64(s.N)
		progAllocs[i] = float64(r.ProgramMalloc) / float64(s.N)
		peak = max(peak, r.PeakRSSKB)
		gs = max(gs, r.Goroutines)
		stacks = max(stacks, r.StackBytes)
	}
	for _, x := range [][]int64{times, cpu, sys, faults, gcCPU, gcs} {
		slices.Sort(x)
	}
	slices.Sort(allocs)
	slices.Sort(allocBytes)
	slices.Sort(progAllocs)
	m := &Measurement{
		Workload: s.Workload, N: s.N, Op: s.Op, Store: s.Store, Runs: len(rs),
		MedianMS: ms(median(times)), MinMS: ms(times[0]), MaxMS: ms(times[len(times)-1]),
		CPUMS:                    round1(ms(median(cpu))),
		SysCPUMS:                 round1(ms(median(sys))),
		PageFaults:               median(faults),
		GCCycles:                 uint32(median(gcs)),
		GCCPUMS:                  round1(ms(median(gcCPU))),
		PeakRSSMB:                float64(peak) / 1024,
		AllocsPerResource:        round1(allocs[len(allocs)/2]),
		BytesPerResource:         round1(allocBytes[len(allocBytes)/2]),
		ProgramAllocsPerResource: round1(progAllocs[len(progAllocs)/2]),
		GOMAXPROCS:               runtime.GOMAXPROCS(0),
		PeakGoroutines:           gs,
		PeakStackMB:              round1(float64(stacks) / (1 << 20)),
		LoadAvg:                  loadAvg,
	}
	m.MedianMS, m.MinMS, m.MaxMS, m.PeakRSSMB = round1(m.MedianMS), round1(m.MinMS), round1(m.MaxMS), round1(m.PeakRSSMB)
	m.EngineAllocsPerResource = round1(m.AllocsPerResource - m.ProgramAllocsPerResource)
	if s.Store != "memory" {
		written := make([]int64, len(rs))
		for i, r := range rs {
			written[i] = r.Written
		}
		slices.Sort(written)
		bp, sb := median(written), rs[len(rs)-1].SnapshotBytes
		m.BytesPersisted, m.SnapshotBytes = &bp, &sb
		if sb > 0 {
			ratio := round2(float64(bp) / float64(sb))
			m.PersistedToSnapshot = &ratio
		}
	}
	if b := rs[0].BoundNanos; b > 0 {
		bound := ms(b)
		ratio := float64(median(times)) / float64(b)
		ratio = float64(int64(ratio*1000+0.5)) / 1000
		m.BoundMS, m.RatioToBound = &bound, &ratio
	}
	if rs[0].ProviderPath > 0 {
		paths := make([]int64, len(rs))
		over := make([]int64, len(rs))
		for i, r := range rs {
			paths[i], over[i] = r.ProviderPath, r.Nanos-r.ProviderPath
		}
		slices.Sort(paths)
		slices.Sort(over)
		p, o := round1(ms(median(paths))), round1(ms(median(over)))
		m.ProviderPathMS, m.EngineOverheadMS = &p, &o
		starts, ends := make([]int64, len(rs)), make([]int64, len(rs))
		for i, r := range rs {
			starts[i], ends[i] = r.BeforeFirst, r.AfterLast
		}
		slices.Sort(starts)
		slices.Sort(ends)
		st, en := round1(ms(median(starts))), round1(ms(median(ends)))
		m.OverheadStartMS, m.OverheadEndMS = &st, &en
	}
	if rs[0].OrderOK != nil {
		ok := true
		for _, r := range rs {
			ok = ok && r.OrderOK != nil && *r.OrderOK
		}
		a := rs[0].Antichains
		m.Antichains, m.OrderOK = &a, &ok
	}
	return m
}

// median of sorted values; the lower middle for an even count.
func median(sorted []int64) int64 { return sorted[(len(sorted)-1)/2] }

func round1(f float64) float64 { return float64(int64(f*10+0.5)) / 10 }

func round2(f float64) float64 { return float64(int64(f*100+0.5)) / 100 }

// runChild runs one phase of a measurement in this process.
func runChild(arg string) error {
	var s spec
	if err := json.Unmarshal([]byte(arg), &s); err != nil {
		return err
	}
	w := findWorkload(s.Workload)
	if w == nil {
		return fmt.Errorf("unknown workload %q", s.Workload)
	}
	b, err := newBench(s)
	if err != nil {
		return err
	}
	if s.Phase == "setup" {
		return w.setup(b, s.Op)
	}
	if s.Store == "memory" && w.needsSetup(s.Op) {
		if err := w.setup(b, s.Op); err != nil {
			return fmt.Errorf("preparing the state: %w", err)
		}
	}
	progMallocs := w.programAllocs(b)
	// Start the operation from a clean slate: no garbage from the setup,
	// and the peak RSS counted from here (Linux resets it on "5").
	runtime.GC()
	debug.FreeOSMemory()
	reset := os.WriteFile("/proc/self/clear_refs", []byte("5"), 0) == nil

	stopProfile, err := startProfile(s.Profile)
	if err != nil {
		return err
	}
	var before, after runtime.MemStats
	wrote0 := writtenBytes()
	use0 := usedSoFar()
	stopCount := countGoroutines()
	runtime.ReadMemStats(&before)
	extra, took, err := w.measure(b, s.Op)
	use := usedSoFar().since(use0)
	goroutines, stacks := stopCount()
	runtime.ReadMemStats(&after)
	wrote := writtenBytes() - wrote0
	if perr := stopProfile(); err == nil {
		err = perr
	}
	if err != nil {
		return err
	}
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return err
	}
	r := childResult{
		Nanos: took.Nanoseconds(), CPUNanos: use.cpu.Nanoseconds(), SysNanos: use.sys.Nanoseconds(), PageFaults: use.faults,
		GCCycles: after.NumGC - before.NumGC, GCCPUNanos: use.gc.Nanoseconds(), Goroutines: goroutines, StackBytes: stacks, PeakRSSKB: ru.Maxrss, RSSReset: reset,
		Mallocs: after.Mallocs - before.Mallocs, ProgramMalloc: progMallocs, AllocBytes: after.TotalAlloc - before.TotalAlloc,
		Written: wrote, SnapshotBytes: b.snapshotSize(),
		BoundNanos: extra.bound.Nanoseconds(), ProviderPath: extra.providerPath.Nanoseconds(),
		BeforeFirst: extra.beforeFirst.Nanoseconds(), AfterLast: extra.afterLast.Nanoseconds(), Antichains: extra.antichains, OrderOK: extra.orderOK,
	}
	out, _ := json.Marshal(r)
	_, err = fmt.Println(string(out))
	return err
}

// countGoroutines samples the number of goroutines and the memory their
// stacks hold every millisecond until the returned function is called,
// which returns the most seen of each.
func countGoroutines() (stop func() (goroutines int, stackBytes uint64)) {
	type peaks struct {
		goroutines int
		stacks     uint64
	}
	done := make(chan struct{})
	result := make(chan peaks)
	go func() {
		sample := []metrics.Sample{{Name: "/memory/classes/heap/stacks:bytes"}}
		var p peaks
		t := time.NewTicker(time.Millisecond)
		defer t.Stop()
		for {
			p.goroutines = max(p.goroutines, runtime.NumGoroutine())
			metrics.Read(sample)
			if sample[0].Value.Kind() == metrics.KindUint64 {
				p.stacks = max(p.stacks, sample[0].Value.Uint64())
			}
			select {
			case <-t.C:
			case <-done:
				result <- p
				return
			}
		}
	}()
	return func() (int, uint64) {
		close(done)
		p := <-result
		return p.goroutines, p.stacks
	}
}

// loadAverage returns the one-minute load average, or 0 where unknown.
func loadAverage() float64 {
	data, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return 0
	}
	f, _, _ := strings.Cut(string(data), " ")
	v, _ := strconv.ParseFloat(f, 64)
	return v
}

// resources is what this process has used so far: CPU time (user and
// system), the system part alone, minor page faults, and the CPU the
// runtime attributes to garbage collection.
type resources struct {
	cpu, sys, gc time.Duration
	faults       int64
}

// usedSoFar returns the resources used so far; zero where unknown.
func usedSoFar() resources {
	var u resources
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err == nil {
		u.cpu = time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
		u.sys = time.Duration(ru.Stime.Nano())
		u.faults = ru.Minflt
	}
	sample := []metrics.Sample{{Name: "/cpu/classes/gc/total:cpu-seconds"}}
	metrics.Read(sample)
	if sample[0].Value.Kind() == metrics.KindFloat64 {
		u.gc = time.Duration(sample[0].Value.Float64() * 1e9)
	}
	return u
}

// since returns what was used between u0 and u.
func (u resources) since(u0 resources) resources {
	return resources{cpu: u.cpu - u0.cpu, sys: u.sys - u0.sys, gc: u.gc - u0.gc, faults: u.faults - u0.faults}
}

// startProfile starts CPU and allocation profiling of the operation, if
// prefix is set, and returns the function that stops it and writes both.
func startProfile(prefix string) (stop func() error, err error) {
	if prefix == "" {
		return func() error { return nil }, nil
	}
	f, err := os.Create(prefix + ".cpu.pprof")
	if err != nil {
		return nil, err
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, err
	}
	return func() error {
		pprof.StopCPUProfile()
		if err := f.Close(); err != nil {
			return err
		}
		// The profile is as of the last collection: one now makes it
		// cover the whole operation.
		runtime.GC()
		m, err := os.Create(prefix + ".allocs.pprof")
		if err != nil {
			return err
		}
		if err := pprof.Lookup("allocs").WriteTo(m, 0); err != nil {
			m.Close()
			return err
		}
		return m.Close()
	}, nil
}

// writtenBytes returns how many bytes this process has passed to write
// system calls (wchar of /proc/self/io), or 0 where that is unknown. During
// a measured operation only the store writes, and only to the stack's
// folder.
func writtenBytes() int64 {
	data, err := os.ReadFile("/proc/self/io")
	if err != nil {
		return 0
	}
	for line := range strings.Lines(string(data)) {
		if v, ok := strings.CutPrefix(line, "wchar:"); ok {
			n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
			if err == nil {
				return n
			}
		}
	}
	return 0
}

var errOrder = errors.New("a provider call saw the dependency order broken")
