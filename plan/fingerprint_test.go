package plan_test

import (
	"context"
	"testing"
	"time"

	"github.com/groundwork-iac/groundwork/plan"
	"github.com/groundwork-iac/groundwork/resource"
	"github.com/groundwork-iac/groundwork/state"
)

func TestFingerprint(t *testing.T) {
	base := func() *state.Snapshot {
		return &state.Snapshot{
			Manifest: state.Manifest{Time: time.Unix(1, 0)},
			Resources: []*resource.State{{
				Type: "test:index:Thing", URN: "urn:pulumi:dev::p::test:index:Thing::a", Custom: true, ID: "id-1",
				Inputs:  resource.PropertyMap{"size": resource.NewNumber(1), "pw": resource.NewSecret(resource.NewString("hunter2"))},
				Outputs: resource.PropertyMap{"size": resource.NewNumber(1)},
				Created: time.Unix(1, 0), Modified: time.Unix(2, 0),
			}},
		}
	}
	want := plan.Fingerprint(base())
	tests := []struct {
		name string
		edit func(s *state.Snapshot)
		same bool
	}{
		{"written at another time", func(s *state.Snapshot) { s.Manifest.Time = time.Unix(9, 0) }, true},
		{"a record stamped at another time", func(s *state.Snapshot) { s.Resources[0].Modified = time.Unix(9, 0) }, true},
		{"another secret value", func(s *state.Snapshot) {
			s.Resources[0].Inputs["pw"] = resource.NewSecret(resource.NewString("other"))
		}, true},
		{"another input", func(s *state.Snapshot) { s.Resources[0].Inputs["size"] = resource.NewNumber(2) }, false},
		{"another output", func(s *state.Snapshot) { s.Resources[0].Outputs["extra"] = resource.NewBool(true) }, false},
		{"another ID", func(s *state.Snapshot) { s.Resources[0].ID = "id-2" }, false},
		{"protected", func(s *state.Snapshot) { s.Resources[0].Protect = true }, false},
		{"a pending operation", func(s *state.Snapshot) {
			s.PendingOperations = []resource.Operation{{Resource: s.Resources[0].Clone(), Kind: resource.OperationCreating}}
		}, false},
		{"no resources", func(s *state.Snapshot) { s.Resources = nil }, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := base()
			tc.edit(s)
			if got := plan.Fingerprint(s); (got == want) != tc.same {
				t.Errorf("fingerprint %s, base %s; want same = %v", got, want, tc.same)
			}
		})
	}
}

func TestFingerprintIsSaved(t *testing.T) {
	p := &plan.Plan{Project: "p", Stack: "dev", State: plan.Fingerprint(nil), Resources: map[resource.URN]*plan.Resource{}}
	data, err := plan.Marshal(context.Background(), p, nil)
	if err != nil {
		t.Fatal(err)
	}
	back, err := plan.Unmarshal(context.Background(), data, nil)
	if err != nil {
		t.Fatal(err)
	}
	if back.State != p.State {
		t.Errorf("state read back = %q, want %q", back.State, p.State)
	}
}
