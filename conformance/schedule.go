package conformance

import (
	"context"
	"math/rand/v2"
	"time"

	"github.com/pulumi/pulumi/pkg/v3/engine/lifecycletest/framework"

	"github.com/groundwork-iac/groundwork/conformance/compare"
	"github.com/groundwork-iac/groundwork/conformance/drive"
	"github.com/groundwork-iac/groundwork/conformance/spec"
)

// MaxLatency is the most a provider call of a campaign's program waits
// before it answers.
const MaxLatency = 2 * time.Millisecond

// DrawSchedule draws the schedule of the program of seed: parallelism
// from 1 to 16 and provider calls that each take a random time up to
// MaxLatency, as real providers take time, so that the engines meet the
// orders of events a fixed schedule never shows. It draws from a source
// of its own, so that the program's contents do not depend on it.
func DrawSchedule(seed int64) *spec.Schedule {
	r := rand.New(rand.NewPCG(uint64(seed), 0x5c4ed))
	return &spec.Schedule{Parallelism: 1 + r.IntN(16), Latency: MaxLatency}
}

// rerun checks p again n times and returns how many of them show an
// unexplained difference: a difference that depends on timing shows in
// some runs only.
func rerun(ctx context.Context, tb framework.TB, p *spec.Program, n int) int {
	shown := 0
	for i := 0; i < n && ctx.Err() == nil; i++ {
		if o := Check(ctx, tb, p); len(o.Differences) > 0 {
			shown++
		}
	}
	return shown
}

// firstBroken returns the first invariant t broke in its runs up to last
// (every run when last is -1), or why its state was unusable, or "".
func firstBroken(t *drive.Trace, last int) string {
	for i := range t.Runs {
		if last >= 0 && i > last {
			break
		}
		if t.Runs[i].Invalid != "" {
			return t.Runs[i].Name + ": " + t.Runs[i].Invalid
		}
		if v := compare.Invariants(&t.Runs[i]); len(v) > 0 {
			return t.Runs[i].Name + ": " + v[0]
		}
	}
	return ""
}
