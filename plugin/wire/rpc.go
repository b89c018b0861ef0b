package wire

import (
	"slices"

	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/groundwork-iac/groundwork/providers"
	"github.com/groundwork-iac/groundwork/resource"
)

// The functions in this file convert the provider protocol's messages that
// both sides of a plugin connection share: diffs, check failures,
// dependency maps and partial failures.

// DiffToRPC converts a diff to the protocol's DiffResponse.
func DiffToRPC(d resource.DiffResult) *pulumirpc.DiffResponse {
	resp := &pulumirpc.DiffResponse{
		Replaces:            KeyStrings(d.ReplaceKeys),
		Stables:             KeyStrings(d.StableKeys),
		Diffs:               KeyStrings(d.ChangedKeys),
		DeleteBeforeReplace: d.DeleteBeforeReplace,
		Changes:             pulumirpc.DiffResponse_DIFF_UNKNOWN,
		HasDetailedDiff:     d.DetailedDiff != nil,
	}
	switch d.Changes {
	case resource.DiffNone:
		resp.Changes = pulumirpc.DiffResponse_DIFF_NONE
	case resource.DiffSome:
		resp.Changes = pulumirpc.DiffResponse_DIFF_SOME
	}
	if d.DetailedDiff != nil {
		resp.DetailedDiff = make(map[string]*pulumirpc.PropertyDiff, len(d.DetailedDiff))
		for path, pd := range d.DetailedDiff {
			resp.DetailedDiff[path] = &pulumirpc.PropertyDiff{Kind: pulumirpc.PropertyDiff_Kind(pd.Kind), InputDiff: pd.InputDiff}
		}
	}
	return resp
}

// DiffFromRPC converts the protocol's DiffResponse to a diff. The detailed
// diff is kept only when the response says it has one; a kind the protocol
// may add later reads as an update.
func DiffFromRPC(resp *pulumirpc.DiffResponse) resource.DiffResult {
	d := resource.DiffResult{
		ReplaceKeys:         stringsToKeys(resp.GetReplaces()),
		StableKeys:          stringsToKeys(resp.GetStables()),
		ChangedKeys:         stringsToKeys(resp.GetDiffs()),
		DeleteBeforeReplace: resp.GetDeleteBeforeReplace(),
	}
	switch resp.GetChanges() {
	case pulumirpc.DiffResponse_DIFF_NONE:
		d.Changes = resource.DiffNone
	case pulumirpc.DiffResponse_DIFF_SOME:
		d.Changes = resource.DiffSome
	default:
		d.Changes = resource.DiffUnknown
	}
	if resp.GetHasDetailedDiff() || len(resp.GetDetailedDiff()) > 0 {
		d.DetailedDiff = make(map[string]resource.PropertyDiff, len(resp.GetDetailedDiff()))
		for path, pd := range resp.GetDetailedDiff() {
			kind := resource.PropertyDiffKind(pd.GetKind())
			if pd.GetKind() < pulumirpc.PropertyDiff_ADD || pd.GetKind() > pulumirpc.PropertyDiff_UPDATE_REPLACE {
				kind = resource.DiffUpdate
			}
			d.DetailedDiff[path] = resource.PropertyDiff{Kind: kind, InputDiff: pd.GetInputDiff()}
		}
	}
	return d
}

// KeyStrings converts property keys to strings.
func KeyStrings(keys []resource.PropertyKey) []string {
	if keys == nil {
		return nil
	}
	out := make([]string, len(keys))
	for i, k := range keys {
		out[i] = string(k)
	}
	return out
}

func stringsToKeys(ss []string) []resource.PropertyKey {
	if len(ss) == 0 {
		return nil
	}
	out := make([]resource.PropertyKey, len(ss))
	for i, s := range ss {
		out[i] = resource.PropertyKey(s)
	}
	return out
}

// FailuresToRPC converts check failures to the protocol's.
func FailuresToRPC(fs []providers.CheckFailure) []*pulumirpc.CheckFailure {
	if len(fs) == 0 {
		return nil
	}
	out := make([]*pulumirpc.CheckFailure, len(fs))
	for i, f := range fs {
		out[i] = &pulumirpc.CheckFailure{Property: f.Property, Reason: f.Reason}
	}
	return out
}

// FailuresFromRPC converts the protocol's check failures.
func FailuresFromRPC(fs []*pulumirpc.CheckFailure) []providers.CheckFailure {
	if len(fs) == 0 {
		return nil
	}
	out := make([]providers.CheckFailure, len(fs))
	for i, f := range fs {
		out[i] = providers.CheckFailure{Property: f.GetProperty(), Reason: f.GetReason()}
	}
	return out
}

// URNs converts URN strings.
func URNs(ss []string) []resource.URN {
	if len(ss) == 0 {
		return nil
	}
	out := make([]resource.URN, len(ss))
	for i, s := range ss {
		out[i] = resource.URN(s)
	}
	return out
}

// URNStrings converts URNs to strings.
func URNStrings(urns []resource.URN) []string {
	if len(urns) == 0 {
		return nil
	}
	out := make([]string, len(urns))
	for i, u := range urns {
		out[i] = string(u)
	}
	return out
}

// InitErrorStatus returns the gRPC status a plugin answers for a partial
// failure: code Unknown with the message of e, and an
// ErrorResourceInitFailed detail carrying the resource's ID, outputs,
// inputs and reasons.
func InitErrorStatus(e *providers.InitError, opts Options) (*status.Status, error) {
	outs, err := MarshalProperties(e.Outputs, opts)
	if err != nil {
		return nil, err
	}
	ins, err := MarshalProperties(e.Inputs, opts)
	if err != nil {
		return nil, err
	}
	return status.New(codes.Unknown, e.Error()).WithDetails(&pulumirpc.ErrorResourceInitFailed{
		Id:         string(e.ID),
		Properties: outs,
		Inputs:     ins,
		Reasons:    slices.Clone(e.Reasons),
	})
}

// InitErrorFromStatus returns the partial failure that a status carries in
// an ErrorResourceInitFailed detail, or nil if it carries none.
func InitErrorFromStatus(st *status.Status, opts Options) (*providers.InitError, error) {
	for _, d := range st.Details() {
		detail, ok := d.(*pulumirpc.ErrorResourceInitFailed)
		if !ok {
			continue
		}
		outs, err := UnmarshalProperties(detail.GetProperties(), opts)
		if err != nil {
			return nil, err
		}
		ins, err := UnmarshalProperties(detail.GetInputs(), opts)
		if err != nil {
			return nil, err
		}
		reasons := slices.Clone(detail.GetReasons())
		if len(reasons) == 0 {
			reasons = []string{st.Message()}
		}
		return &providers.InitError{ID: resource.ID(detail.GetId()), Outputs: outs, Inputs: ins, Reasons: reasons}, nil
	}
	return nil, nil
}

// AliasesToRPC converts resource aliases to the protocol's alias specs.
func AliasesToRPC(as []resource.Alias) []*pulumirpc.Alias {
	if len(as) == 0 {
		return nil
	}
	out := make([]*pulumirpc.Alias, 0, len(as))
	for _, a := range as {
		if a.URN != "" {
			out = append(out, &pulumirpc.Alias{Alias: &pulumirpc.Alias_Urn{Urn: string(a.URN)}})
			continue
		}
		spec := &pulumirpc.Alias_Spec{Name: a.Name, Type: a.Type, Stack: a.Stack, Project: a.Project}
		switch {
		case a.NoParent:
			spec.Parent = &pulumirpc.Alias_Spec_NoParent{NoParent: true}
		case a.Parent != "":
			spec.Parent = &pulumirpc.Alias_Spec_ParentUrn{ParentUrn: string(a.Parent)}
		}
		out = append(out, &pulumirpc.Alias{Alias: &pulumirpc.Alias_Spec_{Spec: spec}})
	}
	return out
}

// AliasesFromRPC converts the protocol's alias specs to resource aliases.
func AliasesFromRPC(as []*pulumirpc.Alias) []resource.Alias {
	if len(as) == 0 {
		return nil
	}
	out := make([]resource.Alias, 0, len(as))
	for _, a := range as {
		if urn := a.GetUrn(); urn != "" {
			out = append(out, resource.Alias{URN: resource.URN(urn)})
			continue
		}
		spec := a.GetSpec()
		out = append(out, resource.Alias{
			Name: spec.GetName(), Type: spec.GetType(), Stack: spec.GetStack(), Project: spec.GetProject(),
			Parent: resource.URN(spec.GetParentUrn()), NoParent: spec.GetNoParent(),
		})
	}
	return out
}
