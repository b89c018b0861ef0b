package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
)

// command is one gw command. A command with subcommands is a group: it
// runs its own run function when given no subcommand (if it has one), and
// shows its help otherwise.
//
// Adding a command is a value in the tree of commands.go: its name, the
// arguments it takes, a summary for its parent's help, the flags it
// binds on the shared options, and what it runs.
type command struct {
	name string
	// args is the synopsis of the positional arguments, e.g. "KEY [VALUE]".
	args string
	// summary is one line for the parent's list of commands.
	summary string
	// help is the longer description, shown by "gw <command> --help".
	help string
	// flags binds the command's flags on o. Nil: the command takes none.
	flags func(fs *flag.FlagSet, o *options)
	// program says the command runs the project's program, whose command
	// line may follow "--".
	program bool
	// run does the command, given its positional arguments.
	run  func(ctx context.Context, inv *invocation, args []string) error
	subs []*command
}

// invocation is one run of gw: where it reads and writes, and the parsed
// options of the command line.
type invocation struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	opts           options
	// path is the command's full name, e.g. "gw config set".
	path string
	// shownError is the error the display showed as the operation's
	// outcome: gw does not print it again.
	shownError string
}

// usageError is an error in the command line: gw exits with exitUsage and
// points at the help.
type usageError struct {
	msg  string
	path string // the command whose help to point at
}

func (e *usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error { return &usageError{msg: fmt.Sprintf(format, args...)} }

// errHelpShown ends a run whose help was asked for and written.
var errHelpShown = errors.New("help shown")

// sub returns the subcommand named name, or nil.
func (c *command) sub(name string) *command {
	for _, s := range c.subs {
		if s.name == name {
			return s
		}
	}
	return nil
}

// resolve walks args down the tree from root: it returns the command
// named and the arguments that follow its name.
func resolve(root *command, args []string) (cmd *command, path string, rest []string) {
	cmd, path, rest = root, root.name, args
	for len(rest) > 0 && len(cmd.subs) > 0 {
		next := cmd.sub(rest[0])
		if next == nil {
			break
		}
		cmd, path, rest = next, path+" "+next.name, rest[1:]
	}
	return cmd, path, rest
}

// parse reads the command line into inv and returns the command to run
// and its positional arguments. Flags and positional arguments may mix;
// everything after "--" is the program. "-h", "--help" and "help" anywhere
// before "--" write the command's help to stdout and return errHelpShown.
func parse(root *command, args []string, inv *invocation) (*command, []string, error) {
	if len(args) > 0 && args[0] == "help" {
		cmd, path, rest := resolve(root, args[1:])
		if len(rest) > 0 {
			return nil, nil, &usageError{msg: fmt.Sprintf("unknown command %q", strings.Join(append([]string{path}, rest[0]), " ")), path: path}
		}
		writeHelp(inv.stdout, cmd, path)
		return nil, nil, errHelpShown
	}
	cmd, path, rest := resolve(root, args)
	inv.path = path
	for i, a := range rest {
		if a == "--" {
			rest, inv.opts.program = rest[:i], rest[i+1:]
			break
		}
	}
	fs := flag.NewFlagSet(path, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	if cmd.flags != nil {
		cmd.flags(fs, &inv.opts)
	}
	var positionals []string
	for {
		err := fs.Parse(rest)
		if errors.Is(err, flag.ErrHelp) {
			writeHelp(inv.stdout, cmd, path)
			return nil, nil, errHelpShown
		}
		if err != nil {
			return nil, nil, &usageError{msg: err.Error(), path: path}
		}
		if fs.NArg() == 0 {
			break
		}
		positionals = append(positionals, fs.Arg(0))
		rest = fs.Args()[1:]
	}
	switch {
	case len(cmd.subs) > 0 && len(positionals) > 0 && cmd.run == nil:
		return nil, nil, &usageError{msg: fmt.Sprintf("unknown command %q", path+" "+positionals[0]), path: path}
	case len(cmd.subs) > 0 && cmd.run == nil:
		writeHelp(inv.stdout, cmd, path)
		return nil, nil, errHelpShown
	case !cmd.program && len(inv.opts.program) > 0:
		return nil, nil, &usageError{msg: path + " runs no program", path: path}
	}
	return cmd, positionals, nil
}

// writeHelp writes a command's help: its synopsis, description,
// subcommands and flags.
func writeHelp(w io.Writer, cmd *command, path string) {
	synopsis := path
	if len(cmd.subs) > 0 {
		synopsis += " <command>"
	}
	if cmd.flags != nil {
		synopsis += " [flags]"
	}
	if cmd.args != "" {
		synopsis += " " + cmd.args
	}
	if cmd.program {
		synopsis += " [-- program [args...]]"
	}
	fmt.Fprintf(w, "Usage: %s\n", synopsis)
	if cmd.help != "" {
		fmt.Fprintf(w, "\n%s\n", strings.TrimSpace(cmd.help))
	} else if cmd.summary != "" {
		fmt.Fprintf(w, "\n%s%s.\n", strings.ToUpper(cmd.summary[:1]), cmd.summary[1:])
	}
	if len(cmd.subs) > 0 {
		fmt.Fprintf(w, "\nCommands:\n")
		tw := tabwriter.NewWriter(w, 0, 0, 3, ' ', 0)
		for _, s := range cmd.subs {
			fmt.Fprintf(tw, "  %s\t%s\n", s.name, s.summary)
		}
		tw.Flush()
	}
	fmt.Fprintf(w, "\nFlags:\n")
	fs := flag.NewFlagSet(path, flag.ContinueOnError)
	if cmd.flags != nil {
		cmd.flags(fs, &options{})
	}
	fs.Bool("help", false, "show this help")
	shorthand(fs, "h", "help")
	writeFlags(w, fs)
	if len(cmd.subs) > 0 {
		fmt.Fprintf(w, "\nRun \"%s <command> --help\" for a command's flags.\n", path)
	}
}

// writeFlags lists a flag set's flags, GNU style, with their defaults.
func writeFlags(w io.Writer, fs *flag.FlagSet) {
	tw := tabwriter.NewWriter(w, 0, 0, 3, ' ', 0)
	short := map[string]string{}
	fs.VisitAll(func(f *flag.Flag) {
		if a, ok := f.Value.(alias); ok {
			short[a.of] = f.Name
		}
	})
	fs.VisitAll(func(f *flag.Flag) {
		if _, ok := f.Value.(alias); ok {
			return
		}
		name := "--" + f.Name
		if s := short[f.Name]; s != "" {
			name = "-" + s + ", " + name
		} else {
			name = "    " + name
		}
		kind, usage := flag.UnquoteUsage(f)
		if kind != "" {
			name += " " + kind
		}
		if f.DefValue != "" && f.DefValue != "false" && f.DefValue != "0" && f.DefValue != "[]" {
			usage += fmt.Sprintf(" (default %s)", f.DefValue)
		}
		fmt.Fprintf(tw, "  %s\t%s\n", name, usage)
	})
	tw.Flush()
}

// alias is a one-letter flag that sets another flag, as "-y" sets
// "--yes". It is listed with the flag it stands for.
type alias struct {
	flag.Value
	of string
}

// IsBoolFlag lets a boolean alias go without a value.
func (a alias) IsBoolFlag() bool {
	b, ok := a.Value.(interface{ IsBoolFlag() bool })
	return ok && b.IsBoolFlag()
}

// shorthand defines the one-letter alias short of the flag name.
func shorthand(fs *flag.FlagSet, short, name string) {
	f := fs.Lookup(name)
	fs.Var(alias{Value: f.Value, of: name}, short, "")
}

// listFlag is a repeatable string flag.
type listFlag []string

func (l *listFlag) String() string     { return strings.Join(*l, ",") }
func (l *listFlag) Set(s string) error { *l = append(*l, s); return nil }
