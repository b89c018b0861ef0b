package main

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestPreferPlugin: --prefer-plugin random, or GW_PREFER_PLUGINS, passes
// the built-in random provider over for its plugin; with no plugin
// installed, up fails saying so and naming the command that installs it.
func TestPreferPlugin(t *testing.T) {
	t.Parallel()
	bin := site(t)
	for name, tc := range map[string]struct{ flags, env []string }{
		"flag":        {flags: []string{"--prefer-plugin", "random"}},
		"environment": {env: []string{"GW_PREFER_PLUGINS=command, random"}},
	} {
		t.Run(name, func(t *testing.T) {
			dir := siteProject(t)
			args := append([]string{"up", "--yes", "--state", "state", "-c", "dir=" + dir, "--secret-config", "token=t"}, tc.flags...)
			cmd := exec.Command(gwBinary(t), append(args, "--", bin)...)
			cmd.Dir = dir
			// An empty Pulumi plugin cache: no plugin is installed.
			cmd.Env = append(append(os.Environ(), "GW_PASSPHRASE=gw-test", "PULUMI_HOME="+t.TempDir()), tc.env...)
			out, err := cmd.CombinedOutput()
			var exit *exec.ExitError
			if !errors.As(err, &exit) || exit.ExitCode() != exitError {
				t.Fatalf("gw up: %v; want exit status 1\n%s", err, out)
			}
			for _, want := range []string{"plugins are preferred for it", `"pulumi plugin install resource random" installs its plugin in Pulumi's plugin cache`} {
				if !strings.Contains(string(out), want) {
					t.Errorf("the output does not say %q:\n%s", want, out)
				}
			}
		})
	}
}

// TestPluginInPulumiCache: a plugin that `pulumi plugin install` put in
// Pulumi's plugin cache ($PULUMI_HOME/plugins, else ~/.pulumi/plugins,
// in resource-<name>-v<version>/) serves its package with no --plugin-dir.
func TestPluginInPulumiCache(t *testing.T) {
	t.Parallel()
	bin := site(t)
	for name, home := range map[string]string{"PULUMI_HOME": "PULUMI_HOME", "home folder": "HOME"} {
		t.Run(name, func(t *testing.T) {
			root := t.TempDir()
			cache := filepath.Join(root, "plugins")
			if home == "HOME" {
				cache = filepath.Join(root, ".pulumi", "plugins")
			}
			build := exec.Command(goCommand(), "build", "-o", filepath.Join(cache, "resource-random-v4.18.0", "pulumi-resource-random"), "../pulumi-resource-random")
			build.Dir = packageDir
			if out, err := build.CombinedOutput(); err != nil {
				t.Fatalf("go build: %v\n%s", err, out)
			}
			dir := siteProject(t)
			cmd := exec.Command(gwBinary(t), "up", "--yes", "--state", "state", "-c", "dir="+dir, "--secret-config", "token=t",
				"--prefer-plugin", "random", "--", bin)
			cmd.Dir = dir
			env := append(os.Environ(), "GW_PASSPHRASE=gw-test")
			if home == "HOME" {
				env = append(env, "PULUMI_HOME=", "HOME="+root)
			} else {
				env = append(env, "PULUMI_HOME="+root)
			}
			cmd.Env = env
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("gw up with the random plugin in Pulumi's plugin cache: %v\n%s", err, out)
			}
		})
	}
}
