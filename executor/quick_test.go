package executor_test

import (
	"context"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/groundwork-iac/groundwork/executor"
)

// A Quick chain runs on the caller's goroutine: when Execute returns, its
// hooks and steps have run, in order; it counts for WaitIdle and Wait like
// any chain, is not held back by the parallelism limit, and its failures
// are reported and skip what needs them.
func TestQuickChains(t *testing.T) {
	boom := errors.New("boom")
	tests := []struct {
		name        string
		parallelism int
		fail        bool
		continueOn  bool
		want        []event
		wantErr     bool
	}{
		{
			name: "runs before Execute returns",
			want: []event{{"start", "a", ""}, {"apply", "a", ""}, {"done", "a", ""}, {"start", "b", ""}, {"apply", "b", ""}, {"done", "b", ""}},
		},
		{
			name: "not held back by a full parallelism limit", parallelism: 1,
			want: []event{{"start", "a", ""}, {"apply", "a", ""}, {"done", "a", ""}, {"start", "b", ""}, {"apply", "b", ""}, {"done", "b", ""}},
		},
		{
			name: "a failure skips the rest of the chain", fail: true, continueOn: true, wantErr: true,
			want: []event{{"start", "a", ""}, {"apply", "a", ""}, {"done", "a", "boom"}, {"skip", "b", "urn:pulumi:dev::proj::test:index:Thing::b skipped: urn:pulumi:dev::proj::test:index:Thing::a: boom"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := testContext(t)
			r := newRecorder()
			e := executor.New(executor.Options{Parallelism: tt.parallelism, ContinueOnError: tt.continueOn, Hooks: r})
			release := make(chan struct{})
			if tt.parallelism > 0 {
				// Occupy the only slot until the quick chain has run.
				mustExecute(t, e, ctx, executor.Chain{Steps: []executor.Step{r.step("busy", func(context.Context) error {
					<-release
					return nil
				})}})
			}
			var applyA func(context.Context) error
			if tt.fail {
				applyA = func(context.Context) error { return boom }
			}
			c := executor.Chain{Steps: []executor.Step{r.step("a", applyA), r.step("b", nil)}, Quick: true}
			mustExecute(t, e, ctx, c)
			var got []event
			for _, ev := range r.Events() {
				if ev.Name != "busy" {
					got = append(got, ev)
				}
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("events when Execute returned (-want +got):\n%s", diff)
			}
			close(release)
			if err := e.WaitIdle(ctx); err != nil {
				t.Fatalf("WaitIdle: %v", err)
			}
			if err := e.Wait(); (err != nil) != tt.wantErr {
				t.Errorf("Wait = %v; want an error: %v", err, tt.wantErr)
			}
		})
	}
}
