package engine_test

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/groundwork-iac/groundwork/engine"
	"github.com/groundwork-iac/groundwork/enginetest"
	"github.com/groundwork-iac/groundwork/providers"
	"github.com/groundwork-iac/groundwork/providers/pulumi"
	"github.com/groundwork-iac/groundwork/resource"
	"github.com/groundwork-iac/groundwork/state"
	"github.com/groundwork-iac/groundwork/state/filestore"
	"github.com/groundwork-iac/groundwork/state/secrets"
)

// The secret output of the referenced stack: it must never be written in
// the clear, by either stack.
const prodToken = "pr0d-t0k3n-x7q"

// perStackSecrets gives each stack of a store its own passphrase, so that
// a stack reference has to read the other stack with that stack's own
// secrets manager.
func perStackSecrets(passphrases map[string]string) state.SecretsProvider {
	return state.SecretsProviderFunc(func(ctx context.Context, stack state.StackID, recorded *state.SecretsState) (secrets.Manager, error) {
		return state.PassphraseSecrets(passphrases[stack.Stack]).SecretsManager(ctx, stack, recorded)
	})
}

func TestStackReference(t *testing.T) {
	dir := t.TempDir()
	store, err := filestore.New(dir, state.WithSecrets(perStackSecrets(map[string]string{"prod": "prod-pass", "dev": "dev-pass"})))
	if err != nil {
		t.Fatal(err)
	}
	cl := newCloud()
	newEngine := func(project, stack string) *engine.Engine {
		eng, err := engine.New(engine.Config{Project: project, Stack: stack, Store: store, Providers: func() *providers.Registry {
			r := providers.NewRegistry()
			if err := r.RegisterFactory("test", "1.0.0", func(context.Context) (providers.Provider, error) { return cl.provider(), nil }); err != nil {
				t.Fatal(err)
			}
			return r
		}})
		if err != nil {
			t.Fatal(err)
		}
		return eng
	}
	ctx := context.Background()
	prod := newEngine("infra", "prod")
	if _, err := prod.Up(ctx, func(c *engine.Context) error {
		c.Export("url", "https://prod.example.com")
		c.Export("token", resource.NewSecret(resource.NewString(prodToken)))
		return nil
	}); err != nil {
		t.Fatal(err)
	}

	dev := newEngine("app", "dev")
	program := func(stack string) engine.Program {
		return func(c *engine.Context) error {
			ref := c.StackReference("prod", stack)
			c.Register(thing, "site", engine.Props{"url": engine.StackOutput(ref, "url")})
			c.Export("token", engine.StackOutput(ref, "token"))
			c.Export("missing", engine.StackOutput(ref, "missing"))
			c.Export("secretNames", ref.Output("secretOutputNames"))
			return nil
		}
	}
	var last *state.Snapshot
	for _, op := range []string{"preview", "up", "unchanged up"} {
		run := dev.Up
		if op == "preview" {
			run = dev.Preview
		}
		res, err := run(ctx, program("infra/prod"))
		if err != nil {
			t.Fatalf("%s: %v", op, err)
		}
		if diff := cmp.Diff(resource.PropertyMap{
			"token":       resource.NewSecret(resource.NewString(prodToken)),
			"missing":     resource.NewNull(),
			"secretNames": resource.NewArray(resource.NewString("token")),
		}, res.Outputs); diff != "" {
			t.Errorf("%s: stack outputs (-want +got):\n%s", op, diff)
		}
		if op == "preview" {
			continue
		}
		last = res.Snapshot
		site := res.Snapshot.Resources[slices.IndexFunc(res.Snapshot.Resources, func(s *resource.State) bool { return s.URN.Name() == "site" })]
		if got := site.Inputs["url"]; !got.DeepEquals(resource.NewString("https://prod.example.com")) {
			t.Errorf("%s: the input taken from the other stack = %v", op, got)
		}
		if op == "unchanged up" && res.HasChanges() {
			t.Errorf("an unchanged rerun changed something: %v", res.Steps)
		}
	}
	// The default provider of the built-in package is recorded like any
	// other.
	var types []string
	for _, r := range last.Resources {
		types = append(types, r.Type)
	}
	if !slices.Contains(types, pulumi.ProviderType) || !slices.Contains(types, pulumi.StackReferenceType) {
		t.Errorf("dev records %v, want the stack reference and its provider", types)
	}
	noPlaintext(t, dir, prodToken)

	// A store that cannot open the other stack (its passphrase is not
	// the one prod was written with) fails the reference: no outputs are
	// left out silently.
	wrong, err := filestore.New(dir, state.WithSecrets(perStackSecrets(map[string]string{"prod": "not-prod-pass", "dev": "dev-pass"})))
	if err != nil {
		t.Fatal(err)
	}
	devWrong, err := engine.New(engine.Config{Project: "app", Stack: "dev", Store: wrong, Providers: func() *providers.Registry {
		r := providers.NewRegistry()
		_ = r.RegisterFactory("test", "1.0.0", func(context.Context) (providers.Provider, error) { return cl.provider(), nil })
		return r
	}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := devWrong.Preview(ctx, program("infra/prod")); !errors.Is(err, secrets.ErrWrongPassphrase) {
		t.Errorf("a reference to a stack the store cannot open: %v, want secrets.ErrWrongPassphrase", err)
	}

	for _, tt := range []struct {
		stack string
		want  func(error) bool
	}{
		// A bare name is a stack of the referring project (app).
		{"staging", notFound},
		{"prod", notFound},
		{"other/prod", notFound},
		{"organization/other/prod", notFound},
		{"organization/infra/prod", found},
		{"acme/infra/prod", found},
		{"/infra/prod", badName},
		{"a/b/c/d", badName},
		{"infra/../prod", badName},
	} {
		_, err := dev.Preview(ctx, program(tt.stack))
		if !tt.want(err) {
			t.Errorf("a reference to %q: err = %v", tt.stack, err)
		}
	}
}

func notFound(err error) bool { var nf *engine.StackNotFoundError; return errors.As(err, &nf) }

func found(err error) bool { return err == nil }

func badName(err error) bool { var re *engine.StackReferenceError; return errors.As(err, &re) }

// noPlaintext fails t if a file under dir holds secret in the clear.
func noPlaintext(t *testing.T, dir, secret string) {
	t.Helper()
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(path)
		if err == nil && bytes.Contains(b, []byte(secret)) {
			t.Errorf("%s holds the secret in the clear", path)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestGetResourceByURN(t *testing.T) {
	env := enginetest.New(t)
	env.Provider("test", "", newCloud().provider())
	var got, want resource.PropertyMap
	res, err := env.Up(func(c *engine.Context) error {
		a := c.Register(thing, "a", engine.Props{"size": 3})
		urn, err := a.URN()
		if err != nil {
			return err
		}
		if want, err = a.Outputs(); err != nil {
			return err
		}
		g := c.Get(urn)
		if got, err = g.Outputs(); err != nil {
			return err
		}
		c.Register(thing, "b", engine.Props{"size": g.Output("size")}, engine.DependsOn(g))
		return nil
	}, engine.DisableDefaultProviders("pulumi"))
	if err != nil {
		t.Fatal(err)
	}
	if !got.DeepEquals(want) {
		t.Errorf("outputs got by URN = %v, want %v", got, want)
	}
	b := env.Resource(env.URN(thing, "b"))
	if b == nil || !b.Inputs["size"].DeepEquals(resource.NewNumber(3)) || !slices.Contains(b.Dependencies, env.URN(thing, "a")) {
		t.Errorf("b = %+v, want size 3 and a dependency on a", b)
	}
	// The built-in package's default provider is registered (even with
	// default providers disabled); a is not registered again.
	wantOps := []string{"create default", "create a", "create default", "create b"}
	if diff := cmp.Diff(wantOps, enginetest.Ops(res, "pulumi:providers:test", thing, pulumi.ProviderType)); diff != "" {
		t.Errorf("steps (-want +got):\n%s", diff)
	}

	_, err = env.Up(func(c *engine.Context) error {
		c.Get(env.URN(thing, "never"))
		return nil
	})
	var unknown *pulumi.UnknownResourceError
	if !errors.As(err, &unknown) {
		t.Errorf("getting a resource the operation has not registered: %v, want *pulumi.UnknownResourceError", err)
	}
}
