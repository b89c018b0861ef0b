package deploy_test

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/groundwork-iac/groundwork/deploy"
	"github.com/groundwork-iac/groundwork/providers"
	"github.com/groundwork-iac/groundwork/resource"
	"github.com/groundwork-iac/groundwork/stepgen"
)

// sourceFunc is a providers.ProviderSource made of a function.
type sourceFunc func(ref, typ string) (providers.Provider, error)

func (f sourceFunc) Provider(ref, typ string) (providers.Provider, error) { return f(ref, typ) }

var urn = resource.NewURN("dev", "demo", "", "demo:index:Thing", "a")

// TestAsk: Ask makes the provider calls a Call asks for and no others, and
// returns their answers: a Check, followed at once by its Diff when the
// call says the Diff is sure to follow and the Check passed; a Diff, with
// its changed keys named when the provider reports changes without them.
func TestAsk(t *testing.T) {
	olds := resource.PropertyMap{"size": resource.NewNumber(1)}
	news := resource.PropertyMap{"size": resource.NewNumber(2)}
	checked := resource.PropertyMap{"size": resource.NewNumber(2), "name": resource.NewString("a-1")}
	diffReq := providers.DiffRequest{URN: urn, ID: "id-a", OldInputs: olds, OldOutputs: olds}
	tests := []struct {
		name     string
		call     stepgen.Call
		failures []providers.CheckFailure
		// made are the provider calls made, in order.
		made       []string
		diffed     bool
		diffInputs resource.PropertyMap
		keys       []resource.PropertyKey
	}{
		{
			name: "a check alone",
			call: stepgen.Call{Kind: stepgen.CallCheck, Check: providers.CheckRequest{URN: urn, Olds: olds, News: news}},
			made: []string{"check"},
		},
		{
			name: "a check and the diff sure to follow, on the checked inputs",
			call: stepgen.Call{Kind: stepgen.CallCheck, Check: providers.CheckRequest{URN: urn, Olds: olds, News: news},
				Diff: diffReq, DiffAfterCheck: true},
			made: []string{"check", "diff"}, diffed: true, diffInputs: checked,
			keys: []resource.PropertyKey{"name", "size"},
		},
		{
			name: "a check that fails is not followed by its diff",
			call: stepgen.Call{Kind: stepgen.CallCheck, Check: providers.CheckRequest{URN: urn, Olds: olds, News: news},
				Diff: diffReq, DiffAfterCheck: true},
			failures: []providers.CheckFailure{{Property: "size", Reason: "too big"}},
			made:     []string{"check"},
		},
		{
			name: "a diff",
			call: func() stepgen.Call {
				req := diffReq
				req.NewInputs = news
				return stepgen.Call{Kind: stepgen.CallDiff, Diff: req}
			}(),
			made: []string{"diff"}, diffInputs: news, keys: []resource.PropertyKey{"size"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var made []string
			var diffInputs resource.PropertyMap
			prov := &providers.Func{
				CheckF: func(_ context.Context, req providers.CheckRequest) (providers.CheckResponse, error) {
					made = append(made, "check")
					return providers.CheckResponse{Inputs: checked, Failures: tt.failures}, nil
				},
				DiffF: func(_ context.Context, req providers.DiffRequest) (providers.DiffResponse, error) {
					made = append(made, "diff")
					diffInputs = req.NewInputs
					// Changes reported without naming them.
					return providers.DiffResponse{Changes: resource.DiffSome}, nil
				},
			}
			c := tt.call
			c.Reg = &stepgen.Registration{URN: urn}
			a := deploy.Ask(context.Background(), &c, sourceFunc(func(string, string) (providers.Provider, error) { return prov, nil }))
			if a.Err != nil || a.DiffErr != nil {
				t.Fatalf("Ask: %v, diff %v", a.Err, a.DiffErr)
			}
			if a.Call != &c {
				t.Error("the answer is not to the call asked")
			}
			if diff := cmp.Diff(tt.made, made); diff != "" {
				t.Errorf("calls made (-want +got):\n%s", diff)
			}
			if a.Diffed != tt.diffed {
				t.Errorf("Diffed = %t, want %t", a.Diffed, tt.diffed)
			}
			if !diffInputs.DeepEquals(tt.diffInputs) {
				t.Errorf("the diff's new inputs = %v, want %v", diffInputs, tt.diffInputs)
			}
			keys := slices.Clone(a.Diff.ChangedKeys)
			slices.Sort(keys)
			if diff := cmp.Diff(tt.keys, keys); diff != "" {
				t.Errorf("changed keys (-want +got):\n%s", diff)
			}
		})
	}
}

// TestAskRefuses: Ask makes no provider call for an analyzer's call (the
// host's to answer) and answers with the source's error when the provider
// cannot be found.
func TestAskRefuses(t *testing.T) {
	errBoom := errors.New("boom")
	tests := []struct {
		name    string
		kind    stepgen.CallKind
		srcErr  error
		wantErr error
	}{
		{name: "an analyzer's call", kind: stepgen.CallAnalyze},
		{name: "a provider the source cannot find", kind: stepgen.CallCheck, srcErr: errBoom, wantErr: errBoom},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			called := false
			prov := &providers.Func{
				CheckF: func(context.Context, providers.CheckRequest) (providers.CheckResponse, error) {
					called = true
					return providers.CheckResponse{}, nil
				},
			}
			src := sourceFunc(func(string, string) (providers.Provider, error) {
				if tt.srcErr != nil {
					return nil, tt.srcErr
				}
				return prov, nil
			})
			a := deploy.Ask(context.Background(), &stepgen.Call{Kind: tt.kind, Reg: &stepgen.Registration{URN: urn}}, src)
			if a.Err == nil || (tt.wantErr != nil && !errors.Is(a.Err, tt.wantErr)) {
				t.Errorf("Ask = %v, want an error (%v)", a.Err, tt.wantErr)
			}
			if called {
				t.Error("Ask called the provider")
			}
		})
	}
}
