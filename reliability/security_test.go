package reliability_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/groundwork-iac/groundwork/display"
	"github.com/groundwork-iac/groundwork/engine"
	"github.com/groundwork-iac/groundwork/providers"
	"github.com/groundwork-iac/groundwork/resource"
	"github.com/groundwork-iac/groundwork/state"
	"github.com/groundwork-iac/groundwork/state/filestore"
	"github.com/groundwork-iac/groundwork/state/secrets"
)

const passphrase = "correct horse battery staple"

func fileStore(t testing.TB, dir string) *filestore.Store {
	t.Helper()
	st, err := filestore.New(dir, state.WithSecrets(state.PassphraseSecrets(passphrase, secrets.WithIterations(1000))))
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// secretCloud is a fake cloud whose resources also get a generated
// "token" output, which the program marks secret with
// AdditionalSecretOutputs.
func secretCloud(c *fakeCloud, token func(name string) string) *providers.Func {
	p := c.provider()
	create := p.CreateF
	p.CreateF = func(ctx context.Context, req providers.CreateRequest) (providers.CreateResponse, error) {
		resp, err := create(ctx, req)
		if err == nil {
			resp.Outputs["token"] = resource.NewString(token(req.URN.Name()))
		}
		var ie *providers.InitError
		if errors.As(err, &ie) {
			ie.Outputs["token"] = resource.NewString(token(req.URN.Name()))
		}
		return resp, err
	}
	// An update returns the token again, as a real provider returns all
	// its outputs: a stack output that reads it must not go missing.
	update := p.UpdateF
	p.UpdateF = func(ctx context.Context, req providers.UpdateRequest) (providers.UpdateResponse, error) {
		resp, err := update(ctx, req)
		if err == nil {
			resp.Outputs["token"] = resource.NewString(token(req.URN.Name()))
		}
		var ie *providers.InitError
		if errors.As(err, &ie) {
			ie.Outputs["token"] = resource.NewString(token(req.URN.Name()))
		}
		return resp, err
	}
	return p
}

// TestNoSecretPlaintextAnywhere runs operations that create, update,
// replace and fail resources holding secrets — in inputs, in the stack
// configuration, in outputs the provider returns in the clear, in stack
// outputs — and checks that no secret's plaintext appears in the state
// folder (snapshot, journal, lock, temporary files, also in the middle of
// an operation), in the events, in the display's output (plain, JSON and
// interactive, with diffs), or in the errors returned.
func TestNoSecretPlaintextAnywhere(t *testing.T) {
	var nonce [8]byte
	_, _ = rand.Read(nonce[:])
	mark := "PLAINTEXT-" + hex.EncodeToString(nonce[:])
	secret := func(what string) string { return mark + "-" + what }
	find := regexp.MustCompile(regexp.QuoteMeta(mark) + `-[a-z0-9-]+`)

	dir := t.TempDir()
	store := fileStore(t, dir)
	c := newCloud()
	p := secretCloud(c, func(name string) string { return secret("token-" + name) })

	var (
		mu     sync.Mutex
		events []engine.Event
		frames []string // copies of the state folder taken mid-operation
	)
	var plain, jsonOut, inter bytes.Buffer
	renderers := []*display.Renderer{
		display.New(&plain, display.Options{Mode: display.ModePlain, ShowDiff: true, ShowSames: true, ShowDebug: true}),
		display.New(&jsonOut, display.Options{Mode: display.ModeJSON, ShowDiff: true}),
		display.New(&inter, display.Options{Mode: display.ModeInteractive, Width: 200, ShowDiff: true, Color: display.ColorNever}),
	}
	eng, err := engine.New(engine.Config{
		Project: "sec", Stack: "dev", Store: store,
		Config: map[string]resource.PropertyValue{"fz:apiKey": resource.NewSecret(resource.NewString(secret("config")))},
		Providers: func() *providers.Registry {
			r := providers.NewRegistry()
			_ = r.RegisterFactory("fz", "1.0.0", func(context.Context) (providers.Provider, error) { return p, nil })
			return r
		},
		OnEvent: func(e engine.Event) {
			mu.Lock()
			events = append(events, e)
			mu.Unlock()
			for _, r := range renderers {
				r.Event(e)
			}
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	// Take a copy of every file of the stack in the middle of each
	// operation, when the journal holds its entries.
	c.hook = func(_ context.Context, op string, urn resource.URN) error {
		mu.Lock()
		defer mu.Unlock()
		frames = append(frames, folderText(t, dir))
		return nil
	}
	program := func(version string) engine.Program {
		return func(ctx *engine.Context) error {
			a := ctx.Register(thing, "a", engine.Props{"password": resource.NewSecret(resource.NewString(secret("password-" + version)))},
				engine.AdditionalSecretOutputs("token"))
			ctx.Register(thing, "b", engine.Props{
				"nested": map[string]any{"list": []any{resource.NewSecret(resource.NewString(secret("nested-" + version)))}},
				"gen":    version, // replaced on every version
				"ref":    a.ID(),
			}, engine.AdditionalSecretOutputs("token"))
			ctx.Register(thing, "c", engine.Props{"key": resource.NewSecret(resource.NewString(secret("key-" + version)))},
				engine.AdditionalSecretOutputs("token"))
			ctx.Export("exported", a.Output("password"))
			ctx.Export("token", a.Output("token"))
			return nil
		}
	}
	var errs []error
	up := func(version string, failures map[string]failMode) {
		c.Fail(failures)
		_, err := eng.Up(bg, program(version))
		if len(failures) > 0 && err == nil {
			t.Fatalf("up %s: want the injected failures to fail it", version)
		}
		if len(failures) == 0 && err != nil {
			t.Fatalf("up %s: %v", version, err)
		}
		errs = append(errs, err)
	}
	up("v1", nil)
	up("v2", nil) // updates a and c, replaces b
	up("v3", map[string]failMode{"create b": failInit, "update c": failPlain, "update a": failInit})
	up("v4", map[string]failMode{"check a": failPlain, "diff c": failPlain})
	c.Fail(nil)
	if _, err := eng.Preview(bg, program("v5")); err != nil {
		t.Fatal(err)
	}
	if _, err := eng.Refresh(bg); err != nil {
		t.Fatal(err)
	}
	_, err = eng.Destroy(bg)
	errs = append(errs, err)
	for _, r := range renderers {
		if err := r.Close(); err != nil {
			t.Fatal(err)
		}
	}

	leak := func(where, text string) {
		t.Helper()
		if m := find.FindAllString(text, 3); len(m) > 0 {
			t.Errorf("secret plaintext in %s: %q", where, m)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if len(frames) == 0 {
		t.Fatal("no copy of the state folder was taken mid-operation")
	}
	for i, f := range frames {
		leak(fmt.Sprintf("the state folder, mid-operation (copy %d)", i), f)
	}
	leak("the state folder", folderText(t, dir))
	for _, e := range events {
		leak(fmt.Sprintf("event %T", e), fmt.Sprintf("%+v", e))
	}
	leak("the plain display", plain.String())
	leak("the JSON display", jsonOut.String())
	leak("the interactive display", inter.String())
	for _, err := range errs {
		if err != nil {
			leak("an error", err.Error())
		}
	}
	// The secrets did go through: the provider saw them.
	if !strings.Contains(fmt.Sprint(c.Live()), mark) && len(c.Live()) > 0 {
		t.Error("the provider never saw a secret's plaintext: the test proves nothing")
	}
	if !strings.Contains(plain.String(), "[secret]") {
		t.Error("the display shows no masked secret: the test proves nothing")
	}
}

// folderText concatenates every file under dir.
func folderText(t testing.TB, dir string) string {
	var b strings.Builder
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil // files come and go while an operation runs
		}
		data, err := os.ReadFile(path)
		if err == nil {
			fmt.Fprintf(&b, "== %s\n%s\n", path, data)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// TestTamperedState edits the snapshot file the way an attacker or a bad
// disk might and checks that the stack is refused with a clear error
// before anything happens: no provider call, no file changed. Any edit of
// the body is caught first by the snapshot's MAC (keyed by the passphrase);
// the checks behind it (ciphertexts, integrity) are tested in package
// state with snapshots sealed under the right key.
func TestTamperedState(t *testing.T) {
	setup := func(t *testing.T) (dir string, store *filestore.Store, c *fakeCloud, snapshot string) {
		dir = t.TempDir()
		store = fileStore(t, dir)
		c = newCloud()
		eng := secretEngine(t, store, c)
		if _, err := eng.Up(bg, func(ctx *engine.Context) error {
			a := ctx.Register(thing, "a", engine.Props{"password": resource.NewSecret(resource.NewString("hunter2")), "size": 3})
			ctx.Register(thing, "b", engine.Props{"ref": a.ID()}, engine.DependsOn(a))
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		return dir, store, c, filepath.Join(dir, "sec", "dev", "snapshot.json")
	}
	// refused: Load's *state.AuthenticationError for the snapshot, its MAC
	// missing or not matching.
	refused := func(missing bool) func(error) bool {
		return func(err error) bool {
			var ae *state.AuthenticationError
			return errors.As(err, &ae) && ae.File == "snapshot" && ae.Missing == missing
		}
	}
	tests := []struct {
		name   string
		edit   func(t *testing.T, data string) string
		wantIs error
		wantAs func(error) bool
		want   string
	}{
		{
			name: "an edited ciphertext",
			edit: func(t *testing.T, data string) string {
				i := strings.Index(data, `"$secret":"v1:`)
				if i < 0 {
					t.Fatalf("no secret in the snapshot:\n%s", data)
				}
				j := i + len(`"$secret":"v1:`) + 5
				flip := "A"
				if data[j] == 'A' {
					flip = "B"
				}
				return data[:j] + flip + data[j+1:]
			},
			wantAs: refused(false),
		},
		{
			name: "a ciphertext moved to another value",
			edit: func(t *testing.T, data string) string {
				m := regexp.MustCompile(`"\$secret":"(v1:[^"]+)"`).FindStringSubmatch(data)
				if m == nil {
					t.Fatal("no secret in the snapshot")
				}
				return strings.Replace(data, `"size":3`, `"size":{"$secret":"`+m[1]+`x"}`, 1)
			},
			wantAs: refused(false),
		},
		{
			name:   "a plain value edited",
			edit:   func(t *testing.T, data string) string { return strings.Replace(data, `"size":3`, `"size":4`, 1) },
			wantAs: refused(false),
		},
		{
			name: "a resource removed while another depends on it",
			edit: func(t *testing.T, data string) string {
				re := regexp.MustCompile(`\{[^{}]*"urn":"[^"]*::a"`)
				loc := re.FindStringIndex(data)
				if loc == nil {
					t.Fatalf("no resource a in:\n%s", data)
				}
				// Rename a's URN: b's dependency and parent-order break.
				return data[:loc[0]] + strings.Replace(data[loc[0]:loc[1]], "::a\"", "::renamed\"", 1) + data[loc[1]:]
			},
			wantAs: refused(false),
		},
		{
			name: "a provider reference pointed elsewhere",
			edit: func(t *testing.T, data string) string {
				re := regexp.MustCompile(`("provider":"[^"]*::)([^"]+)"`)
				if !re.MatchString(data) {
					t.Fatalf("no provider reference in:\n%s", data)
				}
				return re.ReplaceAllString(data, `${1}not-the-provider-id"`)
			},
			wantAs: refused(false),
		},
		{
			name:   "the MAC removed",
			edit:   func(t *testing.T, data string) string { return removeMAC(t, data) },
			wantAs: refused(true),
		},
		{
			name: "a plain value edited, the MAC removed and the file made format 1",
			edit: func(t *testing.T, data string) string {
				data = strings.Replace(removeMAC(t, data), `{"version":2,`, `{"version":1,`, 1)
				return strings.Replace(data, `"size":3`, `"size":4`, 1)
			},
			wantAs: refused(true),
		},
		{
			name: "a secrets state with a changed salt",
			edit: func(t *testing.T, data string) string {
				return regexp.MustCompile(`"salt":"[^"]{4}`).ReplaceAllString(data, `"salt":"AAAA`)
			},
			wantIs: secrets.ErrWrongPassphrase,
		},
		{
			name: "a truncated file",
			edit: func(t *testing.T, data string) string { return data[:len(data)/2] },
			want: "stack",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir, store, c, path := setup(t)
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			edited := tt.edit(t, string(data))
			if edited == string(data) {
				t.Fatal("the edit changed nothing")
			}
			if err := os.WriteFile(path, []byte(edited), 0o600); err != nil {
				t.Fatal(err)
			}
			before := folderText(t, dir)
			_, err = store.Load(bg, state.StackID{Project: "sec", Stack: "dev"})
			checkTamperError(t, "Load", err, tt.wantIs, tt.wantAs, tt.want)
			changes := c.Changes()
			_, err = secretEngine(t, fileStore(t, dir), c).Up(bg, func(ctx *engine.Context) error {
				ctx.Register(thing, "a", engine.Props{"size": 4})
				return nil
			})
			checkTamperError(t, "Up", err, tt.wantIs, tt.wantAs, tt.want)
			if c.Changes() != changes {
				t.Error("Up changed the world despite the tampered state")
			}
			if folderText(t, dir) != before {
				t.Error("Up changed the state folder despite the tampered state")
			}
		})
	}
}

// removeMAC removes the "mac" member that ends a snapshot file
// (state/FORMAT.md), leaving valid JSON.
func removeMAC(t *testing.T, data string) string {
	t.Helper()
	i := strings.LastIndex(data, `,"mac":"`)
	if i < 0 {
		t.Fatalf("no \"mac\" member in the snapshot:\n%s", data)
	}
	return data[:i] + "}\n"
}

func checkTamperError(t *testing.T, what string, err, wantIs error, wantAs func(error) bool, want string) {
	t.Helper()
	switch {
	case err == nil:
		t.Fatalf("%s accepted the tampered state", what)
	case wantIs != nil && !errors.Is(err, wantIs):
		t.Errorf("%s: err = %v; want one wrapping %v", what, err, wantIs)
	case wantAs != nil && !wantAs(err):
		t.Errorf("%s: err = %v; not the error wanted", what, err)
	case want != "" && !strings.Contains(err.Error(), want):
		t.Errorf("%s: err = %v; want it to mention %q", what, err, want)
	case !strings.Contains(err.Error(), `"sec/dev"`):
		t.Errorf("%s: err = %v; want it to name the stack", what, err)
	}
	if err != nil && strings.Contains(err.Error(), "hunter2") {
		t.Errorf("%s: the error quotes a secret: %v", what, err)
	}
}

func secretEngine(t testing.TB, store state.Store, c *fakeCloud) *engine.Engine {
	t.Helper()
	p := c.provider()
	eng, err := engine.New(engine.Config{
		Project: "sec", Stack: "dev", Store: store,
		Providers: func() *providers.Registry {
			r := providers.NewRegistry()
			_ = r.RegisterFactory("fz", "1.0.0", func(context.Context) (providers.Provider, error) { return p, nil })
			return r
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	return eng
}

// TestTwoEnginesOneStack runs a second engine (over its own file store on
// the same folder, as another process would) while the first is in the
// middle of a create: the second must get a *state.LockedError naming
// the holder and change nothing — no provider call, no state — and the
// first must finish undisturbed.
func TestTwoEnginesOneStack(t *testing.T) {
	for _, op := range []string{"up", "destroy", "refresh"} {
		t.Run(op, func(t *testing.T) {
			dir := t.TempDir()
			c := newCloud()
			first := secretEngine(t, fileStore(t, dir), c)
			if _, err := first.Up(bg, func(ctx *engine.Context) error {
				ctx.Register(thing, "old", engine.Props{})
				return nil
			}); err != nil {
				t.Fatal(err)
			}
			inCreate, release := make(chan struct{}), make(chan struct{})
			c.hook = func(_ context.Context, op string, urn resource.URN) error {
				if op == "create" && urn.Name() == "slow" {
					close(inCreate)
					<-release
				}
				return nil
			}
			done := make(chan error, 1)
			go func() {
				_, err := first.Up(bg, func(ctx *engine.Context) error {
					ctx.Register(thing, "old", engine.Props{})
					ctx.Register(thing, "slow", engine.Props{})
					return nil
				})
				done <- err
			}()
			<-inCreate
			changes := c.Changes()
			second := secretEngine(t, fileStore(t, dir), c)
			var err error
			switch op {
			case "up":
				_, err = second.Up(bg, func(ctx *engine.Context) error {
					ctx.Register(thing, "intruder", engine.Props{})
					return nil
				})
			case "destroy":
				_, err = second.Destroy(bg)
			case "refresh":
				_, err = second.Refresh(bg)
			}
			var le *state.LockedError
			if !errors.As(err, &le) {
				t.Errorf("the second engine: err = %v; want a *state.LockedError", err)
			} else if le.Holder.PID != os.Getpid() || le.Holder.Operation == "" {
				t.Errorf("the lock error does not name its holder: %+v", le.Holder)
			}
			if c.Changes() != changes {
				t.Error("the second engine changed the world")
			}
			close(release)
			if err := <-done; err != nil {
				t.Fatalf("the first engine: %v", err)
			}
			snap, err := fileStore(t, dir).Load(bg, state.StackID{Project: "sec", Stack: "dev"})
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, r := range snap.Resources {
				if r.Type == thing {
					names = append(names, r.URN.Name())
				}
			}
			if strings.Join(names, ",") != "old,slow" && strings.Join(names, ",") != "slow,old" {
				t.Errorf("recorded %v; want exactly what the first engine did", names)
			}
			// And once the first is done, the second may go.
			if _, err := second.Refresh(bg); err != nil {
				t.Errorf("the second engine after the first finished: %v", err)
			}
		})
	}
}
