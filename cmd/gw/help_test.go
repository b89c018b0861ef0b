package main

import (
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

// TestHelpAtEveryLevel asks every command for its help in the three ways
// pulumi and terraform users type it.
func TestHelpAtEveryLevel(t *testing.T) {
	t.Chdir(t.TempDir())
	var walk func(c *cobra.Command, path []string)
	walk = func(c *cobra.Command, path []string) {
		name := strings.Join(append([]string{"gw"}, path...), " ")
		for _, args := range [][]string{
			append(append([]string{}, path...), "--help"),
			append(append([]string{}, path...), "-h"),
			append([]string{"help"}, path...),
		} {
			code, out, errOut := gw(t, args...)
			if code != exitOK || !strings.HasPrefix(out, "Usage: "+name) || errOut != "" {
				t.Errorf("gw %q: status %d, stdout %q, stderr %q; want 0 and the help of %s", args, code, out, errOut, name)
			}
			if !strings.Contains(out, "-h, --help") {
				t.Errorf("gw %q: the help does not list -h, --help:\n%s", args, out)
			}
		}
		for _, s := range c.Commands() {
			walk(s, append(append([]string{}, path...), s.Name()))
		}
	}
	walk(rootCommand(&invocation{}), nil)
}

// TestHelpListsCommandsAndFlags checks what the help says.
func TestHelpListsCommandsAndFlags(t *testing.T) {
	t.Chdir(t.TempDir())
	for _, tc := range []struct {
		args []string
		want []string
	}{
		{nil, []string{"Commands:", "preview", "up", "refresh", "destroy", "import", "config", "stack", "unlock"}},
		{[]string{"up", "-h"}, []string{"Usage: gw up [flags] [-- program [args...]]", "-y, --yes", "-s, --stack name", "-c, --config KEY=VALUE", "--refresh", `(default ".groundwork")`}},
		{[]string{"config", "--help"}, []string{"Commands:", "set", "get", "rm", "--show-secrets"}},
		{[]string{"config", "set", "--help"}, []string{"Usage: gw config set [flags] KEY [VALUE]", "--secret"}},
		{[]string{"stack", "-h"}, []string{"output", "ls"}},
		{[]string{"unlock", "-h"}, []string{"--force"}},
	} {
		code, out, _ := gw(t, tc.args...)
		if code != exitOK {
			t.Errorf("gw %q: status %d", tc.args, code)
		}
		for _, w := range tc.want {
			if !strings.Contains(out, w) {
				t.Errorf("gw %q: the help lacks %q:\n%s", tc.args, w, out)
			}
		}
	}
}
