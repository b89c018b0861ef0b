package plugin_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// pluginName is the package whose plugin binary, pulumi-resource-gwtest,
// TestMain builds from internal/testplugin and puts on PATH.
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
	out := filepath.Join(dir, "pulumi-resource-"+pluginName)
	build := exec.Command("go", "build", "-o", out, "github.com/groundwork-iac/groundwork/plugin/internal/testplugin")
	build.Stderr = os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "building the test plugin:", err)
		return 1
	}
	os.Setenv("PATH", dir+string(os.PathListSeparator)+os.Getenv("PATH"))
	return m.Run()
}
