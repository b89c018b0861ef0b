package pulumi_test

import (
	"errors"
	"testing"

	"github.com/groundwork-iac/groundwork/providers/pulumi"
	"github.com/groundwork-iac/groundwork/state"
)

// TestParseStackReference reads each form the SDKs write a stack
// reference's name in, and refuses the others with a
// *StackReferenceError.
func TestParseStackReference(t *testing.T) {
	tests := []struct {
		name string
		want state.StackID // zero: refused
	}{
		{"prod", state.StackID{Project: "site", Stack: "prod"}},
		{"other/prod", state.StackID{Project: "other", Stack: "prod"}},
		{"organization/other/prod", state.StackID{Project: "other", Stack: "prod"}},
		{"acme/other/prod", state.StackID{Project: "other", Stack: "prod"}},
		{"/other/prod", state.StackID{}},
		{"a/b/c/d", state.StackID{}},
		{"infra/../prod", state.StackID{}},
		{"", state.StackID{}},
		{"other/", state.StackID{}},
	}
	for _, tt := range tests {
		got, err := pulumi.ParseStackReference("site", tt.name)
		if tt.want == (state.StackID{}) {
			var re *pulumi.StackReferenceError
			if !errors.As(err, &re) || re.Name != tt.name {
				t.Errorf("ParseStackReference(%q) = %v, %v; want a *StackReferenceError", tt.name, got, err)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("ParseStackReference(%q) = %v, %v; want %v", tt.name, got, err, tt.want)
		}
	}
}
