package interop

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/groundwork-iac/groundwork/engine"
	"github.com/groundwork-iac/groundwork/providers/pulumi"
	"github.com/groundwork-iac/groundwork/resource"
)

// TestSDKGetResourceByURN: a resource got by its URN (the URN resource
// option, the engine's getResource) has the registered resource's ID,
// URN and outputs, and is not registered again.
func TestSDKGetResourceByURN(t *testing.T) {
	eachLanguage(t, func(t *testing.T, lang language) {
		store, _ := newStore(t)
		s := newSDKStack(t, lang, store, newCloud(), "dev")
		res := s.mustUp(map[string]string{"scenario": "urn"})
		a := byName(res.Snapshot)["a"]
		if a == nil {
			t.Fatal("a was not recorded")
		}
		want := resource.PropertyMap{
			"againValue": resource.NewString("x"),
			"againID":    resource.NewString(string(a.ID)),
			"againURN":   resource.NewString(string(a.URN)),
		}
		if diff := cmp.Diff(want, res.Outputs); diff != "" {
			t.Errorf("outputs (-want +got):\n%s", diff)
		}
		if _, ok := byName(res.Snapshot)["a-again"]; ok {
			t.Error("the resource got by URN was registered")
		}
		if diff := cmp.Diff([]string{"create a"}, s.cloud.takeWrites()); diff != "" {
			t.Errorf("writes (-want +got):\n%s", diff)
		}
	})
}

// TestSDKStackReference: a stack reads another stack's outputs; the
// other stack's secret stays secret, in the program, in the outputs and in
// the state files.
func TestSDKStackReference(t *testing.T) {
	eachLanguage(t, func(t *testing.T, lang language) {
		store, dir := newStore(t)
		cl := newCloud()
		producer := newSDKStack(t, lang, store, cl, "producer")
		producer.mustUp(map[string]string{"scenario": "producer"})
		consumer := newSDKStack(t, lang, store, cl, "consumer")
		want := resource.PropertyMap{
			"plain":         resource.NewString("p"),
			"token":         resource.NewSecret(resource.NewString("s3cr3t-t0k3n")),
			"tokenIsSecret": resource.NewBool(true),
		}
		res, err := consumer.preview(map[string]string{"scenario": "consumer"})
		if err != nil {
			t.Fatalf("preview: %v\n%s", err, consumer.diagnostics())
		}
		if diff := cmp.Diff(want, res.Outputs); diff != "" {
			t.Errorf("preview outputs (-want +got):\n%s", diff)
		}
		res = consumer.mustUp(map[string]string{"scenario": "consumer"})
		if diff := cmp.Diff(want, res.Outputs); diff != "" {
			t.Errorf("outputs (-want +got):\n%s", diff)
		}
		ref := byName(res.Snapshot)["organization/interop/producer"]
		if ref == nil || ref.Type != pulumi.StackReferenceType || !ref.External {
			t.Errorf("the stack reference is recorded as %+v", ref)
		}
		noPlaintext(t, dir, "s3cr3t-t0k3n")
	})
}

// noPlaintext fails t if a file under dir holds secret in the clear.
func noPlaintext(t *testing.T, dir, secret string) {
	t.Helper()
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(path)
		if err == nil && bytes.Contains(b, []byte(secret)) {
			t.Errorf("%s holds a secret in the clear", path)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestSDKTransforms: a stack transform reaches every resource, a
// component's transform its children, and an invoke transform the
// arguments of an invoke.
func TestSDKTransforms(t *testing.T) {
	eachLanguage(t, func(t *testing.T, lang language) {
		store, _ := newStore(t)
		s := newSDKStack(t, lang, store, newCloud(), "dev")
		res := s.mustUp(map[string]string{"scenario": "transforms"})
		rs := byName(res.Snapshot)
		for name, want := range map[string]resource.PropertyMap{
			"child": {"value": resource.NewString("child-from-group"), "tagged": resource.NewBool(true)},
			"plain": {"value": resource.NewString("orig"), "tagged": resource.NewBool(true)},
		} {
			r := rs[name]
			if r == nil {
				t.Errorf("%s was not recorded", name)
				continue
			}
			if diff := cmp.Diff(want, r.Inputs); diff != "" {
				t.Errorf("%s's inputs (-want +got):\n%s", name, diff)
			}
		}
		if got := res.Outputs["echoed"]; !got.DeepEquals(resource.NewString("transformed")) {
			t.Errorf("echoed = %v, want the transformed argument", got)
		}
		// A rerun transforms alike: nothing changes.
		res = s.mustUp(map[string]string{"scenario": "transforms"})
		if c := changes(res); len(c) > 0 {
			t.Errorf("a rerun changed %v", c)
		}
	})
}

// TestSDKResourceHooks: the hooks a program binds run around the creates,
// updates and deletes of its resource — the delete hooks after the program
// stopped declaring it — and not in previews; a failing before hook stops
// the create.
func TestSDKResourceHooks(t *testing.T) {
	eachLanguage(t, func(t *testing.T, lang language) {
		store, _ := newStore(t)
		s := newSDKStack(t, lang, store, newCloud(), "dev")
		log := filepath.Join(t.TempDir(), "hooks.log")
		hookLines := func() []string {
			b, err := os.ReadFile(log)
			if os.IsNotExist(err) {
				return nil
			}
			if err != nil {
				t.Fatal(err)
			}
			if err := os.Remove(log); err != nil {
				t.Fatal(err)
			}
			return strings.Split(strings.TrimSpace(string(b)), "\n")
		}
		cfg := func(declare bool, value string) map[string]string {
			return map[string]string{"scenario": "hooks", "hookLog": log, "declare": map[bool]string{true: "true", false: "false"}[declare], "value": value}
		}
		steps := []struct {
			name    string
			preview bool
			declare bool
			value   string
			hooks   []string
			writes  []string
		}{
			{"preview of the create", true, true, "v1", nil, nil},
			{"create", false, true, "v1",
				[]string{"beforeCreate hooked new=v1 old=- id=false", "afterCreate hooked new=v1 old=- id=true"},
				[]string{"create hooked"}},
			{"unchanged", false, true, "v1", nil, nil},
			{"update", false, true, "v2",
				[]string{"beforeUpdate hooked new=v2 old=v1 id=true", "afterUpdate hooked new=v2 old=v1 id=true"},
				[]string{"update hooked"}},
			{"no longer declared", false, false, "",
				[]string{"beforeDelete hooked new=- old=v2 id=true", "afterDelete hooked new=- old=v2 id=true"},
				[]string{"delete hooked"}},
		}
		for _, st := range steps {
			var err error
			if st.preview {
				_, err = s.preview(cfg(st.declare, st.value))
			} else {
				_, err = s.up(cfg(st.declare, st.value))
			}
			if err != nil {
				t.Fatalf("%s: %v\n%s", st.name, err, s.diagnostics())
			}
			if diff := cmp.Diff(st.hooks, hookLines(), cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("%s: hooks (-want +got):\n%s", st.name, diff)
			}
			if diff := cmp.Diff(st.writes, s.cloud.takeWrites(), cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("%s: writes (-want +got):\n%s", st.name, diff)
			}
		}

		_, err := s.up(cfg(true, "veto"))
		if err == nil || !strings.Contains(err.Error(), "vetoed by the program") {
			t.Errorf("a create vetoed by its hook: err = %v", err)
		}
		if w := s.cloud.takeWrites(); len(w) > 0 {
			t.Errorf("the vetoed create wrote %v", w)
		}
	})
}

// TestSDKAliasesOfComponents: a component renamed and retyped with
// aliases keeps its record, and so do its children and grandchildren,
// whose own aliases the engine derives: nothing is created or deleted.
func TestSDKAliasesOfComponents(t *testing.T) {
	eachLanguage(t, func(t *testing.T, lang language) {
		store, _ := newStore(t)
		s := newSDKStack(t, lang, store, newCloud(), "dev")
		v1 := s.mustUp(map[string]string{"scenario": "aliases", "version": "1"})
		s.cloud.takeWrites()
		v2 := s.mustUp(map[string]string{"scenario": "aliases", "version": "2"})
		if w := s.cloud.takeWrites(); len(w) > 0 {
			t.Errorf("the rename wrote %v", w)
		}
		if c := changes(v2); len(c) > 0 {
			t.Errorf("the rename took steps %v", c)
		}
		before, after := byName(v1.Snapshot), byName(v2.Snapshot)
		for old, renamed := range map[string]string{"app-db": "web-db", "leaf": "leaf"} {
			if after[renamed] == nil || after[renamed].ID != before[old].ID {
				t.Errorf("%s: recorded %+v, want %s's record (ID %s)", renamed, after[renamed], old, before[old].ID)
			}
		}
		for _, gone := range []string{"app", "app-db", "app-sub"} {
			if _, ok := after[gone]; ok {
				t.Errorf("%s is still recorded under its old name", gone)
			}
		}
		if web := after["web"]; web == nil || web.Type != "interop:index:Team" {
			t.Errorf("web is recorded as %+v", web)
		}
	})
}

// TestSDKRead: a program reads a thing it does not manage (a get, by ID):
// its outputs come from the provider, and it is recorded as external.
func TestSDKRead(t *testing.T) {
	eachLanguage(t, func(t *testing.T, lang language) {
		store, _ := newStore(t)
		s := newSDKStack(t, lang, store, newCloud(), "dev")
		res := s.mustUp(map[string]string{"scenario": "read"})
		if got := res.Outputs["read"]; !got.DeepEquals(resource.NewString("outside")) {
			t.Errorf("read = %v", got)
		}
		ext := byName(res.Snapshot)["ext"]
		if ext == nil || !ext.External || ext.ID != "ext-1" {
			t.Errorf("ext is recorded as %+v", ext)
		}
		if _, err := s.engine(nil).Destroy(testCtx(t)); err != nil {
			t.Fatal(err)
		}
		if w := s.cloud.takeWrites(); len(w) > 0 {
			t.Errorf("destroying a stack that only read a thing wrote %v", w)
		}
	})
}

// TestSDKOutputsAfterFailure: when a resource cannot be created, the
// update fails with the provider's error (and the program is told the
// deployment is going away, so that it ends rather than waits), and the
// stack keeps the outputs it had, as with Pulumi's engine: the SDKs
// register the stack's outputs last, and not at all when one of them
// failed.
func TestSDKOutputsAfterFailure(t *testing.T) {
	eachLanguage(t, func(t *testing.T, lang language) {
		store, _ := newStore(t)
		s := newSDKStack(t, lang, store, newCloud(), "dev")
		s.mustUp(map[string]string{"scenario": "failure", "fail": "false"})
		res, err := s.up(map[string]string{"scenario": "failure", "fail": "true"})
		if err == nil || !strings.Contains(err.Error(), "bad cannot be created") {
			t.Errorf("err = %v, want the provider's failure", err)
		}
		var cancelled *engine.CancelledError
		if errors.As(err, &cancelled) {
			t.Errorf("the program did not end by itself: %v\n%s", err, s.diagnostics())
		}
		want := resource.PropertyMap{"a": resource.NewString("one")}
		if diff := cmp.Diff(want, res.Outputs); diff != "" {
			t.Errorf("the failed update's outputs (-want +got):\n%s", diff)
		}
		outs, err := s.engine(nil).Outputs(testCtx(t))
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, outs); diff != "" {
			t.Errorf("the stack's outputs after the failure (-want +got):\n%s", diff)
		}
		if w := s.cloud.takeWrites(); len(w) > 0 {
			t.Errorf("writes %v", w)
		}
	})
}
