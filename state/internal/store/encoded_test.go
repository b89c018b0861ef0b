package store_test

import (
	"context"
	"reflect"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/groundwork-iac/groundwork/resource"
	"github.com/groundwork-iac/groundwork/state/memstore"
)

// TestLoadSharesOutputsWrittenAsInputs checks that outputs written exactly
// as their resource's inputs load as the inputs' very map, and that any
// difference — a value, a secret's fresh ciphertext — loads them apart.
func TestLoadSharesOutputsWrittenAsInputs(t *testing.T) {
	ctx := context.Background()
	s := memstore.New(fastSecrets())
	base := chainStack(0)
	prov := base.Resources[0]
	echo := newBucket("echo", prov)
	echo.Outputs = echo.Inputs.Copy()
	differs := newBucket("differs", prov)
	differs.Outputs = differs.Inputs.Copy()
	differs.Outputs["name"] = resource.NewString("other")
	secret := newBucket("secret", prov)
	secret.Inputs["password"] = resource.NewSecret(resource.NewString("s3cr3t"))
	secret.Outputs = secret.Inputs.Copy()
	base.Resources = append(base.Resources, echo, differs, secret)
	if err := s.Save(ctx, dev, base); err != nil {
		t.Fatal(err)
	}
	got, err := s.Load(ctx, dev)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(base, got, snapshotOpts, propertyOpts); diff != "" {
		t.Fatalf("loaded (-saved +loaded):\n%s", diff)
	}
	byName := map[string]*resource.State{}
	for _, r := range got.Resources {
		byName[r.URN.Name()] = r
	}
	same := func(r *resource.State) bool {
		return reflect.ValueOf(r.Inputs).UnsafePointer() == reflect.ValueOf(r.Outputs).UnsafePointer()
	}
	for name, want := range map[string]bool{"echo": true, "differs": false, "secret": false} {
		if got := same(byName[name]); got != want {
			t.Errorf("%s: outputs share the inputs' map = %t, want %t", name, got, want)
		}
	}
}
