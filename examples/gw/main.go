// Command gw is a small deployment CLI built on groundwork's public API
// alone: it deploys Pulumi SDK programs (Go or Node.js) with the engine,
// keeping each stack's state in a folder or a PostgreSQL database.
//
//	gw preview [flags] [-- program [args...]]
//	gw up      [flags] [-- program [args...]]
//	gw refresh [flags]
//	gw destroy [flags]
//	gw import  [flags] TYPE NAME ID      (or --file resources.json)
//
// The program is the command after "--": a built Pulumi Go program, "go
// run .", or for a Node.js project (runtime: nodejs in Pulumi.yaml) the
// entry module and its arguments. Without one, a Go project runs "go run
// ." and a Node.js project its package.json entry point.
//
// Flags:
//
//	--project NAME        the project (default: name in ./Pulumi.yaml)
//	--stack NAME          the stack (default dev)
//	--state URL           where the state is kept: a folder (DIR or file://DIR),
//	                      postgres://user@host/db?... or memory:// (default .groundwork)
//	--plugin-dir DIR      where pulumi-resource-<name> plugins are (repeatable; PATH after)
//	--config K=V          stack config; K without a namespace gets the project's (repeatable)
//	--secret-config K=V   the same, kept secret (repeatable)
//	--parallel N          at most N steps at once (default: no bound)
//	--target URN          only these resources (repeatable)
//	--refresh             refresh the stack first
//	--json                events as JSON lines instead of the live display
//	--yes                 change the stack without asking
//
// Secrets in the state are encrypted with the passphrase in GW_PASSPHRASE.
// The built-in providers (local, random, command) are always available;
// others are launched as plugins. gw exits 0 on success, 1 when the
// operation fails and 2 on a usage error, with the error on stderr.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	code := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// The exit statuses.
const (
	exitOK    = 0
	exitError = 1
	exitUsage = 2
)

// usageError is an error in the command line.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error { return &usageError{msg: fmt.Sprintf(format, args...)} }

// run is the whole CLI: it returns the exit status.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	c, err := parse(args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return exitOK
	}
	if err == nil {
		err = c.execute(ctx, stdin, stdout, stderr)
	}
	if err == nil {
		return exitOK
	}
	fmt.Fprintln(stderr, "error:", err)
	var ue *usageError
	if errors.As(err, &ue) {
		fmt.Fprintln(stderr, "usage: gw preview|up|refresh|destroy|import [flags] [-- program [args...]] (gw <command> -h lists the flags)")
		return exitUsage
	}
	return exitError
}

// cli is a parsed command line.
type cli struct {
	op          string
	project     string
	stack       string
	stateURL    string
	pluginDirs  listFlag
	config      listFlag
	secrets     listFlag
	targets     listFlag
	parallel    int
	refresh     bool
	json        bool
	yes         bool
	importFile  string
	provider    string
	parent      string
	version     string
	positionals []string
	program     []string
}

// listFlag is a repeatable string flag.
type listFlag []string

func (l *listFlag) String() string     { return strings.Join(*l, ",") }
func (l *listFlag) Set(s string) error { *l = append(*l, s); return nil }

var operations = map[string]bool{"preview": true, "up": true, "refresh": true, "destroy": true, "import": true}

// parse reads the command line. Flags and positional arguments may mix;
// everything after "--" is the program.
func parse(args []string, stderr io.Writer) (*cli, error) {
	if len(args) == 0 {
		return nil, usagef("no command given")
	}
	c := &cli{op: args[0]}
	if !operations[c.op] {
		return nil, usagef("unknown command %q", c.op)
	}
	rest := args[1:]
	for i, a := range rest {
		if a == "--" {
			rest, c.program = rest[:i], rest[i+1:]
			break
		}
	}
	fs := flag.NewFlagSet("gw "+c.op, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&c.project, "project", "", "the project (default: name in ./Pulumi.yaml)")
	fs.StringVar(&c.stack, "stack", "dev", "the stack")
	fs.StringVar(&c.stateURL, "state", ".groundwork", "where the state is kept: a folder, file://DIR, postgres://... or memory://")
	fs.Var(&c.pluginDirs, "plugin-dir", "a folder of pulumi-resource-<name> plugins (repeatable)")
	fs.Var(&c.config, "config", "a config value KEY=VALUE (repeatable)")
	fs.Var(&c.secrets, "secret-config", "a secret config value KEY=VALUE (repeatable)")
	fs.Var(&c.targets, "target", "a URN to limit the operation to (repeatable)")
	fs.IntVar(&c.parallel, "parallel", 0, "at most N steps at once (0: no bound)")
	fs.BoolVar(&c.refresh, "refresh", false, "refresh the stack first")
	fs.BoolVar(&c.json, "json", false, "write events as JSON lines")
	fs.BoolVar(&c.yes, "yes", false, "change the stack without asking")
	if c.op == "import" {
		fs.StringVar(&c.importFile, "file", "", `a JSON file {"resources": [{"type", "name", "id", "provider", "parent", "version"}]}`)
		fs.StringVar(&c.provider, "provider", "", "the provider reference of the imported resource")
		fs.StringVar(&c.parent, "parent", "", "the parent URN of the imported resource")
		fs.StringVar(&c.version, "version", "", "the provider version of the imported resource")
	}
	for {
		if err := fs.Parse(rest); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil, err
			}
			return nil, usagef("%v", err)
		}
		if fs.NArg() == 0 {
			break
		}
		c.positionals = append(c.positionals, fs.Arg(0))
		rest = fs.Args()[1:]
	}
	if c.parallel < 0 {
		return nil, usagef("--parallel must not be negative")
	}
	switch {
	case c.op == "import" && c.importFile == "" && len(c.positionals) != 3:
		return nil, usagef("gw import takes TYPE NAME ID (or --file)")
	case c.op == "import" && c.importFile != "" && len(c.positionals) > 0:
		return nil, usagef("gw import takes either TYPE NAME ID or --file, not both")
	case c.op != "import" && len(c.positionals) > 0:
		return nil, usagef("unexpected argument %q: put the program and its arguments after --", c.positionals[0])
	case (c.op == "refresh" || c.op == "destroy" || c.op == "import") && len(c.program) > 0:
		return nil, usagef("gw %s runs no program", c.op)
	}
	return c, nil
}

// setting is one --config or --secret-config value, its key given the
// project's namespace when it has none.
func setting(project, kv string) (string, string, error) {
	k, v, ok := strings.Cut(kv, "=")
	if !ok || k == "" {
		return "", "", usagef("config %q is not KEY=VALUE", kv)
	}
	if !strings.Contains(k, ":") {
		k = project + ":" + k
	}
	return k, v, nil
}

// programDir returns the folder the program runs in: the project's, or
// its main folder.
func programDir(p project) (string, error) {
	wd, err := os.Getwd()
	if err != nil {
		return "", err
	}
	if p.Main == "" {
		return wd, nil
	}
	return filepath.Join(wd, filepath.FromSlash(p.Main)), nil
}
