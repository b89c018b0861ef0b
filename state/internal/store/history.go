package store

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/groundwork-iac/groundwork/state"
)

// historyBackend returns the backend's history ability, or ErrNoHistory.
func (s *Store) historyBackend() (state.HistoryBackend, error) {
	hb, ok := s.b.(state.HistoryBackend)
	if !ok {
		return nil, state.ErrNoHistory
	}
	return hb, nil
}

// RecordHistory implements state.HistoryRecorder: the history is one JSON
// record a line, each appended whole under the stack's lock. A line a
// crash cut short is closed by the next record's leading newline, and
// skipped when read.
func (s *Store) RecordHistory(ctx context.Context, stack state.StackID, e state.HistoryEntry) error {
	if err := stack.Check(); err != nil {
		return err
	}
	if err := e.Check(); err != nil {
		return err
	}
	hb, err := s.historyBackend()
	if err != nil {
		return err
	}
	tok, err := s.token(stack)
	if err != nil {
		return fmt.Errorf("recording the history of stack %q: %w", stack, err)
	}
	old, err := hb.ReadHistory(ctx, stack)
	if err != nil {
		return fmt.Errorf("reading the history of stack %q: %w", stack, err)
	}
	entries := parseHistory(old)
	e.Version = 1
	if len(entries) > 0 {
		e.Version = entries[len(entries)-1].Version + 1
	}
	line, err := json.Marshal(e)
	if err != nil {
		return err
	}
	var rec []byte
	if len(old) > 0 && old[len(old)-1] != '\n' {
		rec = append(rec, '\n')
	}
	rec = append(append(rec, line...), '\n')
	if err := hb.AppendHistory(ctx, stack, tok, rec); err != nil {
		return fmt.Errorf("recording the history of stack %q: %w", stack, err)
	}
	return nil
}

// History implements state.HistoryReader.
func (s *Store) History(ctx context.Context, stack state.StackID) ([]state.HistoryEntry, error) {
	if err := stack.Check(); err != nil {
		return nil, err
	}
	hb, err := s.historyBackend()
	if err != nil {
		return nil, err
	}
	data, err := hb.ReadHistory(ctx, stack)
	if err != nil {
		return nil, fmt.Errorf("reading the history of stack %q: %w", stack, err)
	}
	entries := parseHistory(data)
	slices.Reverse(entries)
	return entries, nil
}

// parseHistory reads a history's records in the order they were written,
// skipping lines that are no complete record (one a crash cut short).
func parseHistory(data []byte) []state.HistoryEntry {
	var out []state.HistoryEntry
	for len(data) > 0 {
		line, rest, complete := bytes.Cut(data, []byte{'\n'})
		data = rest
		if !complete {
			break
		}
		var e state.HistoryEntry
		if json.Unmarshal(line, &e) != nil || e.Check() != nil || e.Version < 1 {
			continue
		}
		out = append(out, e)
	}
	return out
}
