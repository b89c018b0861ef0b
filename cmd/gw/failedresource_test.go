package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A resource whose create fails is named once on each line gw prints of
// it: the step's line and the error.
func TestFailedResourceNamedOnce(t *testing.T) {
	bin, work := inSiteWorkspace(t)
	// The page's folder is under a file: its create fails.
	blocker := filepath.Join(work, "blocker")
	if err := os.WriteFile(blocker, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := gw(t, "up", "--yes", "--state", filepath.Join(work, "state"),
		"--config", "dir="+filepath.Join(blocker, "www"), "--secret-config", "token=t", "--", bin)
	t.Logf("status %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	if code != exitError {
		t.Fatalf("status %d, want %d", code, exitError)
	}
	// The failure is said twice: on the step's line and in the closing
	// error, not again as the program's failure (the SDK program logs the
	// error its registration got, and exits).
	if n := strings.Count(out, "not a directory"); n != 2 {
		t.Errorf("the failure is said %d times, want 2 (the step's line and the error)", n)
	}
	urn := "urn:pulumi:dev::site::local:index:File::page"
	for _, line := range strings.Split(out, "\n") {
		if !strings.Contains(line, "page") || strings.HasPrefix(line, "Resources: ") {
			continue
		}
		n := strings.Count(line, urn)
		n += strings.Count(strings.ReplaceAll(line, urn, ""), "local:index:File  page")
		if n > 1 {
			t.Errorf("the line names the page %d times: %q", n, line)
		}
		for _, name := range []string{"stepgen", "engine.", "dag.", "providers."} {
			if strings.Contains(line, name) {
				t.Errorf("the line names %q: %q", name, line)
			}
		}
	}
}

// A provider plugin that fails to start is reported by the error of the
// registration it failed, which names it and quotes the end of its
// stderr: what it wrote is not also printed as it wrote it.
func TestFailedPluginStartSaidByItsError(t *testing.T) {
	bin, work := inSiteWorkspace(t)
	plugins := filepath.Join(work, "plugins")
	script := "#!/bin/sh\necho 'error: no credentials for broken' >&2\nexit 1\n"
	if err := os.MkdirAll(plugins, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(plugins, "pulumi-resource-broken"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PULUMI_HOME", t.TempDir())
	code, out, errOut := gw(t, "up", "--yes", "--state", filepath.Join(work, "state"), "--plugin-dir", plugins,
		"--config", "dir="+work, "--config", "extraType=broken:index:Thing", "--secret-config", "token=t", "--", bin)
	t.Logf("status %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	if code != exitError {
		t.Fatalf("status %d, want %d", code, exitError)
	}
	if !strings.Contains(out+errOut, "plugin broken") || !strings.Contains(out+errOut, "error: no credentials for broken") {
		t.Errorf("the output does not name the plugin and quote its stderr")
	}
	if strings.Contains(out+errOut, "plugin: error: no credentials") {
		t.Errorf("the plugin's stderr was printed as it wrote it, besides the error that quotes it")
	}
	// The program logs the error its registration got and exits: its
	// failure says nothing the refused registration does not. The
	// failure is said as a failed step's is: on the line of the resource
	// whose registration it failed, and in the closing error.
	if n := strings.Count(out+errOut, "error: no credentials for broken"); n != 2 {
		t.Errorf("the plugin's error is said %d times, want twice (the resource's line and the error)", n)
	}
}
