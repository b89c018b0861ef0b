package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

var update = flag.Bool("update", false, "rewrite REFERENCE.md from gw's command definitions")

// dailyRow is a row of README.md's table of daily commands.
type dailyRow struct{ pulumi, gw string }

// dailyRows reads README.md's table of the Pulumi CLI's daily commands.
func dailyRows(t *testing.T) []dailyRow {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(packageDir, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, table, ok := strings.Cut(string(b), "<!-- daily:begin -->")
	table, _, ok2 := strings.Cut(table, "<!-- daily:end -->")
	if !ok || !ok2 {
		t.Fatal("README.md has no table of daily commands between its markers")
	}
	cell := regexp.MustCompile("^\\| `([^`]+)`[^|]* \\| `([^`]+)` \\|$")
	var rows []dailyRow
	for _, line := range strings.Split(strings.TrimSpace(table), "\n")[2:] {
		m := cell.FindStringSubmatch(line)
		if m == nil {
			t.Fatalf("README.md: a row of the table is not | `pulumi ...` | `gw ...` |: %q", line)
		}
		rows = append(rows, dailyRow{m[1], m[2]})
	}
	return rows
}

// words splits a command line, keeping single-quoted words whole.
func words(line string) []string {
	var out []string
	for _, m := range regexp.MustCompile(`'[^']*'|\S+`).FindAllString(line, -1) {
		out = append(out, strings.Trim(m, "'"))
	}
	return out
}

// TestDailyCommands runs every gw command of README.md's table, in order,
// with the built gw on a project of the site program (a built Go program
// that runtime.options.binary names), and checks each succeeds and that
// its Pulumi counterpart names the same command.
func TestDailyCommands(t *testing.T) {
	t.Parallel()
	bin := site(t)
	dir := t.TempDir()
	project := "name: site\nruntime:\n  name: go\n  options:\n    binary: " + bin + "\n"
	if err := os.WriteFile(filepath.Join(dir, "Pulumi.yaml"), []byte(project), 0o644); err != nil {
		t.Fatal(err)
	}
	// The URNs the rows name, by the command they appear in.
	const (
		pet     = "urn:pulumi:dev::site::random:index:Pet::mascot"
		page    = "urn:pulumi:dev::site::local:index:File::page"
		adopted = "urn:pulumi:dev::site::random:index:Pet::adopted"
	)
	urnOf := map[string]string{"up": pet, "state protect": page, "state unprotect": page, "state rename": adopted,
		"state move": "urn:pulumi:dev::site::random:index:Pet::adoptee",
		// The move took the adoptee to stack prod, where the delete runs.
		"state delete": "urn:pulumi:prod::site::random:index:Pet::adoptee"}
	pass := "gw-test"
	gwRun := func(stdin string, args ...string) (int, string) {
		cmd := exec.Command(gwBinary(t), args...)
		cmd.Dir, cmd.Stdin = dir, strings.NewReader(stdin)
		cmd.Env = append(os.Environ(), "GW_PASSPHRASE="+pass)
		out, err := cmd.CombinedOutput()
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			return exit.ExitCode(), string(out)
		}
		if err != nil {
			t.Fatal(err)
		}
		return 0, string(out)
	}
	if code, out := gwRun("", "config", "set", "dir", dir); code != 0 {
		t.Fatalf("config set dir: %d %s", code, out)
	}
	for _, row := range dailyRows(t) {
		args := words(row.gw)[1:]
		if p := words(row.pulumi); p[0] != "pulumi" {
			t.Errorf("row %q: the Pulumi command does not start with pulumi", row.pulumi)
		}
		name := strings.Join(args[:min(2, len(args))], " ")
		for i, a := range args {
			switch a {
			case "URN":
				u, ok := urnOf[name]
				if !ok {
					u = urnOf[args[0]]
				}
				args[i] = u
			case "NEW-NAME":
				args[i] = "adoptee"
			}
		}
		stdin := ""
		if name == "stack change-secrets-provider" {
			stdin = "a new passphrase\n"
		}
		code, out := gwRun(stdin, args...)
		if code != 0 {
			t.Fatalf("README row %q: gw %q: status %d\n%s", row.gw, args, code, out)
		}
		noGoAPINames(t, row.gw, out)
		if stdin != "" {
			pass = strings.TrimSpace(stdin)
		}
	}
}

// TestReference keeps REFERENCE.md, the reference of every gw command,
// as gw's definitions generate it.
func TestReference(t *testing.T) {
	var buf bytes.Buffer
	writeReference(&buf, rootCommand(&invocation{}))
	path := filepath.Join(packageDir, "REFERENCE.md")
	if *update {
		if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, buf.Bytes()) {
		t.Errorf("REFERENCE.md is not what gw's definitions generate: run go test ./cmd/gw -run TestReference -update")
	}
}

// writeReference writes the Markdown reference of c and every command
// below it.
func writeReference(buf *bytes.Buffer, root *cobra.Command) {
	buf.WriteString("# gw command reference\n\nGenerated from gw's command definitions by `TestReference` " +
		"(`go test ./cmd/gw -run TestReference -update`); do not edit.\n")
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		if !c.IsAvailableCommand() && c != root {
			return
		}
		fmt.Fprintf(buf, "\n## %s\n\n", c.CommandPath())
		if c.Short != "" {
			fmt.Fprintf(buf, "%s%s.\n\n", strings.ToUpper(c.Short[:1]), c.Short[1:])
		}
		fmt.Fprintf(buf, "```\n%s\n```\n", c.UseLine())
		if c.Long != "" {
			fmt.Fprintf(buf, "\n%s\n", strings.TrimSpace(c.Long))
		}
		c.InitDefaultHelpFlag()
		if c == root {
			c.InitDefaultVersionFlag()
		}
		if usages := c.Flags().FlagUsages(); usages != "" {
			fmt.Fprintf(buf, "\nFlags:\n\n```\n%s```\n", usages)
		}
		for _, s := range c.Commands() {
			walk(s)
		}
	}
	walk(root)
}

// TestNotInGW: the commands and flags README.md says gw lacks are not
// gw's, so that the sentence is not left behind when one is added.
func TestNotInGW(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(packageDir, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(b), "\nNot in gw: ")
	if !ok {
		t.Fatal(`README.md has no "Not in gw:" sentence`)
	}
	sentence, _, _ := strings.Cut(rest, "\n\n")
	root := rootCommand(&invocation{})
	for _, m := range regexp.MustCompile("`([^`]+)`").FindAllStringSubmatch(sentence, -1) {
		ws := strings.Fields(m[1])
		if ws[0] == "pulumi" {
			ws = ws[1:]
		}
		cmd, has := root, true
		for _, w := range ws {
			if name, ok := strings.CutPrefix(w, "--"); ok {
				has = has && cmd.Flags().Lookup(name) != nil
				continue
			}
			if cmd = subcommand(cmd, w); cmd == nil {
				has = false
				break
			}
		}
		if has {
			t.Errorf("README.md says gw lacks %q, but gw has it", m[1])
		}
	}
}
