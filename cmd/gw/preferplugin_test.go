package main

import (
	"errors"
	"os"
	"os/exec"
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
			cmd.Env = append(append(os.Environ(), "GW_PASSPHRASE=gw-test"), tc.env...)
			out, err := cmd.CombinedOutput()
			var exit *exec.ExitError
			if !errors.As(err, &exit) || exit.ExitCode() != exitError {
				t.Fatalf("gw up: %v; want exit status 1\n%s", err, out)
			}
			for _, want := range []string{"plugins are preferred for it", `"pulumi plugin install resource random" installs its plugin`} {
				if !strings.Contains(string(out), want) {
					t.Errorf("the output does not say %q:\n%s", want, out)
				}
			}
		})
	}
}
