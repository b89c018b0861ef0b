package store_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/groundwork-iac/groundwork/state"

	"github.com/google/go-cmp/cmp"

	"github.com/groundwork-iac/groundwork/resource"
	"github.com/groundwork-iac/groundwork/state/filestore"
	"github.com/groundwork-iac/groundwork/state/internal/format"
	"github.com/groundwork-iac/groundwork/state/memstore"
	"github.com/groundwork-iac/groundwork/state/secrets"
)

// harness runs one conformance suite against every Store. open returns a
// new store over the same storage, as another process would see it.
type harness struct {
	open    func(opts ...state.Option) state.Store
	files   func(stack state.StackID) map[string][]byte
	setFile func(stack state.StackID, name string, data []byte)
}

func forEachStore(t *testing.T, test func(t *testing.T, h harness)) {
	t.Run("file", func(t *testing.T) {
		root := t.TempDir()
		test(t, harness{
			open: func(opts ...state.Option) state.Store {
				s, err := filestore.New(root, append([]state.Option{fastSecrets()}, opts...)...)
				if err != nil {
					t.Fatal(err)
				}
				return s
			},
			files: func(stack state.StackID) map[string][]byte {
				out := map[string][]byte{}
				entries, _ := os.ReadDir(filepath.Join(root, stack.Project, stack.Stack))
				for _, e := range entries {
					data, err := os.ReadFile(filepath.Join(root, stack.Project, stack.Stack, e.Name()))
					if err == nil {
						out[e.Name()] = data
					}
				}
				return out
			},
			setFile: func(stack state.StackID, name string, data []byte) {
				p := filepath.Join(root, stack.Project, stack.Stack, name)
				if data == nil {
					os.Remove(p)
					return
				}
				if err := os.WriteFile(p, data, 0o600); err != nil {
					t.Fatal(err)
				}
			},
		})
	})
	t.Run("memory", func(t *testing.T) {
		first := memstore.New(fastSecrets())
		test(t, harness{
			open: func(opts ...state.Option) state.Store {
				return first.Reopen(opts...)
			},
			files:   first.Files,
			setFile: first.SetFile,
		})
	})
}

func TestStoreLoadMissingStack(t *testing.T) {
	forEachStore(t, func(t *testing.T, h harness) {
		s := h.open()
		snap, err := s.Load(context.Background(), state.StackID{Project: "test", Stack: "nothing-here"})
		if err != nil {
			t.Fatal(err)
		}
		if len(snap.Resources) != 0 || len(snap.PendingOperations) != 0 || snap.Manifest.Version != state.FormatVersion {
			t.Errorf("Load of a missing stack = %+v; want an empty snapshot", snap)
		}
		if len(h.files(state.StackID{Project: "test", Stack: "nothing-here"})) != 0 {
			t.Error("Load of a missing stack wrote files")
		}
	})
}

func TestStoreSaveLoadListRemove(t *testing.T) {
	ctx := context.Background()
	forEachStore(t, func(t *testing.T, h harness) {
		s := h.open()
		in := chainStack(3)
		in.Resources[1].Outputs["password"] = resource.NewSecret(resource.NewString("s3cr3t-value"))
		for _, stack := range []string{"prod", "dev"} {
			if err := s.Save(ctx, state.StackID{Project: "test", Stack: stack}, in); err != nil {
				t.Fatal(err)
			}
		}
		// Another store over the same storage reads what was saved.
		out, err := h.open().Load(ctx, dev)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(in, out, snapshotOpts, propertyOpts); diff != "" {
			t.Errorf("Load (-saved +loaded):\n%s", diff)
		}
		if out.Secrets == nil || out.Secrets.Type != secrets.PassphraseType {
			t.Errorf("Secrets = %+v; want a passphrase manager's state", out.Secrets)
		}
		list, err := s.List(ctx)
		if err != nil || !cmp.Equal(list, []state.StackID{{Project: "test", Stack: "dev"}, {Project: "test", Stack: "prod"}}) {
			t.Errorf("List = %v, %v", list, err)
		}
		if err := s.Remove(ctx, state.StackID{Project: "test", Stack: "prod"}); err != nil {
			t.Fatal(err)
		}
		if list, _ := s.List(ctx); !cmp.Equal(list, []state.StackID{{Project: "test", Stack: "dev"}}) {
			t.Errorf("List after Remove = %v", list)
		}
		if err := s.Remove(ctx, state.StackID{Project: "test", Stack: "prod"}); !errors.Is(err, state.ErrStackNotFound) {
			t.Errorf("second Remove = %v; want ErrStackNotFound", err)
		}
		if files := h.files(state.StackID{Project: "test", Stack: "prod"}); len(files) != 0 {
			t.Errorf("Remove left files behind: %v", files)
		}
		l := mustLock(t, s, dev)
		var le *state.LockedError
		if err := h.open().Remove(ctx, dev); !errors.As(err, &le) {
			t.Errorf("Remove of a locked stack = %v; want *LockedError", err)
		}
		l.Unlock(ctx)
	})
}

func TestStoreRejectsBadStackNames(t *testing.T) {
	ctx := context.Background()
	forEachStore(t, func(t *testing.T, h harness) {
		s := h.open()
		for _, name := range []string{"", "..", ".", "../x", "a/b", `a\b`, ".hidden", "-x", "x\x00", string(make([]byte, 101))} {
			var ne *state.StackNameError
			if _, err := s.Load(ctx, state.StackID{Project: "test", Stack: name}); !errors.As(err, &ne) {
				t.Errorf("Load(%q) = %v; want *StackNameError", name, err)
			}
			if err := s.Save(ctx, state.StackID{Project: "test", Stack: name}, &state.Snapshot{}); !errors.As(err, &ne) {
				t.Errorf("Save(%q) = %v; want *StackNameError", name, err)
			}
			if _, err := s.Lock(ctx, state.StackID{Project: "test", Stack: name}, "x"); !errors.As(err, &ne) {
				t.Errorf("Lock(%q) = %v; want *StackNameError", name, err)
			}
		}
		for _, name := range []string{"dev", "my-stack_1.prod", "_x", "A9"} {
			if err := state.CheckStackName(name); err != nil {
				t.Errorf("CheckStackName(%q) = %v", name, err)
			}
		}
	})
}

func TestSaveRefusesBrokenSnapshot(t *testing.T) {
	ctx := context.Background()
	forEachStore(t, func(t *testing.T, h harness) {
		s := h.open()
		good := chainStack(2)
		if err := s.Save(ctx, dev, good); err != nil {
			t.Fatal(err)
		}
		before := h.files(dev)[fileSnapshot]
		bad := chainStack(2)
		bad.Resources[0], bad.Resources[1] = bad.Resources[1], bad.Resources[0]
		err := s.Save(ctx, dev, bad)
		var ie *state.IntegrityError
		if !errors.As(err, &ie) || ie.Rule != state.RuleProviderUnresolved {
			t.Fatalf("Save = %v; want an *IntegrityError (%s)", err, state.RuleProviderUnresolved)
		}
		if after := h.files(dev)[fileSnapshot]; !bytes.Equal(before, after) {
			t.Error("a refused Save changed the snapshot file")
		}
		if out, err := s.Load(ctx, dev); err != nil || len(out.Resources) != 3 {
			t.Errorf("Load after a refused Save = %v, %v", out, err)
		}
	})
}

func TestLoadRejectsNewerFormatAndBrokenFiles(t *testing.T) {
	ctx := context.Background()
	forEachStore(t, func(t *testing.T, h harness) {
		s := h.open()
		if err := s.Save(ctx, dev, chainStack(2)); err != nil {
			t.Fatal(err)
		}
		good := h.files(dev)[fileSnapshot]

		h.setFile(dev, fileSnapshot, bytes.Replace(good, []byte(fmt.Sprintf(`{"version":%d`, state.FormatVersion)), []byte(`{"version":99`), 1))
		var fv *state.FormatVersionError
		if _, err := s.Load(ctx, dev); !errors.As(err, &fv) || fv.Found != 99 {
			t.Errorf("Load of a newer file = %v; want *FormatVersionError", err)
		}

		// Swap two resources in the file: the provider now comes after
		// its first user. The file is sealed with the stack's own key, as
		// a buggy writer would have sealed it: integrity is checked behind
		// the MAC.
		broken := chainStack(2)
		broken.Resources[0], broken.Resources[1] = broken.Resources[1], broken.Resources[0]
		mgr, err := s.(state.SecretsProvider).SecretsManager(ctx, dev, nil)
		if err != nil {
			t.Fatal(err)
		}
		data, err := format.EncodeSnapshot(ctx, broken, mgr, 0, nil)
		if err != nil {
			t.Fatal(err)
		}
		h.setFile(dev, fileSnapshot, data)
		var ie *state.IntegrityError
		if _, err := s.Load(ctx, dev); !errors.As(err, &ie) || ie.Rule != state.RuleProviderUnresolved {
			t.Errorf("Load of a file breaking integrity = %v; want *IntegrityError", err)
		}
	})
}

func TestWrongPassphraseFailsBeforeAnyWrite(t *testing.T) {
	ctx := context.Background()
	forEachStore(t, func(t *testing.T, h harness) {
		s := h.open()
		snap := chainStack(1)
		snap.Resources[1].Inputs["token"] = resource.NewSecret(resource.NewString("tok-123"))
		if err := s.Save(ctx, dev, snap); err != nil {
			t.Fatal(err)
		}
		before := h.files(dev)
		wrong := h.open(state.WithSecrets(state.PassphraseSecrets("not the passphrase", secrets.WithIterations(1000))))
		if _, err := wrong.Load(ctx, dev); !errors.Is(err, secrets.ErrWrongPassphrase) {
			t.Errorf("Load with a wrong passphrase = %v; want ErrWrongPassphrase", err)
		}
		if err := wrong.Save(ctx, dev, chainStack(1)); !errors.Is(err, secrets.ErrWrongPassphrase) {
			t.Errorf("Save with a wrong passphrase = %v; want ErrWrongPassphrase", err)
		}
		mustLock(t, wrong, dev)
		if _, err := wrong.OpenJournal(ctx, dev, chainStack(1)); !errors.Is(err, secrets.ErrWrongPassphrase) {
			t.Errorf("OpenJournal with a wrong passphrase = %v; want ErrWrongPassphrase", err)
		}
		after := h.files(dev)
		delete(after, fileLock)
		if diff := cmp.Diff(before, after); diff != "" {
			t.Errorf("files changed:\n%s", diff)
		}
	})
}

func TestNoSecretPlaintextInAnyFile(t *testing.T) {
	ctx := context.Background()
	const plain = "pl41ntext-must-not-leak"
	forEachStore(t, func(t *testing.T, h harness) {
		s := h.open()
		mustLock(t, s, dev)
		base := chainStack(1)
		j, err := s.OpenJournal(ctx, dev, base)
		if err != nil {
			t.Fatal(err)
		}
		r := newBucket("secretive", base.Resources[0])
		r.Inputs["password"] = resource.NewSecret(resource.NewString(plain))
		r.Outputs["nested"] = resource.NewObject(resource.PropertyMap{"x": resource.NewOutput(resource.Output{
			Known: true, Secret: true, Element: resource.NewArray(resource.NewString(plain)),
		})})
		create(t, j, r)
		check := func(when string) {
			for name, data := range h.files(dev) {
				if bytes.Contains(data, []byte(plain)) {
					t.Errorf("%s: %s holds a secret's plaintext", when, name)
				}
			}
		}
		check("after the journal entries")
		if _, err := j.Commit(ctx); err != nil {
			t.Fatal(err)
		}
		check("after Commit")
		create(t, j, newBucket("after", base.Resources[0]))
		got, err := h.open().Load(ctx, dev)
		if err != nil {
			t.Fatal(err)
		}
		if v := got.Resources[2].Inputs["password"]; !v.IsSecret() || v.SecretElement().StringValue() != plain {
			t.Errorf("the secret did not come back: %v", v)
		}
		if err := j.Close(ctx); err != nil {
			t.Fatal(err)
		}
		check("after Close")
	})
}

func TestFileStoreWithoutSecretsRefusesSecrets(t *testing.T) {
	s, err := filestore.New(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	snap := chainStack(1)
	snap.Resources[1].Inputs["k"] = resource.NewSecret(resource.NewString("x"))
	if err := s.Save(context.Background(), dev, snap); !errors.Is(err, state.ErrNoSecretsManager) {
		t.Errorf("Save = %v; want ErrNoSecretsManager", err)
	}
	if err := s.Save(context.Background(), dev, chainStack(1)); err != nil {
		t.Errorf("Save without secrets = %v", err)
	}
}
