package interop

import (
	"bytes"
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/groundwork-iac/groundwork/engine"
	"github.com/groundwork-iac/groundwork/plugin"
	"github.com/groundwork-iac/groundwork/providers"
	"github.com/groundwork-iac/groundwork/resource"
	"github.com/groundwork-iac/groundwork/state"
	"github.com/groundwork-iac/groundwork/state/filestore"
)

// token is the provider's secret configuration; it must never reach the
// state files in the clear.
const token = "t0k3n-s3cr3t"

// filePlugin is a plugin that manages files under a configured root (see
// plugins/): its package and its file resource's type.
type filePlugin struct{ pkg, fileType string }

var (
	// gpp is built with pulumi-go-provider (infer).
	gpp = filePlugin{pkg: "gpp", fileType: "gpp:index:File"}
	// tffile is a Terraform provider (terraform-plugin-sdk/v2) served
	// through the Pulumi Terraform bridge.
	tffile = filePlugin{pkg: "tffile", fileType: "tffile:index:File"}
)

// fileStack is a stack whose program manages files through a file
// plugin, by its default provider or an explicit one.
type fileStack struct {
	t        *testing.T
	plugin   filePlugin
	explicit bool
	stateDir string
	root     string
	eng      *engine.Engine
}

func newFileStack(t *testing.T, fp filePlugin, explicit bool) *fileStack {
	t.Helper()
	dir := t.TempDir()
	s := &fileStack{t: t, plugin: fp, explicit: explicit, stateDir: filepath.Join(dir, "state"), root: filepath.Join(dir, "root")}
	if err := os.Mkdir(s.root, 0o755); err != nil {
		t.Fatal(err)
	}
	store, err := filestore.New(s.stateDir, state.WithSecrets(state.PassphraseSecrets("interop")))
	if err != nil {
		t.Fatal(err)
	}
	config := map[string]resource.PropertyValue{}
	if !explicit {
		config[fp.pkg+":root"] = resource.NewString(s.root)
		config[fp.pkg+":token"] = resource.NewSecret(resource.NewString(token))
	}
	s.eng, err = engine.New(engine.Config{
		Project: "interop", Stack: "dev", Store: store, Config: config,
		Providers: func() *providers.Registry {
			return providers.NewRegistry(providers.WithResolver(plugin.Resolver(plugin.Options{Dirs: []string{pluginDir}})))
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// program declares the files, name → content, each named by its key.
func (s *fileStack) program(files map[string][2]string) engine.Program {
	return func(ctx *engine.Context) error {
		var opts []engine.ResourceOption
		if s.explicit {
			p := ctx.Provider(s.plugin.pkg, "explicit", engine.Props{
				"root": s.root, "token": resource.NewSecret(resource.NewString(token)),
			})
			opts = append(opts, engine.Provider(p))
		}
		for name, f := range files {
			ctx.Register(s.plugin.fileType, name, engine.Props{"name": f[0], "content": f[1]}, opts...)
		}
		return nil
	}
}

// writes returns the writes the plugin made since the last call, sorted.
func (s *fileStack) writes() []string {
	s.t.Helper()
	path := filepath.Join(s.root, "writes.log")
	b, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		s.t.Fatal(err)
	}
	if err := os.Remove(path); err != nil {
		s.t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	slices.Sort(lines)
	return lines
}

// steps summarizes a result's steps as "op name", sorted, leaving out the
// steps that change nothing.
func steps(res *engine.Result) []string {
	var out []string
	for _, st := range res.Steps {
		if st.Op == engine.StepSame || st.Op == engine.StepOutputs {
			continue
		}
		out = append(out, string(st.Op)+" "+st.URN.Name())
	}
	slices.Sort(out)
	return out
}

// TestFileProviderLifecycle runs each file plugin through a whole
// lifecycle, with its default provider and with an explicit one, both
// configured with a secret: create, a no-change rerun that writes
// nothing, update, replace, delete.
func TestFileProviderLifecycle(t *testing.T) {
	for _, fp := range []filePlugin{gpp, tffile} {
		for _, explicit := range []bool{false, true} {
			name := fp.pkg + "/default provider"
			if explicit {
				name = fp.pkg + "/explicit provider"
			}
			t.Run(name, func(t *testing.T) {
				testFileProviderLifecycle(t, fp, explicit)
			})
		}
	}
}

func testFileProviderLifecycle(t *testing.T, fp filePlugin, explicit bool) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	s := newFileStack(t, fp, explicit)
	provider := "default"
	if explicit {
		provider = "explicit"
	}
	ops := []struct {
		name       string
		files      map[string][2]string
		destroy    bool
		wantSteps  []string
		wantWrites []string
	}{{
		name:       "create",
		files:      map[string][2]string{"a": {"a.txt", "hello"}, "b": {"b.txt", "bye"}},
		wantSteps:  []string{"create a", "create b", "create " + provider, "create interop-dev"},
		wantWrites: []string{"create a.txt", "create b.txt"},
	}, {
		name:  "no-change rerun",
		files: map[string][2]string{"a": {"a.txt", "hello"}, "b": {"b.txt", "bye"}},
	}, {
		name:       "update",
		files:      map[string][2]string{"a": {"a.txt", "hello, world"}, "b": {"b.txt", "bye"}},
		wantSteps:  []string{"update a"},
		wantWrites: []string{"update a.txt"},
	}, {
		name:       "replace",
		files:      map[string][2]string{"a": {"a.txt", "hello, world"}, "b": {"b2.txt", "bye"}},
		wantSteps:  []string{"create-replacement b", "delete-replaced b", "replace b"},
		wantWrites: []string{"create b2.txt", "delete b.txt"},
	}, {
		name:       "destroy",
		destroy:    true,
		wantSteps:  []string{"delete a", "delete b", "delete " + provider, "delete interop-dev"},
		wantWrites: []string{"delete a.txt", "delete b2.txt"},
	}}
	for _, op := range ops {
		var res *engine.Result
		var err error
		if op.destroy {
			res, err = s.eng.Destroy(ctx)
		} else {
			res, err = s.eng.Up(ctx, s.program(op.files))
		}
		if err != nil {
			t.Fatalf("%s: %v", op.name, err)
		}
		if diff := cmp.Diff(op.wantSteps, steps(res)); diff != "" {
			t.Errorf("%s: steps (-want +got):\n%s", op.name, diff)
		}
		if diff := cmp.Diff(op.wantWrites, s.writes()); diff != "" {
			t.Errorf("%s: the plugin's writes (-want +got):\n%s", op.name, diff)
		}
		s.checkFiles(op.name, op.files)
		s.checkSecretKept(op.name, res)
	}
	checkNoProcesses(t)
}

// checkFiles compares the files under the root with those declared.
func (s *fileStack) checkFiles(op string, files map[string][2]string) {
	s.t.Helper()
	want := map[string]string{}
	for _, f := range files {
		want[f[0]] = f[1]
	}
	got := map[string]string{}
	entries, err := os.ReadDir(s.root)
	if err != nil {
		s.t.Fatal(err)
	}
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(s.root, e.Name()))
		if err != nil {
			s.t.Fatal(err)
		}
		got[e.Name()] = string(b)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		s.t.Errorf("%s: files (-want +got):\n%s", op, diff)
	}
}

// checkSecretKept checks that the provider's token is recorded as a secret
// and appears in no state file in the clear.
func (s *fileStack) checkSecretKept(op string, res *engine.Result) {
	s.t.Helper()
	for _, r := range res.Snapshot.Resources {
		if r.IsProvider() {
			if tok := r.Inputs["token"]; !tok.IsSecret() {
				s.t.Errorf("%s: the provider's recorded token is %v, want a secret", op, tok)
			}
		}
	}
	err := filepath.WalkDir(s.stateDir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(path)
		if err == nil && bytes.Contains(b, []byte(token)) {
			s.t.Errorf("%s: %s holds the token in the clear", op, path)
		}
		return err
	})
	if err != nil {
		s.t.Fatal(err)
	}
}
