//go:build unix

package plugin_test

import (
	"context"
	"errors"
	"maps"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/groundwork-iac/groundwork/plugin"
	"github.com/groundwork-iac/groundwork/providers"
	"github.com/groundwork-iac/groundwork/resource"
)

func withMode(mode string) []string {
	return append(os.Environ(), "TESTPLUGIN_MODE="+mode)
}

// pidOf finds the pid the test plugin prints on stderr.
func pidOf(t *testing.T, diag *lines) int {
	t.Helper()
	for _, l := range diag.all() {
		if s, ok := strings.CutPrefix(l, "testplugin: pid="); ok {
			pid, err := strconv.Atoi(s)
			if err == nil {
				return pid
			}
		}
	}
	t.Fatalf("the plugin printed no pid; diagnostics: %q", diag.all())
	return 0
}

func alive(pid int) bool { return syscall.Kill(pid, 0) == nil }

// Close kills a plugin that ignores SIGTERM once the grace period is over.
func TestCloseKillsStubbornPlugin(t *testing.T) {
	var diag lines
	p, err := plugin.Launch(t.Context(), pluginName, plugin.Options{Env: withMode("stubborn"), Diagnostics: diag.add, GracePeriod: 300 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	pid := pidOf(t, &diag)
	start := time.Now()
	if err := p.Close(t.Context()); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if d := time.Since(start); d < 300*time.Millisecond || d > 5*time.Second {
		t.Errorf("Close took %v; want the grace period (300ms) and then a kill", d)
	}
	if alive(pid) {
		t.Errorf("the plugin (pid %d) is still running after Close", pid)
	}
	if _, err := p.Check(t.Context(), providers.CheckRequest{URN: urn("x")}); !errors.Is(err, providers.ErrClosed) {
		t.Errorf("Check after Close = %v, want ErrClosed", err)
	}
	if err := p.Close(t.Context()); err != nil {
		t.Errorf("second Close: %v", err)
	}
}

// A well-behaved plugin exits on SIGTERM without waiting for the grace
// period.
func TestCloseIsGraceful(t *testing.T) {
	var diag lines
	p, err := plugin.Launch(t.Context(), pluginName, plugin.Options{Diagnostics: diag.add, GracePeriod: 20 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	pid := pidOf(t, &diag)
	start := time.Now()
	if err := p.Close(t.Context()); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("Close of a plugin that exits on SIGTERM took %v", d)
	}
	if alive(pid) {
		t.Errorf("the plugin (pid %d) is still running after Close", pid)
	}
}

func TestStart(t *testing.T) {
	t.Run("ExitsBeforePort", func(t *testing.T) {
		_, err := plugin.Launch(t.Context(), pluginName, plugin.Options{Env: withMode("noport")})
		var exit *plugin.ExitError
		if !errors.As(err, &exit) || !strings.Contains(err.Error(), "refusing to start") || !strings.Contains(err.Error(), "exit status 2") {
			t.Errorf("Launch = %v, want an *ExitError quoting the plugin's stderr", err)
		}
	})
	t.Run("OtherStdoutLinesFirst", func(t *testing.T) {
		var diag lines
		p := launch(t, plugin.Options{Env: withMode("chatty"), Diagnostics: diag.add})
		configure(t, p, nil)
		got := strings.Join(diag.all(), "\n")
		if !strings.Contains(got, "starting up") || !strings.Contains(got, "port coming next") {
			t.Errorf("diagnostics = %q, want the stdout lines before the port", got)
		}
	})
	t.Run("NotFound", func(t *testing.T) {
		dir := t.TempDir()
		_, err := plugin.Launch(t.Context(), "no-such-plugin", plugin.Options{Dirs: []string{dir}})
		var nf *plugin.NotFoundError
		if !errors.As(err, &nf) || !strings.Contains(err.Error(), "pulumi-resource-no-such-plugin") || !strings.Contains(err.Error(), dir) {
			t.Errorf("Launch = %v, want a *NotFoundError naming the binary and the folders searched", err)
		}
	})
	t.Run("StartTimeout", func(t *testing.T) {
		script := filepath.Join(t.TempDir(), "pulumi-resource-slow")
		if err := os.WriteFile(script, []byte("#!/bin/sh\necho waiting >&2\nexec sleep 30\n"), 0o755); err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		_, err := plugin.Start(t.Context(), "slow", script, plugin.Options{StartTimeout: 300 * time.Millisecond})
		if err == nil || !strings.Contains(err.Error(), "did not print its port") || time.Since(start) > 5*time.Second {
			t.Errorf("Start = %v after %v, want a timeout error", err, time.Since(start))
		}
	})
	t.Run("NobodyAtThePort", func(t *testing.T) {
		// A plugin that prints a port nobody listens on fails its
		// handshake once the start timeout has passed, with an error that
		// names it and says what it printed.
		lis, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		port := strconv.Itoa(lis.Addr().(*net.TCPAddr).Port)
		lis.Close()
		script := filepath.Join(t.TempDir(), "pulumi-resource-deaf")
		body := "#!/bin/sh\necho " + port + "\necho 'listening, honestly' >&2\nexec sleep 30\n"
		if err := os.WriteFile(script, []byte(body), 0o755); err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		p, err := plugin.Start(t.Context(), "deaf", script, plugin.Options{StartTimeout: time.Second})
		took := time.Since(start)
		if err == nil {
			p.Close(t.Context())
			t.Fatal("Start succeeded against a port nobody listens on")
		}
		for _, want := range []string{"deaf", "printed port " + port, "listening, honestly"} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("Start = %v; want it to say %q", err, want)
			}
		}
		if took > 10*time.Second {
			t.Errorf("Start took %v with a start timeout of 1s", took)
		}
	})
	t.Run("CancelledContext", func(t *testing.T) {
		ctx, cancel := context.WithCancel(t.Context())
		cancel()
		if _, err := plugin.Launch(ctx, pluginName, plugin.Options{}); !errors.Is(err, context.Canceled) {
			t.Errorf("Launch with a cancelled context = %v, want context.Canceled", err)
		}
	})
}

// Find looks in the plugin folders, their versioned subfolders, then PATH.
func TestFind(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(binDir, plugin.BinaryName(pluginName))
	got, err := plugin.Find(pluginName, dir)
	if err != nil || got != bin {
		t.Errorf("Find on PATH = %q, %v; want %q", got, err, bin)
	}
	for _, v := range []string{"1.0.0", "1.10.0", "1.9.0", "junk"} {
		link(t, bin, filepath.Join(dir, "resource-"+pluginName+"-v"+v, plugin.BinaryName(pluginName)))
	}
	want := filepath.Join(dir, "resource-"+pluginName+"-v1.10.0", plugin.BinaryName(pluginName))
	if got, err := plugin.Find(pluginName, dir); err != nil || got != want {
		t.Errorf("Find with versioned folders = %q, %v; want the newest, %q", got, err, want)
	}
	link(t, bin, filepath.Join(dir, plugin.BinaryName(pluginName)))
	if got, err := plugin.Find(pluginName, dir); err != nil || got != filepath.Join(dir, plugin.BinaryName(pluginName)) {
		t.Errorf("Find = %q, %v; want the binary in the folder itself first", got, err)
	}
}

// counted writes a plugin that is a shell script appending a line to
// the returned log each time it starts, then running the test plugin.
func counted(t *testing.T, path string) (log string) {
	t.Helper()
	log = filepath.Join(t.TempDir(), "starts.log")
	body := "#!/bin/sh\necho started >> " + log + "\nexec " + filepath.Join(binDir, plugin.BinaryName(pluginName)) + " \"$@\"\n"
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
	return log
}

// starts counts the lines of a log written by counted.
func starts(t *testing.T, log string) int {
	t.Helper()
	b, err := os.ReadFile(log)
	if os.IsNotExist(err) {
		return 0
	}
	if err != nil {
		t.Fatal(err)
	}
	return strings.Count(string(b), "\n")
}

// The plugin Resolver finds plugins on demand without starting any: a
// versioned folder says the version; a binary of unknown version is
// taken to be the version wanted and checked when it starts.
func TestResolver(t *testing.T) {
	dir, pathDir := t.TempDir(), t.TempDir()
	vlog := counted(t, filepath.Join(dir, "resource-"+pluginName+"-v2.5.0", plugin.BinaryName(pluginName)))
	// The binary of unknown version reports 1.2.3 once it runs.
	ulog := counted(t, filepath.Join(pathDir, plugin.BinaryName(pluginName)))
	t.Setenv("PATH", pathDir+string(os.PathListSeparator)+os.Getenv("PATH"))
	resolve := plugin.Resolver(plugin.Options{Dirs: []string{dir}})
	ctx := t.Context()

	tests := []struct {
		version, want string
		wantStartErr  bool
	}{
		{version: "2.1.0", want: "2.5.0"},                     // the versioned folder
		{version: "", want: "2.5.0"},                          // the first in search order
		{version: "1.0.0", want: "1.0.0"},                     // unknown version, reports 1.2.3: fine
		{version: "1.5.0", want: "1.5.0", wantStartErr: true}, // reports 1.2.3: too old
		{version: "3.0.0", want: "3.0.0", wantStartErr: true}, // reports 1.2.3: another major
	}
	for _, tt := range tests {
		f, v, err := resolve(ctx, pluginName, tt.version)
		if err != nil || v != tt.want {
			t.Errorf("resolve %q = %q, %v; want %q", tt.version, v, err, tt.want)
			continue
		}
		if n := starts(t, vlog) + starts(t, ulog); n != 0 {
			t.Errorf("resolve %q started %d plugins; want none", tt.version, n)
		}
		p, err := f(ctx)
		var mismatch *plugin.VersionMismatchError
		switch {
		case tt.wantStartErr && !errors.As(err, &mismatch):
			t.Errorf("starting the plugin resolved for %q = %v, want a *VersionMismatchError", tt.version, err)
		case !tt.wantStartErr && err != nil:
			t.Errorf("starting the plugin resolved for %q: %v", tt.version, err)
		case err == nil:
			if err := providers.Close(ctx, p); err != nil {
				t.Error(err)
			}
		}
		if err := os.Remove(vlog); err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
		if err := os.Remove(ulog); err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
	}

	empty := t.TempDir()
	_, _, err := plugin.Resolver(plugin.Options{Dirs: []string{empty}})(ctx, "no-such-plugin", "1.0.0")
	var nf *plugin.NotFoundError
	if !errors.As(err, &nf) {
		t.Errorf("resolve of a missing plugin = %v, want a *NotFoundError", err)
	}

	reg := providers.NewRegistry(providers.WithResolver(resolve))
	p, info, err := reg.Instantiate(ctx, pluginName, "2.0.0")
	if err != nil {
		t.Fatalf("Instantiate: %v", err)
	}
	defer providers.Close(context.Background(), p)
	if info.Version != "2.5.0" {
		t.Errorf("Instantiate chose %v, want 2.5.0", info)
	}
	if _, err := providers.Configure(ctx, p, providers.ConfigureRequest{}); err != nil {
		t.Fatal(err)
	}
	resp, err := p.Check(ctx, providers.CheckRequest{URN: urn("r"), News: resource.PropertyMap{"a": resource.NewString("b")}})
	if err != nil || resp.Inputs["a"].StringValue() != "b" {
		t.Errorf("Check through the registry = %v, %v", resp, err)
	}
}

func TestFactory(t *testing.T) {
	p, err := plugin.Factory(pluginName, plugin.Options{})(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if err := providers.Close(t.Context(), p); err != nil {
		t.Error(err)
	}
}

// Close leaves no goroutine behind, whether the plugin exited on its own
// or was stopped.
func TestNoGoroutineLeaks(t *testing.T) {
	before := runtime.NumGoroutine()
	for _, crash := range []bool{false, true} {
		p, err := plugin.Launch(t.Context(), pluginName, plugin.Options{Diagnostics: func(string) {}})
		if err != nil {
			t.Fatal(err)
		}
		configure(t, p, nil)
		_, _ = p.Create(t.Context(), providers.CreateRequest{URN: urn("g"), Inputs: resource.PropertyMap{"crash": resource.NewBool(crash)}})
		if err := p.Close(t.Context()); err != nil {
			t.Fatal(err)
		}
	}
	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > before {
		buf := make([]byte, 1<<16)
		t.Errorf("%d goroutines before, %d after Close:\n%s", before, n, buf[:runtime.Stack(buf, true)])
	}
}

// wrapper writes a plugin that is a shell script running the test plugin
// as its child, as pulumi-resource-pulumi-nodejs runs node, and first
// starts a background sleep that prints its pid, standing for whatever a
// plugin starts on the side.
func wrapper(t *testing.T) string {
	t.Helper()
	script := filepath.Join(t.TempDir(), "pulumi-resource-wrapped")
	body := "#!/bin/sh\nsleep 300 &\necho \"sidecar: pid=$!\" >&2\n" +
		filepath.Join(binDir, plugin.BinaryName(pluginName)) + " \"$@\"\n"
	if err := os.WriteFile(script, []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
	return script
}

// sidecarOf finds the pid the wrapper script prints for its background
// child.
func sidecarOf(t *testing.T, diag *lines) int {
	t.Helper()
	for _, l := range diag.all() {
		if s, ok := strings.CutPrefix(l, "sidecar: pid="); ok {
			if pid, err := strconv.Atoi(s); err == nil {
				return pid
			}
		}
	}
	t.Fatalf("the wrapper printed no sidecar pid; diagnostics: %q", diag.all())
	return 0
}

// running reports whether pid is a live process, not a zombie.
func running(pid int) bool {
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return alive(pid) // not Linux: a zombie counts as running
	}
	i := strings.LastIndexByte(string(stat), ')')
	return i < 0 || !strings.HasPrefix(strings.TrimSpace(string(stat[i+1:])), "Z")
}

// Ending a plugin ends everything it started: Close, a plugin that
// ignores SIGTERM, and a plugin that crashes all leave no process behind.
func TestNoChildLeftBehind(t *testing.T) {
	tests := []struct {
		name string
		env  []string
		end  func(t *testing.T, p *plugin.Provider)
	}{{
		name: "Close",
		end:  func(t *testing.T, p *plugin.Provider) { closePlugin(t, p) },
	}, {
		name: "Close of a plugin that ignores SIGTERM",
		env:  withMode("stubborn"),
		end:  func(t *testing.T, p *plugin.Provider) { closePlugin(t, p) },
	}, {
		name: "crash",
		end: func(t *testing.T, p *plugin.Provider) {
			configure(t, p, nil)
			_, err := p.Create(t.Context(), providers.CreateRequest{URN: urn("c"), Inputs: resource.PropertyMap{"crash": resource.NewBool(true)}})
			var exit *plugin.ExitError
			if !errors.As(err, &exit) {
				t.Errorf("Create that crashes the plugin = %v, want an *ExitError", err)
			}
			closePlugin(t, p)
		},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var diag lines
			p, err := plugin.Start(t.Context(), pluginName, wrapper(t), plugin.Options{
				Env: tt.env, Diagnostics: diag.add, GracePeriod: 300 * time.Millisecond,
			})
			if err != nil {
				t.Fatal(err)
			}
			pids := []int{sidecarOf(t, &diag), pidOf(t, &diag)}
			tt.end(t, p)
			for _, pid := range pids {
				if running(pid) {
					t.Errorf("process %d that the plugin started still runs after it ended", pid)
					_ = syscall.Kill(pid, syscall.SIGKILL)
				}
			}
		})
	}
}

func closePlugin(t *testing.T, p *plugin.Provider) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	if err := p.Close(ctx); err != nil {
		t.Errorf("Close: %v", err)
	}
}

// A plugin starts with what Pulumi's engine tells provider plugins in
// their environment: the project, its package's own configuration without
// the namespace, the runtime options, and for the Node.js dynamic provider
// its SDK's name for the project. A dynamic provider that reads
// PULUMI_CONFIG sees its namespace's keys (Pulumi's
// dynamic/nodejs-pulumi-config test sets "pulumi-nodejs:id" and creates
// with that ID); no stack or organization is told.
func TestEnvironment(t *testing.T) {
	config := map[string]resource.PropertyValue{
		"gwtest:region":    resource.NewString("eu"),
		"gwtest:limits":    resource.NewObject(resource.PropertyMap{"n": resource.NewNumber(2)}),
		"gwtest:token":     resource.NewSecret(resource.NewString("s3cret")),
		"pulumi-nodejs:id": resource.NewString("testing123"),
		"proj:token":       resource.NewSecret(resource.NewString("t0k")),
	}
	opts := plugin.Options{
		Env:     []string{"PATH=" + os.Getenv("PATH"), "KEEP=me"},
		Project: "proj", Config: config,
		RuntimeOptions: map[string]string{"typescript": "false"},
	}
	common := map[string]string{"KEEP": "me", "PULUMI_PROJECT": "proj", "PULUMI_RUNTIME_TYPESCRIPT": "false"}
	with := func(extra map[string]string) map[string]string {
		m := maps.Clone(common)
		maps.Copy(m, extra)
		return m
	}
	tests := []struct {
		pkg  string
		want map[string]string
	}{{
		pkg:  "gwtest",
		want: with(map[string]string{"PULUMI_CONFIG": `{"limits":"{\"n\":2}","region":"eu","token":"s3cret"}`}),
	}, {
		pkg: "pulumi-nodejs",
		want: with(map[string]string{
			"PULUMI_CONFIG":         `{"id":"testing123"}`,
			"PULUMI_NODEJS_PROJECT": "proj",
		}),
	}, {
		pkg:  "other",
		want: with(map[string]string{"PULUMI_CONFIG": `{}`}),
	}}
	for _, tt := range tests {
		t.Run(tt.pkg, func(t *testing.T) {
			dir := t.TempDir()
			envFile := filepath.Join(dir, "env")
			script := filepath.Join(dir, "pulumi-resource-"+tt.pkg)
			body := "#!/bin/sh\nenv > " + envFile + "\nexec " + filepath.Join(binDir, plugin.BinaryName(pluginName)) + " \"$@\"\n"
			if err := os.WriteFile(script, []byte(body), 0o755); err != nil {
				t.Fatal(err)
			}
			p, err := plugin.Start(t.Context(), tt.pkg, script, opts)
			if err != nil {
				t.Fatal(err)
			}
			closePlugin(t, p)
			b, err := os.ReadFile(envFile)
			if err != nil {
				t.Fatal(err)
			}
			got := map[string]string{}
			for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
				k, v, _ := strings.Cut(line, "=")
				if k == "KEEP" || strings.HasPrefix(k, "PULUMI_") {
					got[k] = v
				}
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("the plugin's environment (-want +got):\n%s", diff)
			}
		})
	}
}
