package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// This file adapts gw's commands to cobra: each command is a cobra.Command
// whose flags bind fields of the invocation's options and whose action is
// one of gw's run functions. Usage errors, "did you mean" and the help's
// layout are decided here, for every command alike.

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

// runFunc does a command, given its positional arguments (those before
// "--"; the program after it is in inv.opts.program).
type runFunc func(ctx context.Context, inv *invocation, args []string) error

// usageError is an error in the command line: gw exits with exitUsage and
// points at the help.
type usageError struct {
	msg  string
	path string // the command whose help to point at; "" for the one run
}

func (e *usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error { return &usageError{msg: fmt.Sprintf(format, args...)} }

// afterDash says what a command takes after "--".
type afterDash int

const (
	// noProgram: nothing; a command line there is refused, since the
	// command runs no program.
	noProgram afterDash = iota
	// program: the program's command line.
	program
	// moreArgs: more positional arguments, such as a value that starts
	// with a dash (gw config set n -- -1).
	moreArgs
)

// leaf makes cmd one of gw's commands: flags binds its flags on the
// invocation's options (nil: it takes none but --help), run does it, and
// dash says what it takes after "--".
func (inv *invocation) leaf(cmd *cobra.Command, flags func(*pflag.FlagSet, *options), run runFunc, dash afterDash) *cobra.Command {
	if flags != nil {
		flags(cmd.Flags(), &inv.opts)
	}
	cmd.RunE = func(c *cobra.Command, args []string) error {
		inv.path = c.CommandPath()
		if at := c.ArgsLenAtDash(); at >= 0 && dash != moreArgs {
			args, inv.opts.program = args[:at], args[at:]
		}
		if dash == noProgram && len(inv.opts.program) > 0 {
			return usagef("%s runs no program", inv.path)
		}
		if err := settleStack(&inv.opts); err != nil {
			return err
		}
		return run(c.Context(), inv, args)
	}
	return cmd
}

// group makes cmd a command that holds subs. Run alone it shows its help,
// or runs run if it has one (gw config lists the configuration); given a
// word that names no subcommand, it fails with the names that come close.
func (inv *invocation) group(cmd *cobra.Command, flags func(*pflag.FlagSet, *options), run runFunc, subs ...*cobra.Command) *cobra.Command {
	cmd.AddCommand(subs...)
	cmd.SuggestionsMinimumDistance = 2
	cmd.Args = groupArgs
	if run == nil {
		cmd.RunE = func(c *cobra.Command, args []string) error { return c.Help() }
		return cmd
	}
	return inv.leaf(cmd, flags, run, noProgram)
}

// asGroup makes a command cobra built (completion) refuse its command
// line as gw's own commands do: a word that names none of its
// subcommands, or any word given to one of them, is a usage error.
func asGroup(c *cobra.Command) {
	c.Args = groupArgs
	if c.Run == nil && c.RunE == nil {
		c.RunE = func(c *cobra.Command, args []string) error { return c.Help() }
	}
	for _, s := range c.Commands() {
		s.Args = noArgs
	}
}

// groupArgs refuses a word that names no subcommand of a group.
func groupArgs(c *cobra.Command, args []string) error {
	if dash := c.ArgsLenAtDash(); dash >= 0 {
		args = args[:dash]
	}
	if len(args) > 0 {
		return unknownCommand(c, args[0])
	}
	return nil
}

// noArgs refuses every positional argument.
func noArgs(c *cobra.Command, args []string) error {
	if len(args) > 0 {
		return &usageError{msg: c.CommandPath() + " takes no arguments", path: c.CommandPath()}
	}
	return nil
}

// unknownCommand is the usage error of a word that names no subcommand
// of c, with the subcommands whose names come close.
func unknownCommand(c *cobra.Command, word string) error {
	msg := fmt.Sprintf("unknown command %q", c.CommandPath()+" "+word)
	var names []string
	for _, s := range c.Commands() {
		if s.IsAvailableCommand() {
			names = append(names, s.Name())
		}
	}
	if s := closest(word, names); len(s) > 0 {
		msg += "; did you mean " + orList(quoteAll(c.CommandPath()+" ", s)) + "?"
	}
	return &usageError{msg: msg, path: c.CommandPath()}
}

// flagError is how a command reports a flag it cannot parse: a usage
// error, with the flags whose names come close to an unknown one.
func flagError(c *cobra.Command, err error) error {
	msg := err.Error()
	var missing *pflag.NotExistError
	if errors.As(err, &missing) && missing.GetSpecifiedShortnames() == "" {
		var names []string
		c.Flags().VisitAll(func(f *pflag.Flag) {
			if !f.Hidden {
				names = append(names, f.Name)
			}
		})
		if s := closest(missing.GetSpecifiedName(), names); len(s) > 0 {
			msg += "; did you mean " + orList(dashed(s)) + "?"
		}
	}
	return &usageError{msg: msg, path: c.CommandPath()}
}

// closest returns the names that come closest to word: those that start
// with it, else those the fewest edits away (at most two), sorted.
func closest(word string, names []string) []string {
	var prefixed []string
	best, bestDist := []string(nil), 3
	for _, n := range names {
		if strings.HasPrefix(strings.ToLower(n), strings.ToLower(word)) {
			prefixed = append(prefixed, n)
		}
		switch d := editDistance(word, n); {
		case d < bestDist:
			best, bestDist = []string{n}, d
		case d == bestDist:
			best = append(best, n)
		}
	}
	if len(prefixed) > 0 {
		best = prefixed
	}
	sort.Strings(best)
	return best
}

// editDistance is the Levenshtein distance between a and b, ignoring case.
func editDistance(a, b string) int {
	ra, rb := []rune(strings.ToLower(a)), []rune(strings.ToLower(b))
	prev := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur := make([]int, len(rb)+1)
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev = cur
	}
	return prev[len(rb)]
}

// quoteAll quotes each of names after prefix.
func quoteAll(prefix string, names []string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = fmt.Sprintf("%q", prefix+n)
	}
	return out
}

// dashed puts "--" before each of names.
func dashed(names []string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = "--" + n
	}
	return out
}

// orList joins items as "a", "a or b", "a, b or c".
func orList(items []string) string {
	if len(items) <= 1 {
		return strings.Join(items, "")
	}
	return strings.Join(items[:len(items)-1], ", ") + " or " + items[len(items)-1]
}

// helpCommand is "gw help [command...]": the help of the command named,
// or a usage error if there is none.
func helpCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "help [command]",
		Short: "show the help of a command",
		RunE: func(c *cobra.Command, args []string) error {
			cmd := c.Root()
			for _, word := range args {
				next := subcommand(cmd, word)
				if next == nil {
					return unknownCommand(cmd, word)
				}
				cmd = next
			}
			return cmd.Help()
		},
		ValidArgsFunction: func(c *cobra.Command, args []string, _ string) ([]string, cobra.ShellCompDirective) {
			cmd := c.Root()
			for _, word := range args {
				if cmd = subcommand(cmd, word); cmd == nil {
					return nil, cobra.ShellCompDirectiveNoFileComp
				}
			}
			var names []string
			for _, s := range cmd.Commands() {
				if s.IsAvailableCommand() {
					names = append(names, s.Name()+"\t"+s.Short)
				}
			}
			return names, cobra.ShellCompDirectiveNoFileComp
		},
	}
}

// subcommand returns c's subcommand named name (or aliased so), or nil.
func subcommand(c *cobra.Command, name string) *cobra.Command {
	for _, s := range c.Commands() {
		if s.Name() == name || s.HasAlias(name) {
			return s
		}
	}
	return nil
}

// writeHelp writes a command's help: its synopsis, description,
// subcommands and flags.
func writeHelp(c *cobra.Command) {
	w := c.OutOrStdout()
	fmt.Fprintf(w, "Usage: %s\n", c.UseLine())
	if desc := strings.TrimSpace(c.Long); desc != "" {
		fmt.Fprintf(w, "\n%s\n", desc)
	} else if c.Short != "" {
		fmt.Fprintf(w, "\n%s%s.\n", strings.ToUpper(c.Short[:1]), c.Short[1:])
	}
	var subs []*cobra.Command
	for _, s := range c.Commands() {
		if s.IsAvailableCommand() {
			subs = append(subs, s)
		}
	}
	if len(subs) > 0 {
		fmt.Fprintf(w, "\nCommands:\n")
		width := 0
		for _, s := range subs {
			width = max(width, len(s.Name()))
		}
		for _, s := range subs {
			fmt.Fprintf(w, "  %-*s   %s\n", width, s.Name(), s.Short)
		}
	}
	c.InitDefaultHelpFlag() // cobra adds them as the command runs
	c.InitDefaultVersionFlag()
	fmt.Fprintf(w, "\nFlags:\n%s", c.Flags().FlagUsages())
	if len(subs) > 0 {
		fmt.Fprintf(w, "\nRun \"%s <command> --help\" for a command's flags.\n", c.CommandPath())
	}
}
