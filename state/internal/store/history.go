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
	last, open, err := lastRecord(ctx, hb, stack)
	if err != nil {
		return fmt.Errorf("reading the history of stack %q: %w", stack, err)
	}
	e.Version = last + 1
	line, err := json.Marshal(e)
	if err != nil {
		return err
	}
	var rec []byte
	if open {
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

// historyTail is how much of a history's end lastRecord reads first: a
// few records' worth.
const historyTail = 4 << 10

// lastRecord returns the version of the last record in the stack's
// history (0 if it has none) and whether the history ends in a line a
// crash cut short (open). Over a state.HistoryTailReader it reads the
// history's end, and further back, twice as far each time, only while
// that end holds no complete record.
func lastRecord(ctx context.Context, hb state.HistoryBackend, stack state.StackID) (version int, open bool, err error) {
	tr, ok := hb.(state.HistoryTailReader)
	if !ok {
		data, err := hb.ReadHistory(ctx, stack)
		if err != nil {
			return 0, false, err
		}
		version, _ = lastVersion(data, true)
		return version, endsOpen(data), nil
	}
	for n := int64(historyTail); ; n *= 2 {
		tail, whole, err := tr.ReadHistoryTail(ctx, stack, n)
		if err != nil {
			return 0, false, err
		}
		if version, found := lastVersion(tail, whole); found || whole {
			return version, endsOpen(tail), nil
		}
	}
}

// lastVersion returns the version of the last complete record in data, a
// history's end (whole: all of it); found is false if there is none.
// Unless data is the whole history, its first line may be the end of a
// longer one and is not read.
func lastVersion(data []byte, whole bool) (version int, found bool) {
	if i := bytes.LastIndexByte(data, '\n'); i >= 0 {
		data = data[:i] // what follows the last newline is cut short
	} else {
		return 0, false
	}
	for {
		i := bytes.LastIndexByte(data, '\n')
		if i < 0 && !whole {
			return 0, false
		}
		if e, ok := parseRecord(data[i+1:]); ok {
			return e.Version, true
		}
		if i < 0 {
			return 0, false
		}
		data = data[:i]
	}
}

// endsOpen reports whether a history's end is a line a crash cut short.
func endsOpen(data []byte) bool { return len(data) > 0 && data[len(data)-1] != '\n' }

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
		if e, ok := parseRecord(line); ok {
			out = append(out, e)
		}
	}
	return out
}

// parseRecord reads one line of a history: ok is false if it is no
// record.
func parseRecord(line []byte) (e state.HistoryEntry, ok bool) {
	if json.Unmarshal(line, &e) != nil || e.Check() != nil || e.Version < 1 {
		return state.HistoryEntry{}, false
	}
	return e, true
}
