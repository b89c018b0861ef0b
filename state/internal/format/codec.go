package format

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"runtime"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/groundwork-iac/groundwork/resource"
	"github.com/groundwork-iac/groundwork/state"
	"github.com/groundwork-iac/groundwork/state/secrets"
)

// This file writes snapshots and journal entries (FORMAT.md), appending
// to one buffer with no reflection; codec_read.go reads them with the
// decoder of jsonread.go. Both are written for these formats rather than
// built on a general JSON library: on a 10,000-resource snapshot (6 MB),
// github.com/go-json-experiment/json's jsontext only tokenizing the file
// (reading every token, making each string) costs about what decoding it
// into resource states costs here, and only writing its tokens about what
// encoding the states costs here, so a decoder or an encoder built on it
// would be slower by the work of building or walking the states.

// OpenManager gives the secrets manager for a recorded secrets state (nil
// for none); a nil manager means secret values cannot be handled.
type OpenManager func(ctx context.Context, recorded *state.SecretsState) (secrets.Manager, error)

// EncodeSnapshot writes s in the current format. Its secrets section
// describes mgr (or repeats s.Secrets when there is no manager), and its
// last member is the MAC over the rest (see sealSnapshot). A resource whose
// encoding enc remembers (nil for none) is copied from there: it was
// encoded by the same manager.
func EncodeSnapshot(ctx context.Context, s *state.Snapshot, mgr secrets.Manager, sizeHint int, enc *EncodedStates) ([]byte, error) {
	e := valueEncoder{mgr: mgr}
	b := make([]byte, 0, max(sizeHint+sizeHint/8, 4096))
	b = append(b, `{"version":`...)
	b = strconv.AppendInt(b, state.FormatVersion, 10)
	b = append(b, `,"manifest":{"time":`...)
	b = appendString(b, s.Manifest.Time.UTC().Format(time.RFC3339Nano))
	if s.Manifest.LibraryVersion != "" {
		b = append(b, `,"libraryVersion":`...)
		b = appendString(b, s.Manifest.LibraryVersion)
	}
	b = append(b, '}')
	sec := s.Secrets
	if mgr != nil {
		sec = &state.SecretsState{Type: mgr.Type(), State: mgr.State()}
	}
	if sec != nil {
		var err error
		if b, err = appendSecretsState(b, sec); err != nil {
			return nil, err
		}
	}
	b = append(b, `,"resources":[`...)
	var err error
	if b, err = appendStates(ctx, b, s.Resources, mgr, enc); err != nil {
		return nil, err
	}
	b = append(b, "\n]"...)
	if len(s.PendingOperations) > 0 {
		b = append(b, `,"pendingOperations":[`...)
		for i, op := range s.PendingOperations {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, "\n"+`{"kind":`...)
			b = appendString(b, string(op.Kind))
			b = append(b, `,"resource":`...)
			if b, err = e.appendState(ctx, b, op.Resource); err != nil {
				return nil, err
			}
			b = append(b, '}')
		}
		b = append(b, "\n]"...)
	}
	return SealSnapshot(b, mgr)
}

// parallelStates is the least number of resources worth encoding on more
// than one core.
const parallelStates = 2000

// appendStates writes the records of a snapshot's resources array, each on
// a line of its own after a comma (but the first). A large array is cut
// into one run of records per core, encoded concurrently into buffers of
// their own, then joined in order: the bytes are the same, and so is the
// error (the first record's that fails).
//
// The records enc remembers are only copied: room for them is made at
// once, and only the others count towards encoding on several cores.
func appendStates(ctx context.Context, b []byte, states []*resource.State, mgr secrets.Manager, enc *EncodedStates) ([]byte, error) {
	cached, fresh := enc.measure(states)
	if cached > 0 {
		// The records still to encode are guessed at the size of the
		// remembered ones.
		b = slices.Grow(b, cached+fresh*(cached/max(len(states)-fresh, 1))+2*len(states))
	}
	n := min(runtime.GOMAXPROCS(0), fresh/(parallelStates/2))
	if n < 2 {
		return appendStateRun(ctx, b, states, 0, mgr, enc)
	}
	per := (len(states) + n - 1) / n
	hint := (cap(b) - len(b)) / n
	bufs := make([][]byte, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for k := 1; k < n; k++ {
		run := states[min(k*per, len(states)):min((k+1)*per, len(states))]
		wg.Go(func() {
			bufs[k], errs[k] = appendStateRun(ctx, make([]byte, 0, hint), run, k*per, mgr, enc)
		})
	}
	b, errs[0] = appendStateRun(ctx, b, states[:per], 0, mgr, enc)
	wg.Wait()
	for k := range n {
		if errs[k] != nil {
			return nil, errs[k]
		}
		b = append(b, bufs[k]...)
	}
	return b, nil
}

// appendStateRun writes states, the run of a resources array that begins
// at index first, copying the encodings enc remembers.
func appendStateRun(ctx context.Context, b []byte, states []*resource.State, first int, mgr secrets.Manager, enc *EncodedStates) ([]byte, error) {
	e := valueEncoder{mgr: mgr}
	var err error
	for i, r := range states {
		if i+first > 0 {
			b = append(b, ',')
		}
		b = append(b, "\n"...)
		if c := enc.get(r); c != nil {
			b = append(b, c...)
			continue
		}
		if b, err = e.appendState(ctx, b, r); err != nil {
			return nil, err
		}
	}
	return b, nil
}

func appendSecretsState(b []byte, sec *state.SecretsState) ([]byte, error) {
	b = append(b, `,"secrets":{"type":`...)
	b = appendString(b, sec.Type)
	if len(sec.State) > 0 {
		var buf bytes.Buffer
		if err := json.Compact(&buf, sec.State); err != nil {
			return nil, fmt.Errorf("the secrets manager's state is not JSON: %w", err)
		}
		b = append(b, `,"state":`...)
		b = append(b, buf.Bytes()...)
	}
	return append(b, '}'), nil
}

// appendState writes one resource. Empty fields are left out.
func (e *valueEncoder) appendState(ctx context.Context, b []byte, s *resource.State) ([]byte, error) {
	if s == nil {
		return append(b, "null"...), nil
	}
	first := false // "urn" always comes first
	b = append(b, `{"urn":`...)
	b = appendString(b, string(s.URN))
	b = appendField(b, "type", s.Type, &first)
	b = appendBool(b, "custom", s.Custom)
	b = appendBool(b, "delete", s.Delete)
	b = appendField(b, "id", string(s.ID), &first)
	b = appendField(b, "parent", string(s.Parent), &first)
	b = appendField(b, "provider", s.Provider, &first)
	b = appendBool(b, "protect", s.Protect)
	b = appendBool(b, "external", s.External)
	b = appendBool(b, "pendingReplacement", s.PendingReplacement)
	b = appendBool(b, "retainOnDelete", s.RetainOnDelete)
	b = appendField(b, "deletedWith", string(s.DeletedWith), &first)
	b = appendField(b, "importID", string(s.ImportID), &first)
	if len(s.Dependencies) > 0 {
		b = append(b, `,"dependencies":`...)
		b = appendURNs(b, s.Dependencies)
	}
	if len(s.PropertyDependencies) > 0 {
		b = appendPropertyDependencies(b, s.PropertyDependencies)
	}
	var err error
	in, inEnd := len(b), len(b)
	if s.Inputs != nil {
		b = append(b, `,"inputs":`...)
		in = len(b)
		if b, err = e.appendMap(ctx, b, s.Inputs); err != nil {
			return b, fmt.Errorf("encoding the inputs of %s: %w", s.URN, err)
		}
		inEnd = len(b)
	}
	if s.Outputs != nil {
		b = append(b, `,"outputs":`...)
		if inEnd > in && sameMap(s.Inputs, s.Outputs) {
			// A provider that echoes its inputs: the same bytes again
			// (which a reader loads as one map; see sameAsInputs).
			b = append(b, b[in:inEnd]...)
		} else if b, err = e.appendMap(ctx, b, s.Outputs); err != nil {
			return b, fmt.Errorf("encoding the outputs of %s: %w", s.URN, err)
		}
	}
	b = appendStateLists(b, s)
	b = appendTime(b, "created", s.Created)
	b = appendTime(b, "modified", s.Modified)
	return append(b, '}'), nil
}

// sameMap reports whether a and b are one map.
func sameMap(a, b resource.PropertyMap) bool {
	return reflect.ValueOf(a).UnsafePointer() == reflect.ValueOf(b).UnsafePointer()
}

func appendPropertyDependencies(b []byte, deps map[resource.PropertyKey][]resource.URN) []byte {
	b = append(b, `,"propertyDependencies":{`...)
	for i, k := range sortedKeys(deps) {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendString(b, string(k))
		b = append(b, ':')
		b = appendURNs(b, deps[k])
	}
	return append(b, '}')
}

// appendStateLists writes the members of a resource between its outputs
// and its times: its init errors, the options the engine records (ignore
// and replace-on changes, additional secret outputs, aliases, hooks) and
// its custom timeouts, each only when set.
func appendStateLists(b []byte, s *resource.State) []byte {
	b = appendStrings(b, "initErrors", s.InitErrors)
	b = appendStrings(b, "ignoreChanges", s.IgnoreChanges)
	b = appendStrings(b, "replaceOnChanges", s.ReplaceOnChanges)
	if len(s.AdditionalSecretOutputs) > 0 {
		b = append(b, `,"additionalSecretOutputs":[`...)
		for i, k := range s.AdditionalSecretOutputs {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendString(b, string(k))
		}
		b = append(b, ']')
	}
	if len(s.Aliases) > 0 {
		b = append(b, `,"aliases":`...)
		b = appendURNs(b, s.Aliases)
	}
	b = appendHooks(b, s.Hooks)
	if t := s.CustomTimeouts; !t.IsZero() {
		b = append(b, `,"customTimeouts":{`...)
		first := true
		for _, d := range []struct {
			name string
			v    time.Duration
		}{{"create", t.Create}, {"update", t.Update}, {"delete", t.Delete}} {
			if d.v != 0 {
				b = appendField(b, d.name, d.v.String(), &first)
			}
		}
		b = append(b, '}')
	}
	return b
}

// appendHooks writes the hooks bound to a resource: an object of the
// kinds that have any, in their order, to lists of names.
func appendHooks(b []byte, h resource.Hooks) []byte {
	first := true
	for _, k := range resource.HookKinds {
		names := h[k]
		if len(names) == 0 {
			continue
		}
		if first {
			b = append(b, `,"hooks":{`...)
			first = false
		} else {
			b = append(b, ',')
		}
		b = appendString(b, string(k))
		b = append(b, ':', '[')
		for i, n := range names {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendString(b, n)
		}
		b = append(b, ']')
	}
	if !first {
		b = append(b, '}')
	}
	return b
}

func appendBool(b []byte, name string, v bool) []byte {
	if !v {
		return b
	}
	b = append(b, ',', '"')
	b = append(b, name...)
	return append(b, `":true`...)
}

func appendStrings(b []byte, name string, ss []string) []byte {
	if len(ss) == 0 {
		return b
	}
	b = append(b, ',', '"')
	b = append(b, name...)
	b = append(b, `":[`...)
	for i, s := range ss {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendString(b, s)
	}
	return append(b, ']')
}

func appendTime(b []byte, name string, t time.Time) []byte {
	if t.IsZero() {
		return b
	}
	b = append(b, ',', '"')
	b = append(b, name...)
	b = append(b, `":"`...)
	b = appendRFC3339Nano(b, t)
	return append(b, '"')
}

// appendRFC3339Nano appends t in UTC as time.RFC3339Nano formats it,
// without going through the general layout interpreter: a snapshot holds
// two times per resource.
func appendRFC3339Nano(b []byte, t time.Time) []byte {
	t = t.UTC()
	year, month, day := t.Date()
	if year < 0 || year > 9999 {
		return t.AppendFormat(b, time.RFC3339Nano)
	}
	hour, min, sec := t.Clock()
	b = append(b, byte('0'+year/1000), byte('0'+year/100%10), byte('0'+year/10%10), byte('0'+year%10), '-',
		byte('0'+month/10), byte('0'+month%10), '-', byte('0'+day/10), byte('0'+day%10), 'T',
		byte('0'+hour/10), byte('0'+hour%10), ':', byte('0'+min/10), byte('0'+min%10), ':',
		byte('0'+sec/10), byte('0'+sec%10))
	if ns := t.Nanosecond(); ns != 0 {
		var frac [10]byte
		frac[0] = '.'
		for i := 9; i > 0; i-- {
			frac[i] = byte('0' + ns%10)
			ns /= 10
		}
		n := 10
		for frac[n-1] == '0' {
			n--
		}
		b = append(b, frac[:n]...)
	}
	return append(b, 'Z')
}

// checkVersion reads the "version" member of a snapshot or journal header
// (named member) and checks it is at most newest. Files written by this
// package begin with it, so the common case costs no full scan.
func checkVersion[T string | []byte](data T, what, member string, newest int) (int, error) {
	prefix := `{"` + member + `":`
	v := -1
	if len(data) >= len(prefix) && string(data[:len(prefix)]) == prefix {
		rest := data[len(prefix):]
		n := 0
		for n < len(rest) && n < 9 && rest[n] >= '0' && rest[n] <= '9' {
			n++
		}
		if n > 0 && n < len(rest) && (rest[n] == ',' || rest[n] == '}') {
			v, _ = strconv.Atoi(string(rest[:n]))
		}
	}
	if v < 0 {
		var probe map[string]json.RawMessage
		if err := json.Unmarshal([]byte(data), &probe); err != nil {
			return 0, fmt.Errorf("the %s is not valid JSON: %w", what, err)
		}
		if err := json.Unmarshal(probe[member], &v); err != nil || probe[member] == nil {
			return 0, fmt.Errorf("the %s has no format version; it is not a groundwork %s", what, what)
		}
	}
	if v > newest {
		return v, &state.FormatVersionError{What: what, Found: v, Supported: newest}
	}
	if v < 1 {
		return v, fmt.Errorf("the %s has format version %d, which never existed", what, v)
	}
	return v, nil
}

// sortedKeys returns m's keys in order; maps of one key cost no sort.
func sortedKeys(m map[resource.PropertyKey][]resource.URN) []resource.PropertyKey {
	if len(m) == 0 {
		return nil
	}
	return slices.Sorted(maps.Keys(m))
}
