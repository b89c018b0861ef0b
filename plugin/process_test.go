//go:build unix

package plugin_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

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

func link(t *testing.T, target, path string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, path); err != nil {
		t.Fatal(err)
	}
}

// A registry with the plugin Resolver finds plugins on demand.
func TestResolver(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(binDir, plugin.BinaryName(pluginName))
	link(t, bin, filepath.Join(dir, "resource-"+pluginName+"-v2.5.0", plugin.BinaryName(pluginName)))
	resolve := plugin.Resolver(plugin.Options{Dirs: []string{dir}})
	ctx := t.Context()

	if _, v, err := resolve(ctx, pluginName, "2.1.0"); err != nil || v != "2.5.0" {
		t.Errorf("resolve 2.1.0 = %q, %v; want the versioned folder's 2.5.0", v, err)
	}
	// Only the binary on PATH (which reports 1.2.3) is a 1.x.
	if _, v, err := resolve(ctx, pluginName, "1.0.0"); err != nil || v != "1.2.3" {
		t.Errorf("resolve 1.0.0 = %q, %v; want the PATH binary's reported 1.2.3", v, err)
	}
	_, _, err := resolve(ctx, pluginName, "3.0.0")
	var nf *plugin.NotFoundError
	if !errors.As(err, &nf) || len(nf.Rejected) != 2 {
		t.Errorf("resolve 3.0.0 = %v, want a *NotFoundError rejecting both binaries", err)
	}

	reg := providers.NewRegistry(providers.WithResolver(resolve))
	p, info, err := reg.Instantiate(ctx, pluginName, "1.0.0")
	if err != nil {
		t.Fatalf("Instantiate: %v", err)
	}
	defer providers.Close(context.Background(), p)
	if info.Version != "1.2.3" {
		t.Errorf("Instantiate chose %v, want 1.2.3", info)
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
