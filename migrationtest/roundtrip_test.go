package migrationtest

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	presource "github.com/pulumi/pulumi/sdk/v3/go/common/resource"

	"github.com/groundwork-iac/groundwork/engine"
	"github.com/groundwork-iac/groundwork/enginetest"
	"github.com/groundwork-iac/groundwork/migrate"
	"github.com/groundwork-iac/groundwork/providers"
	"github.com/groundwork-iac/groundwork/resource"
	"github.com/groundwork-iac/groundwork/state"
	"github.com/groundwork-iac/groundwork/state/filestore"
)

// The scenario both engines deploy.
const (
	project    = "site"
	stackName  = "dev"
	thing      = "test:index:Thing"
	dbPassword = "correct-horse-battery-staple"
	stackToken = "stack-output-token-7f3a"

	pulumiPassphrase     = "the pulumi stack's passphrase"
	groundworkPassphrase = "groundwork's own passphrase"
)

// writes logs the provider calls that change something.
type writes struct {
	mu  sync.Mutex
	log []string
}

func (w *writes) add(op, urn string) {
	w.mu.Lock()
	w.log = append(w.log, op+" "+urn[strings.LastIndex(urn, "::")+2:])
	w.mu.Unlock()
}

func (w *writes) all() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	out := slices.Clone(w.log)
	slices.Sort(out)
	return out
}

// groundworkProvider is the scenario's provider for groundwork's engine:
// the same behaviour as pulumiProvider.
func groundworkProvider(w *writes) *providers.Func {
	return &providers.Func{
		DiffF: func(_ context.Context, req providers.DiffRequest) (providers.DiffResponse, error) {
			if req.OldInputs.DeepEquals(req.NewInputs) {
				return providers.DiffResponse{Changes: resource.DiffNone}, nil
			}
			return providers.DiffResponse{Changes: resource.DiffSome}, nil
		},
		CreateF: func(_ context.Context, req providers.CreateRequest) (providers.CreateResponse, error) {
			w.add("create", string(req.URN))
			return providers.CreateResponse{ID: resource.ID(req.URN.Name() + "-id"), Outputs: req.Inputs}, nil
		},
		UpdateF: func(_ context.Context, req providers.UpdateRequest) (providers.UpdateResponse, error) {
			w.add("update", string(req.URN))
			return providers.UpdateResponse{Outputs: req.NewInputs}, nil
		},
		DeleteF: func(_ context.Context, req providers.DeleteRequest) (providers.DeleteResponse, error) {
			w.add("delete", string(req.URN))
			return providers.DeleteResponse{}, nil
		},
	}
}

// groundworkProgram is pulumiProgram through groundwork's program API.
func groundworkProgram(ctx *engine.Context) error {
	prov := ctx.Register("pulumi:providers:test", "explicit", engine.Props{"region": "eu"})
	db := ctx.Register(thing, "db", engine.Props{
		"size":     1,
		"password": resource.NewSecret(resource.NewString(dbPassword)),
	}, engine.Provider(prov))
	ctx.Register(thing, "app", engine.Props{"name": "app", "db": db.ID()})
	ctx.Export("dbId", db.ID())
	ctx.Export("token", resource.NewSecret(resource.NewString(stackToken)))
	return nil
}

// groundworkEnv is a groundwork stack of the scenario's name in a file
// store, its secrets sealed with groundwork's own passphrase.
func groundworkEnv(t *testing.T, w *writes) (*enginetest.Env, *filestore.Store) {
	t.Helper()
	store, err := filestore.New(t.TempDir(), state.WithSecrets(state.PassphraseSecrets(groundworkPassphrase)))
	if err != nil {
		t.Fatal(err)
	}
	env := enginetest.New(t)
	env.Project, env.Stack, env.Store = project, stackName, store
	env.Provider("test", "", groundworkProvider(w))
	return env, store
}

// assertNoPlaintext fails if data holds a secret of the scenario.
func assertNoPlaintext(t *testing.T, what string, data []byte) {
	t.Helper()
	for _, s := range []string{dbPassword, stackToken} {
		if bytes.Contains(data, []byte(s)) {
			t.Errorf("%s holds the secret %q in plaintext", what, s)
		}
	}
}

// TestFromPulumi creates a stack with Pulumi's engine, exports it, imports
// it into groundwork and updates it with the same program: nothing
// changes.
func TestFromPulumi(t *testing.T) {
	ctx := context.Background()
	var pw writes
	made, _ := pulumiUpdate(t, nil, &pw)
	if got := pw.all(); !slices.Equal(got, []string{"create app", "create db"}) {
		t.Fatalf("Pulumi's first update wrote %v, want the two creates", got)
	}
	exported := pulumiExport(t, made)
	assertNoPlaintext(t, "Pulumi's export", exported)

	var gw writes
	env, store := groundworkEnv(t, &gw)
	imp, err := migrate.ImportStack(ctx, store, state.StackID{Project: project, Stack: stackName}, exported, migrate.FromOptions{Passphrase: pulumiPassphrase, Project: project})
	if err != nil {
		t.Fatalf("importing: %v", err)
	}
	if len(imp.Dropped) != 0 {
		t.Errorf("dropped = %v, want nothing", imp.Dropped)
	}
	assertNoPlaintext(t, "groundwork's snapshot", readFile(t, store, "snapshot.json"))
	db := env.Resource(env.URN(thing, "db"))
	if db == nil || !db.Inputs["password"].DeepEquals(resource.NewSecret(resource.NewString(dbPassword))) {
		t.Fatalf("imported db = %+v, want its password as a secret", db)
	}

	imported := env.Snapshot().Resources
	res, err := env.Up(groundworkProgram)
	if err != nil {
		t.Fatalf("groundwork's update of the imported stack: %v", err)
	}
	assertAllSame(t, res)
	// Same steps record what the program declares: had the import lost
	// or changed anything (a dependency, a parent), the record would now
	// differ.
	if diff := cmp.Diff(imported, env.Snapshot().Resources,
		cmp.Comparer(func(a, b resource.PropertyValue) bool { return a.DeepEquals(b) }),
		cmpopts.EquateEmpty(), cmpopts.IgnoreFields(resource.State{}, "Modified")); diff != "" {
		t.Errorf("the update changed the imported records (-imported +after):\n%s", diff)
	}
	if got := gw.all(); len(got) != 0 {
		t.Errorf("groundwork's provider wrote %v, want nothing", got)
	}
	outs, err := env.Engine().Outputs(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !outs["token"].DeepEquals(resource.NewSecret(resource.NewString(stackToken))) || !outs["dbId"].DeepEquals(resource.NewString("db-id")) {
		t.Errorf("stack outputs = %v, want dbId and the secret token", outs)
	}
}

// TestToPulumi creates a stack with groundwork, exports it, loads it into
// Pulumi's engine and updates it with the same program: nothing changes.
func TestToPulumi(t *testing.T) {
	ctx := context.Background()
	var gw writes
	env, store := groundworkEnv(t, &gw)
	if _, err := env.Up(groundworkProgram); err != nil {
		t.Fatalf("groundwork's first update: %v", err)
	}
	if got := gw.all(); !slices.Equal(got, []string{"create app", "create db"}) {
		t.Fatalf("groundwork's first update wrote %v, want the two creates", got)
	}
	exported, err := migrate.ExportStack(ctx, store, state.StackID{Project: project, Stack: stackName}, migrate.ToOptions{Passphrase: pulumiPassphrase})
	if err != nil {
		t.Fatalf("exporting: %v", err)
	}
	assertNoPlaintext(t, "groundwork's export", exported)

	base := pulumiImport(t, exported)
	if got := pulumiInput(t, base, "db", "password"); !got.DeepEquals(presource.MakeSecret(presource.NewProperty(dbPassword))) {
		t.Fatalf("db's password in Pulumi's snapshot = %v, want the secret", got)
	}
	var pw writes
	after, steps := pulumiUpdate(t, base, &pw)
	if diff := cmp.Diff(pulumiRecords(t, base), pulumiRecords(t, after), cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("Pulumi's update changed the imported records (-imported +after):\n%s", diff)
	}
	for urn, op := range steps {
		if op != "same" {
			t.Errorf("Pulumi's update: %s on %s, want same", op, urn)
		}
	}
	if len(steps) < 5 {
		t.Errorf("Pulumi's update took %d steps (%v), want one for each of the 5 resources", len(steps), steps)
	}
	if got := pw.all(); len(got) != 0 {
		t.Errorf("Pulumi's provider wrote %v, want nothing", got)
	}
}

// assertAllSame fails unless every step of res left its resource as it
// was.
func assertAllSame(t *testing.T, res *engine.Result) {
	t.Helper()
	for _, s := range res.Steps {
		if s.Op != engine.StepSame && s.Op != engine.StepOutputs {
			t.Errorf("groundwork's update: %s on %s, want same", s.Op, s.URN)
		}
	}
	// The stack, the explicit provider, db and app: the default provider
	// is not counted.
	if n := res.Counts[engine.StepSame]; n < 4 {
		t.Errorf("groundwork's update counted %d resources unchanged, want the 4 it declares", n)
	}
}

func readFile(t *testing.T, store *filestore.Store, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(store.Root(), project, stackName, name))
	if err != nil {
		t.Fatal(err)
	}
	return data
}
