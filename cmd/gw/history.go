package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/groundwork-iac/groundwork/state"
)

// This file is gw stack history, and the --message flag that describes an
// operation in it.

// historyOptions are the flags of gw stack history.
type historyOptions struct {
	pageSize  int
	page      int
	fullDates bool
}

// stackHistoryCommand is "gw stack history".
func stackHistoryCommand(inv *invocation) *cobra.Command {
	return inv.leaf(&cobra.Command{Use: "history", Aliases: []string{"hist"},
		Short: "list the operations run on the stack, newest first",
		Long: `History lists the updates, refreshes, destroys and imports run on the stack,
newest first: each one's version, kind, result, message (gw up -m), resource
changes (+ created, - deleted, ~ updated, and unchanged) and when it ran.
Previews change nothing and are not listed. --page-size and --page go
through a long history; --json writes it as "pulumi stack history --json"
does.`,
	}, historyFlags, runStackHistory, noProgram)
}

func historyFlags(fs *pflag.FlagSet, o *options) {
	stateFlags(fs, o)
	fs.BoolVarP(&o.json, "json", "j", false, "write the history as JSON")
	fs.IntVar(&o.history.pageSize, "page-size", 10, "list at most `N` operations (0: all)")
	fs.IntVar(&o.history.page, "page", 1, "with --page-size, which page to list: `N` from 1, newest first")
	fs.BoolVar(&o.history.fullDates, "full-dates", false, "show full dates, not how long ago")
}

// messageFlag is the flag of the operations recorded in the history.
func messageFlag(fs *pflag.FlagSet, o *options) {
	fs.StringVarP(&o.message, "message", "m", "", "describe the operation in the stack's history (gw stack history) with `TEXT`")
}

func runStackHistory(ctx context.Context, inv *invocation, args []string) error {
	if len(args) > 0 {
		return usagef("gw stack history takes no arguments")
	}
	o := &inv.opts
	if o.history.pageSize < 0 || o.history.page < 1 {
		return usagef("--page-size must be 0 or more and --page 1 or more")
	}
	_, store, err := openStacks(ctx, o)
	if err != nil {
		return err
	}
	defer store.Close()
	id := projectStack(o, o.stack)
	if exists, err := stackExists(ctx, store, id); err != nil || !exists {
		if err == nil {
			err = noStack(o.stack)
		}
		return err
	}
	hr, ok := store.(state.HistoryReader)
	if !ok {
		return fmt.Errorf("the state store at %s keeps no history of operations", o.stateURL)
	}
	entries, err := hr.History(ctx, id)
	if err != nil {
		return err
	}
	entries = historyPage(entries, o.history.pageSize, o.history.page)
	if o.json {
		return writeHistoryJSON(inv.stdout, entries)
	}
	return writeHistory(inv.stdout, entries, o.history, time.Now())
}

// historyPage returns page (from 1) of entries, size to a page (0: all).
func historyPage(entries []state.HistoryEntry, size, page int) []state.HistoryEntry {
	if size == 0 {
		return entries
	}
	start := min(len(entries), size*(page-1))
	return entries[start:min(len(entries), start+size)]
}

// writeHistory writes entries as the Pulumi CLI's stack history does.
func writeHistory(w io.Writer, entries []state.HistoryEntry, ho historyOptions, now time.Time) error {
	if len(entries) == 0 {
		if ho.page > 1 {
			_, err := fmt.Fprintf(w, "No stack updates found on page '%d'\n", ho.page)
			return err
		}
		_, err := fmt.Fprintln(w, "Stack has never been updated")
		return err
	}
	for _, e := range entries {
		when := ago(now, e.StartTime)
		if ho.fullDates {
			when = e.StartTime.Local().Format("2006-01-02 15:04:05 MST")
		}
		c := e.ResourceChanges
		if _, err := fmt.Fprintf(w, "Version: %d\nUpdateKind: %s\nStatus: %s\nMessage: %s\n+%d-%d~%d %d Updated %s took %s\n\n",
			e.Version, e.Kind, e.Result, e.Message, c["create"], c["delete"], c["update"], c["same"],
			when, e.EndTime.Sub(e.StartTime).Round(time.Second)); err != nil {
			return err
		}
	}
	return nil
}

// historyJSON is one operation as "pulumi stack history --json" writes
// it. gw records no environment and no config with an operation: they
// are written empty.
type historyJSON struct {
	Version         int               `json:"version"`
	Kind            string            `json:"kind"`
	StartTime       string            `json:"startTime"`
	Message         string            `json:"message"`
	Environment     map[string]string `json:"environment"`
	Config          map[string]any    `json:"config"`
	Result          string            `json:"result"`
	EndTime         string            `json:"endTime"`
	ResourceChanges map[string]int    `json:"resourceChanges"`
}

func writeHistoryJSON(w io.Writer, entries []state.HistoryEntry) error {
	out := make([]historyJSON, len(entries))
	for i, e := range entries {
		changes := e.ResourceChanges
		if changes == nil {
			changes = map[string]int{}
		}
		out[i] = historyJSON{
			Version: e.Version, Kind: e.Kind, Message: e.Message, Result: string(e.Result),
			StartTime: e.StartTime.UTC().Format(time.RFC3339), EndTime: e.EndTime.UTC().Format(time.RFC3339),
			Environment: map[string]string{}, Config: map[string]any{}, ResourceChanges: changes,
		}
	}
	b, err := json.MarshalIndent(out, "", "    ")
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(w, "%s\n", b)
	return err
}

// carryHistory records the history of stack from as the history of stack
// to, oldest first, so that the versions stay as they were: what stack
// rename does before it removes the old stack. Stores that keep no
// history have nothing to carry.
func carryHistory(ctx context.Context, store state.Store, from, to state.StackID) error {
	hr, ok := store.(state.HistoryReader)
	rec, ok2 := store.(state.HistoryRecorder)
	if !ok || !ok2 {
		return nil
	}
	entries, err := hr.History(ctx, from)
	if err != nil || len(entries) == 0 {
		return err
	}
	lock, err := store.Lock(ctx, to, "rename")
	if err != nil {
		return err
	}
	defer lock.Unlock(ctx)
	for i := len(entries) - 1; i >= 0; i-- {
		if err := rec.RecordHistory(ctx, to, entries[i]); err != nil {
			return fmt.Errorf("carrying the history of stack %s to %s: %w", from.Stack, to.Stack, err)
		}
	}
	return lock.Unlock(ctx)
}
