package plugin_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
)

// pluginName is the package whose plugin binary, pulumi-resource-gwtest,
// TestMain builds from internal/testplugin and puts on PATH, beside the
// built-in providers' plugins from cmd/.
const pluginName = "gwtest"

// binDir holds the built plugin binary.
var binDir string

func TestMain(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	dir, err := os.MkdirTemp("", "plugin-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	binDir = dir
	// One build for all the binaries: the test plugin, and the built-in
	// providers' plugins under cmd/.
	goCmd := goTool()
	build := exec.Command(goCmd, "build", "-o", dir+string(filepath.Separator),
		"github.com/groundwork-iac/groundwork/cmd/pulumi-resource-local",
		"github.com/groundwork-iac/groundwork/cmd/pulumi-resource-random",
		"github.com/groundwork-iac/groundwork/cmd/pulumi-resource-command")
	build.Stderr = os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "building the built-in plugins:", err)
		return 1
	}
	out := filepath.Join(dir, "pulumi-resource-"+pluginName)
	build = exec.Command(goCmd, "build", "-o", out, "github.com/groundwork-iac/groundwork/plugin/internal/testplugin")
	build.Stderr = os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "building the test plugin:", err)
		return 1
	}
	os.Setenv("PATH", dir+string(os.PathListSeparator)+os.Getenv("PATH"))
	return m.Run()
}

// goTool returns the go command: the one on PATH, or else the one of the
// toolchain that built the test.
func goTool() string {
	if path, err := exec.LookPath("go"); err == nil {
		return path
	}
	return filepath.Join(runtime.GOROOT(), "bin", "go")
}
