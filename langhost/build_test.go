package langhost_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
	"time"
)

// The binaries the tests run are built once per test binary, on first
// need: the testfs provider plugin (into a plugin folder), and the Pulumi
// Go SDK program of testdata/goprog, a module of its own pinning the SDK.
// The first build of the program downloads the SDK's modules and compiles
// them, which can take minutes on a cold cache: hence the generous bound.
const buildTimeout = 15 * time.Minute

var (
	buildDir  string
	buildOnce sync.Once
	buildErr  error

	pluginOnce sync.Once
	pluginErr  error

	goprogOnce sync.Once
	goprogErr  error
)

func TestMain(m *testing.M) {
	code := m.Run()
	if buildDir != "" {
		os.RemoveAll(buildDir)
	}
	os.Exit(code)
}

func binDir(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() { buildDir, buildErr = os.MkdirTemp("", "langhost-test-") })
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return buildDir
}

// pluginDir returns the folder holding pulumi-resource-testfs.
func pluginDir(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(binDir(t), "plugins")
	pluginOnce.Do(func() {
		pluginErr = goBuild(t, "", filepath.Join(dir, "pulumi-resource-testfs"),
			"github.com/groundwork-iac/groundwork/langhost/internal/testfs")
	})
	if pluginErr != nil {
		t.Fatalf("building the test plugin: %v", pluginErr)
	}
	return dir
}

// goProgram returns the built testdata/goprog program.
func goProgram(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(binDir(t), "goprog")
	goprogOnce.Do(func() {
		start := time.Now()
		goprogErr = goBuild(t, filepath.Join("testdata", "goprog"), bin, ".")
		t.Logf("built testdata/goprog in %v", time.Since(start).Round(time.Second))
	})
	if goprogErr != nil {
		t.Fatalf("building the Pulumi Go SDK program: %v", goprogErr)
	}
	return bin
}

// goBuild builds pkg (in dir, a module's folder, or this module for "")
// into out.
func goBuild(t *testing.T, dir, out, pkg string) error {
	ctx, cancel := context.WithTimeout(context.Background(), buildTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, goTool(), "build", "-o", out, pkg)
	cmd.Dir = dir
	if dir != "" {
		// The program's module may need its go.sum completed; this
		// module's files are never touched.
		cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod")
	}
	b, err := cmd.CombinedOutput()
	if err != nil {
		t.Logf("go build %s:\n%s", pkg, b)
	}
	return err
}

// goTool returns the go command: the one on PATH, or else the one of the
// toolchain that built the test.
func goTool() string {
	if path, err := exec.LookPath("go"); err == nil {
		return path
	}
	return filepath.Join(runtime.GOROOT(), "bin", "go")
}
