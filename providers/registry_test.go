package providers_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/groundwork-iac/groundwork/providers"
	"github.com/groundwork-iac/groundwork/resource"
)

var bucketURN = resource.URN("urn:pulumi:dev::proj::cloud:index:Bucket::b")

func TestProviderResourceLifecycle(t *testing.T) {
	rec := &recorder{}
	r := newCloudRegistry(t, rec)
	ctx := t.Context()
	urn := providerURN("cloud", "main")
	inputs := resource.PropertyMap{"region": str("us"), "version": str("1.0.0"), "pluginDownloadURL": str("https://example.com")}

	// Check runs CheckConfig without the reserved keys, and keeps them in
	// the checked inputs.
	checked, err := r.Check(ctx, providers.CheckRequest{URN: urn, News: inputs})
	if err != nil || len(checked.Failures) > 0 {
		t.Fatalf("Check: %v %v", err, checked.Failures)
	}
	if diff := cmp.Diff(inputs, checked.Inputs); diff != "" {
		t.Errorf("checked inputs (-want +got):\n%s", diff)
	}
	bad, err := r.Check(ctx, providers.CheckRequest{URN: urn, News: resource.PropertyMap{"version": str("1.0.0")}})
	if err != nil || len(bad.Failures) != 1 || bad.Failures[0].Property != "region" {
		t.Errorf("Check without region = %v, %v; want a failure on region", bad, err)
	}
	badVersion, err := r.Check(ctx, providers.CheckRequest{URN: urn, News: resource.PropertyMap{"region": str("us"), "version": str("one")}})
	if err != nil || len(badVersion.Failures) != 1 || badVersion.Failures[0].Property != "version" {
		t.Errorf("Check with a bad version = %v, %v; want a failure on version", badVersion, err)
	}

	// Diff runs DiffConfig; the registry adds changes of reserved keys.
	diffCases := []struct {
		name        string
		news        resource.PropertyMap
		wantChanges resource.DiffChanges
		wantReplace bool
		wantKeys    []resource.PropertyKey
	}{
		{"same", inputs, resource.DiffNone, false, nil},
		{"new token", with(inputs, "token", str("t")), resource.DiffSome, false, []resource.PropertyKey{"token"}},
		{"new region", with(inputs, "region", str("eu")), resource.DiffSome, true, []resource.PropertyKey{"region"}},
		{"new version", with(inputs, "version", str("1.0.1")), resource.DiffSome, false, []resource.PropertyKey{"version"}},
	}
	_ = r.RegisterFactory("cloud", "1.0.1", cloudFactory(rec))
	for _, dc := range diffCases {
		d, err := r.Diff(ctx, providers.DiffRequest{URN: urn, ID: "id-1", OldInputs: checked.Inputs, OldOutputs: checked.Inputs, NewInputs: dc.news})
		if err != nil {
			t.Errorf("Diff %s: %v", dc.name, err)
			continue
		}
		if d.Changes != dc.wantChanges || d.Replace() != dc.wantReplace || !cmp.Equal(d.ChangedKeys, dc.wantKeys) {
			t.Errorf("Diff %s = %+v; want changes %v, replace %v, keys %v", dc.name, d, dc.wantChanges, dc.wantReplace, dc.wantKeys)
		}
	}

	// Create configures an instance and records it under the reference.
	created, err := r.Create(ctx, providers.CreateRequest{URN: urn, Inputs: checked.Inputs})
	if err != nil {
		t.Fatalf("Create: %v", err)
	}
	if created.ID != "id-1" || !created.Outputs.DeepEquals(checked.Inputs) {
		t.Errorf("Create = %+v; want ID id-1 and the inputs as outputs", created)
	}
	ref := providers.NewReference(urn, created.ID)
	p := mustGet(t, r, ref)
	res, err := p.Create(ctx, providers.CreateRequest{URN: bucketURN, Inputs: resource.PropertyMap{}})
	if err != nil || res.Outputs["region"].StringValue() != "us" {
		t.Fatalf("Create through the instance = %v, %v; want it configured with region us", res, err)
	}

	// Read reports the provider resource as recorded.
	read, err := r.Read(ctx, providers.ReadRequest{URN: urn, ID: ref.ID, Inputs: checked.Inputs, State: created.Outputs})
	if err != nil || read.ID != ref.ID || !read.Outputs.DeepEquals(created.Outputs) {
		t.Errorf("Read = %+v, %v", read, err)
	}

	// Update reconfigures a new instance under the same reference and
	// shuts the old one down.
	newInputs := with(checked.Inputs, "region", str("eu"))
	if _, err := r.Update(ctx, providers.UpdateRequest{URN: urn, ID: ref.ID, OldInputs: checked.Inputs, OldOutputs: created.Outputs, NewInputs: newInputs}); err != nil {
		t.Fatalf("Update: %v", err)
	}
	p2 := mustGet(t, r, ref)
	if res, err := p2.Create(ctx, providers.CreateRequest{URN: bucketURN}); err != nil || res.Outputs["region"].StringValue() != "eu" {
		t.Errorf("Create after Update = %v, %v; want region eu", res, err)
	}
	if _, err := p.Create(ctx, providers.CreateRequest{URN: bucketURN}); !errors.Is(err, providers.ErrClosed) {
		t.Errorf("Create on the replaced instance = %v, want ErrClosed", err)
	}

	// Delete shuts it down and forgets it.
	if _, err := r.Delete(ctx, providers.DeleteRequest{URN: urn, ID: ref.ID, Inputs: newInputs, Outputs: newInputs}); err != nil {
		t.Fatalf("Delete: %v", err)
	}
	if _, ok := r.Get(ref); ok {
		t.Error("Get found the deleted provider")
	}
	if _, err := r.Delete(ctx, providers.DeleteRequest{URN: urn, ID: ref.ID}); err != nil {
		t.Errorf("a second Delete = %v, want success", err)
	}

	// p1 checked configuration; p2 served the created provider, p3 the
	// updated one. The 1.0.1 factory numbers its own instances.
	want := []string{
		"start p1",
		"start p2", "configure p2 region=us",
		"start p3", "configure p3 region=eu", "signal p2", "close p2",
		"start p1", // the 1.0.1 factory's first instance: its checker, for the version diff
		"signal p3", "close p3",
	}
	got := rec.list()
	if diff := cmp.Diff(sortedCopy(want), sortedCopy(got)); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
}

func with(m resource.PropertyMap, k resource.PropertyKey, v resource.PropertyValue) resource.PropertyMap {
	out := m.Copy()
	out[k] = v
	return out
}

func sortedCopy(s []string) []string {
	out := append([]string(nil), s...)
	for i := range out {
		for j := i + 1; j < len(out); j++ {
			if out[j] < out[i] {
				out[i], out[j] = out[j], out[i]
			}
		}
	}
	return out
}

func TestRegistryRefusesOtherResources(t *testing.T) {
	r := newCloudRegistry(t, &recorder{})
	ctx := t.Context()
	errs := map[string]error{}
	_, errs["Check"] = r.Check(ctx, providers.CheckRequest{URN: bucketURN})
	_, errs["Diff"] = r.Diff(ctx, providers.DiffRequest{URN: bucketURN})
	_, errs["Create"] = r.Create(ctx, providers.CreateRequest{URN: bucketURN})
	_, errs["Read"] = r.Read(ctx, providers.ReadRequest{URN: bucketURN})
	_, errs["Update"] = r.Update(ctx, providers.UpdateRequest{URN: bucketURN})
	_, errs["Delete"] = r.Delete(ctx, providers.DeleteRequest{URN: bucketURN})
	for method, err := range errs {
		if err == nil || !strings.Contains(err.Error(), string(bucketURN)) || !strings.Contains(err.Error(), "not a provider resource") {
			t.Errorf("%s of a bucket = %v; want an error naming it and saying it is not a provider resource", method, err)
		}
	}
	_, err := r.Check(ctx, providers.CheckRequest{URN: providerURN("nope", "p"), News: resource.PropertyMap{}})
	var nf *providers.NoFactoryError
	if !errors.As(err, &nf) || !strings.Contains(err.Error(), "registered packages: cloud") {
		t.Errorf("Check of an unknown package = %v, want a *NoFactoryError listing cloud", err)
	}
}

func TestPreviewWithUnknownConfiguration(t *testing.T) {
	rec := &recorder{}
	r := newCloudRegistry(t, rec)
	ctx := t.Context()
	urn := providerURN("cloud", "later")
	ref, _ := createProvider(t, r, urn, resource.PropertyMap{"region": resource.NewUnknown()}, true)
	if !ref.IsUnknown() {
		t.Fatalf("a provider created in a preview has ID %q, want UnknownID", ref.ID)
	}
	if got := rec.having("configure"); got != nil {
		t.Fatalf("a provider whose configuration has unknowns was configured: %v", got)
	}
	p := mustGet(t, r, ref)
	ins := resource.PropertyMap{"name": str("b")}

	check, err := p.Check(ctx, providers.CheckRequest{URN: bucketURN, News: ins})
	if err != nil || !check.Inputs.DeepEquals(ins) {
		t.Errorf("Check = %v, %v; want the inputs accepted", check, err)
	}
	d, err := p.Diff(ctx, providers.DiffRequest{URN: bucketURN, ID: "b1", OldInputs: ins, NewInputs: ins})
	if err != nil || d.Changes != resource.DiffUnknown {
		t.Errorf("Diff = %+v, %v; want DiffUnknown", d, err)
	}
	created, err := p.Create(ctx, providers.CreateRequest{URN: bucketURN, Inputs: ins, Preview: true})
	if err != nil || created.ID != "" || !created.Outputs.DeepEquals(ins) {
		t.Errorf("Create in a preview = %+v, %v; want no ID and the inputs echoed", created, err)
	}
	updated, err := p.Update(ctx, providers.UpdateRequest{URN: bucketURN, ID: "b1", NewInputs: ins, Preview: true})
	if err != nil || !updated.Outputs.DeepEquals(ins) {
		t.Errorf("Update in a preview = %+v, %v", updated, err)
	}
	read, err := p.Read(ctx, providers.ReadRequest{URN: bucketURN, ID: "b1", Inputs: ins, State: ins})
	if err != nil || read.ID != "b1" {
		t.Errorf("Read = %+v, %v; want the recorded state", read, err)
	}
	inv, err := providers.Invoke(ctx, p, providers.InvokeRequest{Token: "cloud:index:getRegion"})
	if err != nil || len(inv.Return) != 0 {
		t.Errorf("Invoke = %+v, %v; want an empty result", inv, err)
	}
	for name, err := range map[string]error{
		"Create": second(p.Create(ctx, providers.CreateRequest{URN: bucketURN, Inputs: ins})),
		"Update": second(p.Update(ctx, providers.UpdateRequest{URN: bucketURN, ID: "b1", NewInputs: ins})),
		"Delete": second(p.Delete(ctx, providers.DeleteRequest{URN: bucketURN, ID: "b1"})),
	} {
		var le *providers.LifecycleError
		if !errors.As(err, &le) || !errors.Is(err, providers.ErrNotConfigured) || !strings.Contains(err.Error(), string(bucketURN)) {
			t.Errorf("%s outside a preview on an unconfigured provider = %v; want a *LifecycleError (ErrNotConfigured) naming the resource", name, err)
		}
	}

	// With known configuration a preview configures the provider, which
	// then answers for itself.
	known, _ := createProvider(t, r, providerURN("cloud", "known"), resource.PropertyMap{"region": str("us")}, true)
	res, err := mustGet(t, r, known).Create(ctx, providers.CreateRequest{URN: bucketURN, Inputs: ins, Preview: true})
	if err != nil || res.Outputs["region"].StringValue() != "us" {
		t.Errorf("Create in a preview on a configured provider = %+v, %v", res, err)
	}
}

func second[T any](_ T, err error) error { return err }

func TestLoadIsLazy(t *testing.T) {
	rec := &recorder{}
	r := newCloudRegistry(t, rec)
	ctx := t.Context()
	good := &resource.State{Type: providers.ProviderType("cloud"), URN: providerURN("cloud", "good"), ID: "g", Custom: true,
		Inputs: resource.PropertyMap{"region": str("us"), "version": str("1.0.0")}}
	failing := &resource.State{Type: providers.ProviderType("cloud"), URN: providerURN("cloud", "failing"), ID: "f", Custom: true,
		Inputs: resource.PropertyMap{"region": str("fail")}}
	bucket := &resource.State{Type: "cloud:index:Bucket", URN: bucketURN, ID: "b", Custom: true}
	if err := r.Load(ctx, []*resource.State{good, failing, bucket}); err != nil {
		t.Fatalf("Load: %v", err)
	}
	goodP, failingP := mustGet(t, r, providers.NewReference(good.URN, good.ID)), mustGet(t, r, providers.NewReference(failing.URN, failing.ID))
	if _, ok := r.Get(providers.NewReference(bucketURN, "b")); ok {
		t.Error("Load recorded a resource that is not a provider")
	}
	if got := rec.list(); got != nil {
		t.Fatalf("Load or Get started providers: %v", got)
	}

	// First use starts and configures (without CheckConfig).
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			if _, err := goodP.Create(ctx, providers.CreateRequest{URN: bucketURN}); err != nil {
				t.Errorf("Create on a loaded provider: %v", err)
			}
		})
	}
	wg.Wait()
	if got := rec.having("configure"); !cmp.Equal(got, []string{"configure p1 region=us"}) {
		t.Errorf("configure events = %v; want exactly one, from the recorded inputs", got)
	}

	// A provider whose configuration fails refuses every call, saying why.
	for range 2 {
		_, err := failingP.Create(ctx, providers.CreateRequest{URN: bucketURN})
		var le *providers.LifecycleError
		if !errors.As(err, &le) || !errors.Is(err, providers.ErrNotConfigured) || !strings.Contains(err.Error(), "no such region") || !strings.Contains(err.Error(), string(failing.URN)) {
			t.Errorf("Create on a provider whose configuration failed = %v", err)
		}
	}
	if got := rec.having("configure p2"); len(got) != 1 {
		t.Errorf("a failed configuration was retried: %v", got)
	}

	// Bad states are reported together; good ones are still loaded.
	noID := &resource.State{Type: providers.ProviderType("cloud"), URN: providerURN("cloud", "noid")}
	badVersion := &resource.State{Type: providers.ProviderType("cloud"), URN: providerURN("cloud", "badv"), ID: "x", Inputs: resource.PropertyMap{"version": resource.NewNumber(1)}}
	other := &resource.State{Type: providers.ProviderType("cloud"), URN: providerURN("cloud", "other"), ID: "o"}
	err := r.Load(ctx, []*resource.State{noID, good, badVersion, other})
	for _, want := range []string{"noid", "has no ID", "badv", "version"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Load of bad states = %v; want it to mention %q", err, want)
		}
	}
	if _, ok := r.Get(providers.NewReference(other.URN, other.ID)); !ok {
		t.Error("a good state loaded alongside bad ones was dropped")
	}
}

func TestInstancesRespectCancellation(t *testing.T) {
	r := newCloudRegistry(t, &recorder{})
	ref, _ := createProvider(t, r, providerURN("cloud", "p"), resource.PropertyMap{"region": str("us")}, false)
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, err := mustGet(t, r, ref).Create(ctx, providers.CreateRequest{URN: bucketURN}); !errors.Is(err, context.Canceled) {
		t.Errorf("Create with a cancelled context = %v, want context.Canceled", err)
	}
}

func TestInstanceRefusesConfigure(t *testing.T) {
	r := newCloudRegistry(t, &recorder{})
	ref, _ := createProvider(t, r, providerURN("cloud", "p"), resource.PropertyMap{"region": str("us")}, false)
	if _, err := mustGet(t, r, ref).(providers.Configurer).Configure(t.Context(), providers.ConfigureRequest{}); err == nil {
		t.Error("Configure on a registry instance succeeded; the registry must own configuration")
	}
}

func TestPanicsInRegistryInstances(t *testing.T) {
	r := providers.NewRegistry()
	_ = r.RegisterFactory("boom", "1.0.0", func(context.Context) (providers.Provider, error) {
		return &providers.Func{CreateF: func(context.Context, providers.CreateRequest) (providers.CreateResponse, error) {
			panic("index out of range")
		}}, nil
	})
	t.Cleanup(func() { _ = r.Close(context.Background()) })
	ref, _ := createProvider(t, r, providerURN("boom", "p"), resource.PropertyMap{}, false)
	_, err := mustGet(t, r, ref).Create(t.Context(), providers.CreateRequest{URN: bucketURN})
	var pe *providers.PanicError
	if !errors.As(err, &pe) {
		t.Fatalf("Create = %v, want a *PanicError", err)
	}
	for _, want := range []string{ref.String(), "boom@1.0.0", "Create", string(bucketURN), "index out of range"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not mention %q", err, want)
		}
	}
}

func TestRegistryConcurrentUse(t *testing.T) {
	r := newCloudRegistry(t, &recorder{})
	ctx := t.Context()
	var wg sync.WaitGroup
	for i := range 16 {
		wg.Go(func() {
			urn := providerURN("cloud", "p"+string(rune('a'+i)))
			checked, err := r.Check(ctx, providers.CheckRequest{URN: urn, News: resource.PropertyMap{"region": str("us")}})
			if err != nil {
				t.Error(err)
				return
			}
			created, err := r.Create(ctx, providers.CreateRequest{URN: urn, Inputs: checked.Inputs})
			if err != nil {
				t.Error(err)
				return
			}
			ref := providers.NewReference(urn, created.ID)
			p, ok := r.Get(ref)
			if !ok {
				t.Errorf("Get(%s) found nothing", ref)
				return
			}
			for range 10 {
				if _, err := p.Create(ctx, providers.CreateRequest{URN: bucketURN}); err != nil {
					t.Error(err)
				}
			}
			if i%2 == 0 {
				if _, err := r.Delete(ctx, providers.DeleteRequest{URN: urn, ID: created.ID}); err != nil {
					t.Error(err)
				}
			}
		})
	}
	wg.Wait()
}

// A host may keep a registry across operations: Load keeps instances that
// match the snapshot and replaces those a preview left unconfigured.
func TestLoadReconciles(t *testing.T) {
	rec := &recorder{}
	r := newCloudRegistry(t, rec)
	ctx := t.Context()
	urn := providerURN("cloud", "warm")
	ref, checked := createProvider(t, r, urn, resource.PropertyMap{"region": str("us")}, false)
	state := &resource.State{Type: providers.ProviderType("cloud"), URN: urn, ID: ref.ID, Inputs: checked, Outputs: checked}

	// The same snapshot again: the live instance stays.
	if err := r.Load(ctx, []*resource.State{state}); err != nil {
		t.Fatal(err)
	}
	live := mustGet(t, r, ref)
	if _, err := live.Create(ctx, providers.CreateRequest{URN: bucketURN}); err != nil {
		t.Fatalf("the instance kept by Load: %v", err)
	}

	// A preview leaves the instance unconfigured...
	unknown := resource.PropertyMap{"region": resource.NewUnknown()}
	if _, err := r.Update(ctx, providers.UpdateRequest{URN: urn, ID: ref.ID, OldInputs: checked, NewInputs: unknown, Preview: true}); err != nil {
		t.Fatal(err)
	}
	if _, err := mustGet(t, r, ref).Create(ctx, providers.CreateRequest{URN: bucketURN}); !errors.Is(err, providers.ErrNotConfigured) {
		t.Fatalf("after a preview with unknowns, Create = %v; want ErrNotConfigured", err)
	}
	// ... and the next operation's Load restores it from the snapshot.
	if err := r.Load(ctx, []*resource.State{state}); err != nil {
		t.Fatal(err)
	}
	res, err := mustGet(t, r, ref).Create(ctx, providers.CreateRequest{URN: bucketURN})
	if err != nil || res.Outputs["region"].StringValue() != "us" {
		t.Errorf("after Load, Create = %+v, %v; want the recorded configuration", res, err)
	}
	if got := rec.having("configure"); !cmp.Equal(got, []string{"configure p2 region=us", "configure p4 region=us"}) {
		t.Errorf("configure events = %v", got)
	}
}

// TestRegistryAliases: a provider resource renamed through an alias keeps
// its ID and its instance. Load answers its old references (its Aliases)
// with the instance of its new one; Alias answers a new reference with
// the instance of an old one; an instance of its own wins; deleting the
// resource by either reference shuts the one instance down.
func TestRegistryAliases(t *testing.T) {
	rec := &recorder{}
	r := newCloudRegistry(t, rec)
	ctx := t.Context()
	oldURN, newURN := providerURN("cloud", "old"), providerURN("cloud", "new")
	renamed := &resource.State{Type: providers.ProviderType("cloud"), URN: newURN, ID: "x", Custom: true,
		Inputs: resource.PropertyMap{"region": str("us")}, Aliases: []resource.URN{oldURN}}
	if err := r.Load(ctx, []*resource.State{renamed}); err != nil {
		t.Fatal(err)
	}
	oldRef, newRef := providers.NewReference(oldURN, "x"), providers.NewReference(newURN, "x")
	if mustGet(t, r, oldRef) != mustGet(t, r, newRef) {
		t.Error("the old reference of a loaded provider resource is not answered by its instance")
	}
	if _, ok := r.Get(providers.NewReference(oldURN, "other-id")); ok {
		t.Error("an alias answers for another ID")
	}

	// A rename in this run: the new reference takes the old one's instance.
	r2 := newCloudRegistry(t, &recorder{})
	ref, _ := createProvider(t, r2, oldURN, resource.PropertyMap{"region": str("us")}, false)
	renamedRef := providers.NewReference(newURN, ref.ID)
	if _, ok := r2.Get(renamedRef); ok {
		t.Fatal("a reference nobody recorded is answered")
	}
	r2.Alias(renamedRef, ref)
	if mustGet(t, r2, renamedRef) != mustGet(t, r2, ref) {
		t.Error("Alias: the new reference is not answered by the old one's instance")
	}
	if _, err := r2.Delete(ctx, providers.DeleteRequest{URN: newURN, ID: ref.ID}); err != nil {
		t.Fatal(err)
	}
	for _, x := range []providers.Reference{ref, renamedRef} {
		if _, ok := r2.Get(x); ok {
			t.Errorf("after the delete by its new reference, %s is still answered", x)
		}
	}

	// An instance of its own wins over an alias.
	own, _ := createProvider(t, r, newURN, resource.PropertyMap{"region": str("eu")}, false)
	r.Alias(own, oldRef)
	if mustGet(t, r, own) == mustGet(t, r, oldRef) {
		t.Error("an alias hides a reference's own instance")
	}
}

// TestInternalKeyNeverReachesTheProvider pins the handling of "__internal"
// that plugins built with pulumi-go-provider rely on: their CheckConfig adds
// it to the checked inputs, and their DiffConfig asks for a replacement
// when any of the maps it is handed disagree on it.
func TestInternalKeyNeverReachesTheProvider(t *testing.T) {
	internal := func(v string) resource.PropertyValue {
		return resource.NewObject(resource.PropertyMap{"framework": str(v)})
	}
	refuse := func(method string, maps ...resource.PropertyMap) error {
		for _, m := range maps {
			if _, ok := m[providers.InternalKey]; ok {
				return fmt.Errorf("%s was handed %s", method, providers.InternalKey)
			}
		}
		return nil
	}
	r := providers.NewRegistry(providers.WithIDs(counterIDs()))
	t.Cleanup(func() { _ = r.Close(context.Background()) })
	err := r.RegisterFactory("gpp", "1.0.0", func(context.Context) (providers.Provider, error) {
		return &providers.Func{
			CheckConfigF: func(_ context.Context, req providers.CheckRequest) (providers.CheckResponse, error) {
				if err := refuse("CheckConfig", req.Olds, req.News); err != nil {
					return providers.CheckResponse{}, err
				}
				return providers.CheckResponse{Inputs: with(req.News, providers.InternalKey, internal("provider"))}, nil
			},
			DiffConfigF: func(_ context.Context, req providers.DiffRequest) (providers.DiffResponse, error) {
				if err := refuse("DiffConfig", req.OldInputs, req.OldOutputs, req.NewInputs); err != nil {
					return providers.DiffResponse{}, err
				}
				return providers.DiffInputs(req.OldOutputs, req.NewInputs), nil
			},
			ConfigureF: func(_ context.Context, req providers.ConfigureRequest) (providers.ConfigureResponse, error) {
				return providers.ConfigureResponse{}, refuse("Configure", req.Inputs)
			},
		}, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	urn := providerURN("gpp", "main")
	config := resource.PropertyMap{"root": str("/tmp")}
	tests := []struct {
		name         string
		news         resource.PropertyMap
		wantInternal resource.PropertyValue
	}{
		{"the provider's own", config, internal("provider")},
		{"the program's wins", with(config, providers.InternalKey, internal("program")), internal("program")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			checked, err := r.Check(ctx, providers.CheckRequest{URN: urn, News: tt.news})
			if err != nil || len(checked.Failures) > 0 {
				t.Fatalf("Check: %v %v", err, checked.Failures)
			}
			if got := checked.Inputs[providers.InternalKey]; !got.DeepEquals(tt.wantInternal) {
				t.Errorf("checked %s = %v, want %v", providers.InternalKey, got, tt.wantInternal)
			}
			created, err := r.Create(ctx, providers.CreateRequest{URN: urn, Inputs: checked.Inputs})
			if err != nil {
				t.Fatalf("Create: %v", err)
			}
			if _, ok := created.Outputs[providers.InternalKey]; ok {
				t.Errorf("the provider resource's outputs %v hold %s", created.Outputs, providers.InternalKey)
			}
			// A rerun checks the same configuration again, against old
			// inputs that hold the provider's bookkeeping and old outputs
			// that do not: no change.
			again, err := r.Check(ctx, providers.CheckRequest{URN: urn, Olds: checked.Inputs, News: tt.news})
			if err != nil {
				t.Fatalf("second Check: %v", err)
			}
			d, err := r.Diff(ctx, providers.DiffRequest{URN: urn, ID: created.ID,
				OldInputs: checked.Inputs, OldOutputs: created.Outputs, NewInputs: again.Inputs})
			if err != nil {
				t.Fatalf("Diff: %v", err)
			}
			if d.Changes != resource.DiffNone {
				t.Errorf("Diff of an unchanged configuration = %+v, want no change", d)
			}
			// Nor is a change of the bookkeeping alone a change.
			d, err = r.Diff(ctx, providers.DiffRequest{URN: urn, ID: created.ID,
				OldInputs: checked.Inputs, OldOutputs: created.Outputs, NewInputs: with(again.Inputs, providers.InternalKey, internal("newer"))})
			if err != nil || d.Changes != resource.DiffNone {
				t.Errorf("Diff of a new %s = %+v, %v; want no change", providers.InternalKey, d, err)
			}
		})
	}
}
