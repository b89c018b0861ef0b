package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"regexp"
	"strings"
)

// comparison is how `bench -against` runs: two bench binaries, each
// given the same flags, run in turn pair after pair.
type comparison struct {
	// old is the path of the bench binary compared against; oldName is
	// how the output names it (the path, or the commit it was built from).
	old, oldName string
	// new is the path of this binary.
	new string
	// args are the flags both sides get: the workload flags the user set,
	// then -runs 1 -json.
	args  []string
	pairs int
	// progress receives a line as each side of each pair starts.
	progress io.Writer
}

// compareFlags are this binary's flags that configure the comparison
// itself and are never passed on to either side.
var compareFlags = map[string]bool{"against": true, "against-commit": true, "pairs": true, "json": true}

// refusedWithCompare are flags that have no meaning in a comparison.
var refusedWithCompare = map[string]string{
	"runs":    "each pair runs each side once; set the number of pairs with -pairs",
	"profile": "profile each binary on its own, without -against",
	"child":   "it is internal",
}

// passedFlags returns the flags the user set explicitly, as arguments for
// both sides, with -runs 1 -json after them. Only explicitly set flags are
// passed, so that an older binary, which may not know flags added since,
// gets only what the user asked for.
func passedFlags(fs *flag.FlagSet) ([]string, error) {
	var args []string
	var err error
	fs.Visit(func(f *flag.Flag) {
		if compareFlags[f.Name] || err != nil {
			return
		}
		if why, refused := refusedWithCompare[f.Name]; refused {
			err = fmt.Errorf("-%s does not combine with -against: %s", f.Name, why)
			return
		}
		args = append(args, "-"+f.Name+"="+f.Value.String())
	})
	if err != nil {
		return nil, err
	}
	return append(args, "-runs=1", "-json"), nil
}

// run runs the pairs, the old side first in odd pairs and the new side
// first in even ones, and returns what both sides reported in each.
func (c *comparison) run(ctx context.Context) ([]pairResult, error) {
	results := make([]pairResult, 0, c.pairs)
	for i := range c.pairs {
		var p pairResult
		sides := []struct {
			name, path string
			into       *[]sample
		}{{"old", c.old, &p.old}, {"new", c.new, &p.new}}
		if i%2 == 1 {
			sides[0], sides[1] = sides[1], sides[0]
		}
		for _, side := range sides {
			fmt.Fprintf(c.progress, "bench: pair %d of %d: the %s bench\n", i+1, c.pairs, side.name)
			samples, err := c.runSide(ctx, side.name, side.path)
			if err != nil {
				return nil, fmt.Errorf("pair %d: %w", i+1, err)
			}
			*side.into = samples
		}
		results = append(results, p)
	}
	return results, nil
}

// undefinedFlag is how Go's flag package reports a flag it does not know.
var undefinedFlag = regexp.MustCompile(`flag provided but not defined: (-\S+)`)

// runSide runs one bench binary once with the comparison's flags and reads
// its JSON lines.
func (c *comparison) runSide(ctx context.Context, name, path string) ([]sample, error) {
	cmd := exec.CommandContext(ctx, path, c.args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			return nil, context.Cause(ctx)
		}
		label := c.label(name)
		if m := undefinedFlag.FindStringSubmatch(stderr.String()); m != nil {
			return nil, fmt.Errorf("the %s bench (%s) does not know the flag %s: leave it out to compare with that binary", name, label, m[1])
		}
		return nil, fmt.Errorf("the %s bench (%s %s) failed: %w: %s", name, label, strings.Join(c.args, " "), err, lastLines(stderr.String(), 10))
	}
	samples, err := readSamples(&stdout)
	if err != nil {
		return nil, fmt.Errorf("the %s bench (%s): %w", name, c.label(name), err)
	}
	return samples, nil
}

func (c *comparison) label(name string) string {
	if name == "old" {
		return c.oldName
	}
	return c.new
}

// readSamples reads the JSON lines of `bench -json`.
func readSamples(r io.Reader) ([]sample, error) {
	var out []sample
	sc := bufio.NewScanner(r)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		var s sample
		if err := json.Unmarshal(line, &s); err != nil {
			return nil, fmt.Errorf("printed %q, which is not a measurement in JSON: %w", line, err)
		}
		if s.Workload == "" || s.Op == "" || s.N == 0 {
			return nil, fmt.Errorf("printed %q, which names no workload, operation and size", line)
		}
		out = append(out, s)
	}
	return out, sc.Err()
}

// lastLines returns the last n lines of s, trimmed.
func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// heading names the two sides, the pairs and the load the machine was
// under, above the table.
func (c *comparison) heading(pairs []pairResult) string {
	lo, hi := -1.0, 0.0
	for _, p := range pairs {
		for _, ss := range [][]sample{p.old, p.new} {
			for _, s := range ss {
				if lo < 0 || s.LoadAvg < lo {
					lo = s.LoadAvg
				}
				hi = max(hi, s.LoadAvg)
			}
		}
	}
	return fmt.Sprintf("new/old, median of %d pairs (range): new is %s, old is %s; flags %s; load average %.1f–%.1f",
		len(pairs), c.new, c.oldName, strings.Join(c.args, " "), max(lo, 0), hi)
}

// runComparison compares this binary with an old bench, binary or
// commit, and prints the result.
func runComparison(ctx context.Context, fs *flag.FlagSet, against, againstCommit string, pairs int, asJSON bool) error {
	if (against == "") == (againstCommit == "") {
		return errors.New("give one of -against and -against-commit")
	}
	if pairs < 1 {
		return errors.New("-pairs must be at least 1")
	}
	args, err := passedFlags(fs)
	if err != nil {
		return err
	}
	self, err := os.Executable()
	if err != nil {
		return err
	}
	c := &comparison{old: against, oldName: against, new: self, args: args, pairs: pairs, progress: os.Stderr}
	if againstCommit != "" {
		fmt.Fprintf(os.Stderr, "bench: building the bench at %s\n", againstCommit)
		bin, cleanup, err := buildAt(ctx, againstCommit)
		if err != nil {
			return err
		}
		defer cleanup()
		c.old, c.oldName = bin, "the bench built at "+againstCommit
	} else if _, err := os.Stat(against); err != nil {
		return fmt.Errorf("-against: %w", err)
	}
	results, err := c.run(ctx)
	if err != nil {
		return err
	}
	cs, err := compareResults(results)
	if err != nil {
		return err
	}
	return printComparisons(os.Stdout, cs, c.heading(results), asJSON)
}
