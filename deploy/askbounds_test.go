package deploy_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/groundwork-iac/groundwork/deploy"
	"github.com/groundwork-iac/groundwork/providers"
	"github.com/groundwork-iac/groundwork/resource"
	"github.com/groundwork-iac/groundwork/stepgen"
)

// TestAskWithinBounds: through Bounds, under a context that can be
// cancelled, a Check and the Diff sure to follow are answered together
// as without bounds, and a provider that never answers the Diff holds
// the operation no longer than the grace period after the cancellation;
// the call it leaves running is counted as a stray until it returns.
func TestAskWithinBounds(t *testing.T) {
	olds := resource.PropertyMap{"size": resource.NewNumber(1)}
	news := resource.PropertyMap{"size": resource.NewNumber(2)}
	call := func() *stepgen.Call {
		return &stepgen.Call{Kind: stepgen.CallCheck, Reg: &stepgen.Registration{URN: urn},
			Check: providers.CheckRequest{URN: urn, Olds: olds, News: news},
			Diff:  providers.DiffRequest{URN: urn, ID: "id-a", OldInputs: olds, OldOutputs: olds}, DiffAfterCheck: true}
	}
	const grace = 100 * time.Millisecond

	t.Run("answered", func(t *testing.T) {
		var made []string
		prov := &providers.Func{
			CheckF: func(_ context.Context, req providers.CheckRequest) (providers.CheckResponse, error) {
				made = append(made, "check")
				return providers.CheckResponse{Inputs: req.News}, nil
			},
			DiffF: func(_ context.Context, req providers.DiffRequest) (providers.DiffResponse, error) {
				made = append(made, "diff")
				return providers.DiffResponse{Changes: resource.DiffSome}, nil
			},
		}
		b := deploy.NewBounds(sourceFunc(func(string, string) (providers.Provider, error) { return prov, nil }), grace)
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		a := deploy.Ask(ctx, call(), b)
		if a.Err != nil || a.DiffErr != nil || !a.Diffed {
			t.Fatalf("Ask = err %v, diff err %v, diffed %t; want both answered", a.Err, a.DiffErr, a.Diffed)
		}
		if strings.Join(made, ",") != "check,diff" || len(a.Diff.ChangedKeys) != 1 || a.Diff.ChangedKeys[0] != "size" {
			t.Errorf("calls made %v, changed keys %v; want check,diff and [size]", made, a.Diff.ChangedKeys)
		}
		if n := b.Stray(context.Background(), time.Second); n != 0 {
			t.Errorf("Stray = %d after the answer, want 0", n)
		}
	})

	t.Run("a diff never answered", func(t *testing.T) {
		release := make(chan struct{})
		diffing := make(chan struct{})
		prov := &providers.Func{
			DiffF: func(context.Context, providers.DiffRequest) (providers.DiffResponse, error) {
				close(diffing)
				<-release // ignores its context
				return providers.DiffResponse{}, nil
			},
		}
		b := deploy.NewBounds(sourceFunc(func(string, string) (providers.Provider, error) { return prov, nil }), grace)
		ctx, cancel := context.WithCancelCause(context.Background())
		defer cancel(nil)
		errInterrupted := errors.New("interrupted")
		var cancelled time.Time
		go func() {
			<-diffing
			cancelled = time.Now()
			cancel(errInterrupted)
		}()
		a := deploy.Ask(ctx, call(), b)
		if took := time.Since(cancelled); took > grace+2*time.Second {
			t.Errorf("Ask returned %v after the cancellation; the grace period is %v", took, grace)
		}
		if !errors.Is(a.Err, errInterrupted) || !strings.Contains(a.Err.Error(), "grace period") {
			t.Errorf("Ask err = %v; want the cancellation's cause, past the grace period", a.Err)
		}
		if n := b.Stray(context.Background(), 0); n != 1 {
			t.Errorf("Stray = %d while the diff runs, want 1", n)
		}
		close(release)
		if n := b.Stray(context.Background(), 5*time.Second); n != 0 {
			t.Errorf("Stray = %d once the diff returned, want 0", n)
		}
	})
}

// BenchmarkAskWithinBounds measures a Check and its Diff made through
// Bounds under a context that can be cancelled, as gw makes them.
func BenchmarkAskWithinBounds(b *testing.B) {
	news := resource.PropertyMap{"size": resource.NewNumber(2)}
	prov := &providers.Func{}
	bounds := deploy.NewBounds(sourceFunc(func(string, string) (providers.Provider, error) { return prov, nil }), time.Minute)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	c := &stepgen.Call{Kind: stepgen.CallCheck, Reg: &stepgen.Registration{URN: urn},
		Check: providers.CheckRequest{URN: urn, Olds: news, News: news},
		Diff:  providers.DiffRequest{URN: urn, ID: "id-a", OldInputs: news, OldOutputs: news}, DiffAfterCheck: true}
	b.ReportAllocs()
	for b.Loop() {
		if a := deploy.Ask(ctx, c, bounds); a.Err != nil || !a.Diffed {
			b.Fatal(a.Err)
		}
	}
}
