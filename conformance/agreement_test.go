package conformance

import (
	"context"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/groundwork-iac/groundwork/conformance/drive"
	"github.com/groundwork-iac/groundwork/conformance/gen"
	"github.com/groundwork-iac/groundwork/conformance/reduce"
	"github.com/groundwork-iac/groundwork/conformance/spec"
)

// TestAgreementCampaign holds groundwork to the promise that a preview
// predicts the update, on the campaign's generated programs: every
// version of every program is previewed with a plan and then updated with
// that plan (drive.Agreement says what is compared, and which refusal a
// delete-before-replace cascade may make). Any other refusal or
// disagreement fails the test, with the line that replays it; with
// GROUNDWORK_CONFORMANCE_REDUCE=dir each is reduced to a minimal program
// written there. GROUNDWORK_CONFORMANCE_AGREEMENT_PROGRAMS sets the number
// of programs (default 300, 30 with -short; 5,000 is the long mode), from
// GROUNDWORK_CONFORMANCE_SEED, with GROUNDWORK_CONFORMANCE_FEATURES as in
// TestCampaign. Pulumi's engine is not run.
func TestAgreementCampaign(t *testing.T) {
	programs := envInt(t, "GROUNDWORK_CONFORMANCE_AGREEMENT_PROGRAMS", 300)
	if testing.Short() && os.Getenv("GROUNDWORK_CONFORMANCE_AGREEMENT_PROGRAMS") == "" {
		programs = 30
	}
	seed := envInt(t, "GROUNDWORK_CONFORMANCE_SEED", 1)
	var features *gen.Features
	if s := os.Getenv("GROUNDWORK_CONFORMANCE_FEATURES"); s != "" {
		f, err := gen.ParseFeatures(s)
		if err != nil {
			t.Fatalf("GROUNDWORK_CONFORMANCE_FEATURES: %v", err)
		}
		features = &f
	}
	program := func(s int64) *spec.Program {
		f := gen.Random(s)
		if features != nil {
			f = *features
		}
		return gen.Generate(s, gen.Config{Features: f})
	}
	start := time.Now()
	found := agreementCampaign(context.Background(), seed, int(programs), int(envInt(t, "GROUNDWORK_CONFORMANCE_WORKERS", 2)), program)
	t.Logf("seed %d, %d programs, %s: %d disagree", seed, programs, time.Since(start).Round(time.Millisecond), len(found))
	dir := os.Getenv("GROUNDWORK_CONFORMANCE_REDUCE")
	for _, s := range sortedSeeds(found) {
		p := program(s)
		replay := fmt.Sprintf("GROUNDWORK_CONFORMANCE_SEED=%d GROUNDWORK_CONFORMANCE_AGREEMENT_PROGRAMS=1", s)
		if features != nil {
			replay += " GROUNDWORK_CONFORMANCE_FEATURES=" + features.String()
		}
		t.Errorf("seed %d: the preview does not predict the update:\n  %s\nreplay: %s go test -run TestAgreementCampaign\n%s",
			s, strings.Join(found[s], "\n  "), replay, p.Describe())
		if dir == "" {
			continue
		}
		small := reduce.Reduce(p, func(c *spec.Program) bool {
			return len(drive.Agreement(context.Background(), c)) > 0
		}, 400)
		path := filepath.Join(dir, fmt.Sprintf("agreement-seed-%d.json", s))
		if err := small.Save(path); err != nil {
			t.Fatal(err)
		}
		t.Logf("seed %d reduced to %s:\n%s  %s", s, path, small.Describe(),
			strings.Join(drive.Agreement(context.Background(), small), "\n  "))
	}
}

// agreementCampaign runs drive.Agreement on programs seed to
// seed+programs-1, workers at a time, and returns the disagreements by
// seed.
func agreementCampaign(ctx context.Context, seed int64, programs, workers int, program func(int64) *spec.Program) map[int64][]string {
	if workers <= 0 {
		workers = 2
	}
	found := map[int64][]string{}
	var mu sync.Mutex
	var wg sync.WaitGroup
	next := make(chan int64)
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for s := range next {
				if d := drive.Agreement(ctx, program(s)); len(d) > 0 {
					mu.Lock()
					found[s] = d
					mu.Unlock()
				}
			}
		}()
	}
	for k := 0; k < programs && ctx.Err() == nil; k++ {
		next <- seed + int64(k)
	}
	close(next)
	wg.Wait()
	return found
}

func sortedSeeds(m map[int64][]string) []int64 {
	return slices.Sorted(maps.Keys(m))
}
