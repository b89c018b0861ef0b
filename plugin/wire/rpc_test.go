package wire_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/testing/protocmp"

	"github.com/groundwork-iac/groundwork/plugin/wire"
	"github.com/groundwork-iac/groundwork/providers"
	"github.com/groundwork-iac/groundwork/resource"
)

func TestDiffRoundTrip(t *testing.T) {
	tests := []struct {
		name string
		d    resource.DiffResult
		rpc  *pulumirpc.DiffResponse
	}{
		{"unknown", resource.DiffResult{}, &pulumirpc.DiffResponse{}},
		{"none", resource.DiffResult{Changes: resource.DiffNone, StableKeys: []resource.PropertyKey{"a"}},
			&pulumirpc.DiffResponse{Changes: pulumirpc.DiffResponse_DIFF_NONE, Stables: []string{"a"}}},
		{"detailed", resource.DiffResult{
			Changes:             resource.DiffSome,
			ReplaceKeys:         []resource.PropertyKey{"name"},
			ChangedKeys:         []resource.PropertyKey{"name", "tags"},
			DeleteBeforeReplace: true,
			DetailedDiff: map[string]resource.PropertyDiff{
				"name":    {Kind: resource.DiffUpdateReplace, InputDiff: true},
				"tags.a":  {Kind: resource.DiffAdd},
				"tags.b":  {Kind: resource.DiffDelete, InputDiff: true},
				"list[0]": {Kind: resource.DiffAddReplace},
				"list[1]": {Kind: resource.DiffDeleteReplace},
				"x":       {Kind: resource.DiffUpdate},
			},
		}, &pulumirpc.DiffResponse{
			Changes: pulumirpc.DiffResponse_DIFF_SOME, Replaces: []string{"name"}, Diffs: []string{"name", "tags"},
			DeleteBeforeReplace: true, HasDetailedDiff: true,
			DetailedDiff: map[string]*pulumirpc.PropertyDiff{
				"name":    {Kind: pulumirpc.PropertyDiff_UPDATE_REPLACE, InputDiff: true},
				"tags.a":  {Kind: pulumirpc.PropertyDiff_ADD},
				"tags.b":  {Kind: pulumirpc.PropertyDiff_DELETE, InputDiff: true},
				"list[0]": {Kind: pulumirpc.PropertyDiff_ADD_REPLACE},
				"list[1]": {Kind: pulumirpc.PropertyDiff_DELETE_REPLACE},
				"x":       {Kind: pulumirpc.PropertyDiff_UPDATE},
			},
		}},
		{"empty detailed diff", resource.DiffResult{Changes: resource.DiffNone, DetailedDiff: map[string]resource.PropertyDiff{}},
			&pulumirpc.DiffResponse{Changes: pulumirpc.DiffResponse_DIFF_NONE, HasDetailedDiff: true, DetailedDiff: map[string]*pulumirpc.PropertyDiff{}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.rpc, wire.DiffToRPC(tt.d), protocmp.Transform()); diff != "" {
				t.Errorf("DiffToRPC (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.d, wire.DiffFromRPC(tt.rpc)); diff != "" {
				t.Errorf("DiffFromRPC (-want +got):\n%s", diff)
			}
		})
	}
	// A kind from a newer protocol reads as an update.
	got := wire.DiffFromRPC(&pulumirpc.DiffResponse{DetailedDiff: map[string]*pulumirpc.PropertyDiff{"a": {Kind: 42}}})
	if got.DetailedDiff["a"].Kind != resource.DiffUpdate {
		t.Errorf("unknown kind read as %v, want update", got.DetailedDiff["a"].Kind)
	}
}

func TestInitErrorStatus(t *testing.T) {
	ie := &providers.InitError{
		ID:      "i-1",
		Inputs:  resource.PropertyMap{"a": resource.NewString("x")},
		Outputs: resource.PropertyMap{"s": resource.NewSecret(resource.NewNumber(1))},
		Reasons: []string{"timed out waiting"},
	}
	st, err := wire.InitErrorStatus(ie, wire.KeepAll())
	if err != nil {
		t.Fatal(err)
	}
	if st.Code() != codes.Unknown || st.Message() != ie.Error() {
		t.Errorf("status = %v", st)
	}
	back, err := wire.InitErrorFromStatus(st, wire.KeepAll())
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(ie, back); diff != "" {
		t.Errorf("round trip (-want +got):\n%s", diff)
	}
	if got, err := wire.InitErrorFromStatus(status.New(codes.Internal, "x"), wire.KeepAll()); got != nil || err != nil {
		t.Errorf("a status without the detail = %v, %v; want nil, nil", got, err)
	}
	// Reasons default to the status message.
	bare, _ := status.New(codes.Unknown, "it broke").WithDetails(&pulumirpc.ErrorResourceInitFailed{Id: "i"})
	if got, _ := wire.InitErrorFromStatus(bare, wire.KeepAll()); got == nil || !cmp.Equal(got.Reasons, []string{"it broke"}) {
		t.Errorf("InitError without reasons = %+v", got)
	}
}

func TestAliases(t *testing.T) {
	as := []resource.Alias{{URN: "urn:pulumi:s::p::a:b:C::n"}, {Name: "old", Type: "a:b:D", Stack: "s", Project: "p", Parent: "urn:pulumi:s::p::a:b:P::q"}, {Name: "x", NoParent: true}}
	if diff := cmp.Diff(as, wire.AliasesFromRPC(wire.AliasesToRPC(as))); diff != "" {
		t.Errorf("round trip (-want +got):\n%s", diff)
	}
}
