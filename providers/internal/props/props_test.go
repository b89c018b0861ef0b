package props

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/groundwork-iac/groundwork/resource"
)

func TestDiff(t *testing.T) {
	old := resource.PropertyMap{"path": resource.NewString("a"), "mode": resource.NewString("0644"), "other": resource.NewString("x")}
	tests := []struct {
		name        string
		news        resource.PropertyMap
		wantChanges resource.DiffChanges
		wantReplace []resource.PropertyKey
		wantKinds   map[string]resource.PropertyDiffKind
	}{
		{"undeclared keys are ignored", resource.PropertyMap{"path": resource.NewString("a"), "mode": resource.NewString("0644"), "other": resource.NewString("y")},
			resource.DiffNone, nil, nil},
		{"a plain change updates", resource.PropertyMap{"path": resource.NewString("a"), "mode": resource.NewString("0600")},
			resource.DiffSome, nil, map[string]resource.PropertyDiffKind{"mode": resource.DiffUpdate}},
		{"a replacing change replaces", resource.PropertyMap{"path": resource.NewString("b"), "mode": resource.NewString("0644")},
			resource.DiffSome, []resource.PropertyKey{"path"}, map[string]resource.PropertyDiffKind{"path": resource.DiffUpdateReplace}},
		{"an unknown counts as changed", resource.PropertyMap{"path": resource.NewUnknown(), "mode": resource.NewString("0644")},
			resource.DiffSome, []resource.PropertyKey{"path"}, map[string]resource.PropertyDiffKind{"path": resource.DiffUpdateReplace}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Diff(old, tt.news, []string{"path", "mode"}, "path")
			if got.Changes != tt.wantChanges {
				t.Fatalf("Changes = %v, want %v", got.Changes, tt.wantChanges)
			}
			if diff := cmp.Diff(tt.wantReplace, got.ReplaceKeys); diff != "" {
				t.Errorf("ReplaceKeys (-want +got):\n%s", diff)
			}
			kinds := map[string]resource.PropertyDiffKind{}
			for p, d := range got.DetailedDiff {
				kinds[p] = d.Kind
			}
			if len(tt.wantKinds) == 0 && len(kinds) == 0 {
				return
			}
			if diff := cmp.Diff(tt.wantKinds, kinds); diff != "" {
				t.Errorf("detailed diff kinds (-want +got):\n%s", diff)
			}
		})
	}
}
