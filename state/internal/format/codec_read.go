package format

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/groundwork-iac/groundwork/resource"
	"github.com/groundwork-iac/groundwork/state"
)

// This file reads snapshots and journal entries (FORMAT.md). Unknown
// members are skipped; null reads as the zero value.

// decodeSnapshot reads a snapshot file. open is asked for the manager of
// the recorded secrets state before any property value is read, so a wrong
// passphrase fails first; then, if auth is set, the file's MAC is checked
// (SnapshotAuth.check), still before any property value is read.
func decodeSnapshot(ctx context.Context, data []byte, open OpenManager, auth *SnapshotAuth) (*state.Snapshot, error) {
	s, _, err := DecodeSnapshot(ctx, string(data), open, auth)
	return s, err
}

// DecodeSnapshot is decodeSnapshot of the file's text; unknowns reports
// whether a property value it read is or holds an unknown (which the
// integrity check rejects; when it is false the check need not search for
// them).
//
// The snapshot's strings are substrings of text wherever the file holds
// them unescaped: the snapshot keeps text alive, and no string is copied.
func DecodeSnapshot(ctx context.Context, text string, open OpenManager, auth *SnapshotAuth) (_ *state.Snapshot, unknowns bool, err error) {
	version, err := checkVersion(text, "snapshot", "version", state.FormatVersion)
	if err != nil {
		return nil, false, err
	}
	s := &state.Snapshot{Manifest: state.Manifest{Version: version}}
	d := newSharingDecoder(text, nil)
	// A store without secrets decides on the file's checksum whatever its
	// secrets section says (secretsBlind): it checks it now, so that
	// values met before that section are read after the check too.
	checked := auth == nil
	if !checked && auth.secretsBlind(text) {
		if err := auth.check(version, text, nil, nil); err != nil {
			return nil, false, err
		}
		checked = true
	}
	opened := false
	openSecrets := func() error {
		if opened {
			return nil
		}
		opened = true
		if s.Secrets != nil {
			mgr, err := open(ctx, s.Secrets)
			if err != nil {
				return err
			}
			d.mgr = mgr
		}
		if checked {
			return nil
		}
		return auth.check(version, text, s.Secrets, d.mgr)
	}
	// Resources are read once the secrets section is known, and the MAC
	// checked. A file that lists them first is read in two steps — unless
	// it holds no secret at all, as is the case for every file written
	// without a secrets manager (ours list the secrets section first when
	// there is one), and its checksum is checked already: then a first
	// attempt without a manager succeeds, and is what the two steps would
	// give. Any error sends it back to the two steps, which report it.
	var resources, pending string
	err = d.eachMember(func(key string) (err error) {
		switch key {
		case "manifest":
			err = d.eachMember(func(key string) (err error) {
				switch key {
				case "time":
					s.Manifest.Time, err = d.time()
				case "libraryVersion":
					s.Manifest.LibraryVersion, err = d.str()
				default:
					err = d.skip(0)
				}
				return err
			})
		case "secrets":
			s.Secrets, err = d.secretsState()
		case "resources":
			if opened || s.Secrets != nil {
				if err = openSecrets(); err == nil {
					s.Resources, err = d.states(ctx)
				}
			} else if !checked || !d.attempt(func() (err error) { s.Resources, err = d.states(ctx); return err }) {
				resources, err = d.raw(0)
			}
		case "pendingOperations":
			if opened || s.Secrets != nil {
				if err = openSecrets(); err == nil {
					s.PendingOperations, err = d.operations(ctx)
				}
			} else if !checked || !d.attempt(func() (err error) { s.PendingOperations, err = d.operations(ctx); return err }) {
				pending, err = d.raw(0)
			}
		default:
			err = d.skip(0)
		}
		return err
	})
	if err == nil {
		err = d.end()
	}
	if err == nil {
		err = openSecrets()
	}
	if err == nil && resources != "" {
		s.Resources, err = d.sub(resources).states(ctx)
	}
	if err == nil && pending != "" {
		s.PendingOperations, err = d.sub(pending).operations(ctx)
	}
	if err != nil {
		var se *syntaxError
		if errors.As(err, &se) {
			return nil, false, fmt.Errorf("the snapshot is malformed: %w", err)
		}
		return nil, false, err
	}
	return s, d.scope.unknowns, nil
}

// attempt runs read, which reads one value; if it fails, attempt puts d
// back where it was and reports false. A failed attempt leaves the scope's
// flags as they are, which can only make them more cautious.
func (d *decoder) attempt(read func() error) bool {
	d.space()
	start := d.pos
	if err := read(); err != nil {
		d.pos = start
		return false
	}
	return true
}

func (d *decoder) secretsState() (*state.SecretsState, error) {
	if d.null() {
		return nil, nil
	}
	sec := &state.SecretsState{}
	err := d.eachMember(func(key string) (err error) {
		switch key {
		case "type":
			sec.Type, err = d.str()
		case "state":
			var raw string
			if raw, err = d.raw(0); err == nil && !json.Valid([]byte(raw)) {
				err = errors.New("the snapshot's secrets state is not valid JSON")
			}
			sec.State = []byte(raw)
		default:
			err = d.skip(0)
		}
		return err
	})
	if err == nil && sec.Type == "" {
		err = errors.New("the snapshot's secrets section names no manager type")
	}
	return sec, err
}

// states reads an array of resource records.
func (d *decoder) states(ctx context.Context) ([]*resource.State, error) {
	if d.share && len(d.data)-d.pos >= 2*parallelChunk {
		if out, ok := d.statesParallel(ctx); ok {
			return out, nil
		}
	}
	return d.statesSerial(ctx)
}

func (d *decoder) statesSerial(ctx context.Context) ([]*resource.State, error) {
	var out []*resource.State
	err := d.eachElement(func() error {
		if err := ctx.Err(); err != nil {
			return err
		}
		r, err := d.state(ctx)
		if err != nil {
			return fmt.Errorf("resource %d: %w", len(out), err)
		}
		out = append(out, r)
		return nil
	})
	return out, err
}

func (d *decoder) operations(ctx context.Context) ([]resource.Operation, error) {
	var out []resource.Operation
	err := d.eachElement(func() error {
		var op resource.Operation
		err := d.eachMember(func(key string) (err error) {
			switch key {
			case "kind":
				var k string
				k, err = d.name()
				op.Kind = resource.OperationKind(k)
			case "resource":
				op.Resource, err = d.state(ctx)
			default:
				err = d.skip(0)
			}
			return err
		})
		if err == nil && (op.Kind == "" || op.Resource == nil) {
			err = errors.New("a pending operation needs a kind and a resource")
		}
		if err != nil {
			return fmt.Errorf("pending operation %d: %w", len(out), err)
		}
		out = append(out, op)
		return nil
	})
	return out, err
}

// state reads one resource record.
func (d *decoder) state(ctx context.Context) (*resource.State, error) {
	if d.peek() != '{' {
		return nil, d.fail("want a resource record")
	}
	s := &resource.State{}
	err := d.eachMember(func(key string) error {
		return d.stateField(ctx, s, key)
	})
	if err != nil {
		if s.URN != "" {
			return nil, fmt.Errorf("%s: %w", s.URN, err)
		}
		return nil, err
	}
	if s.URN == "" {
		return nil, errors.New("a resource record has no URN")
	}
	return s, nil
}

// sameAsInputs reports whether the outputs that follow are written exactly
// as s's inputs were, and if so moves past them: they decode to the inputs'
// very map, which the record then shares (property maps are immutable). A
// provider that echoes its inputs is common, and each map decoded is a
// good part of a Load's time and of the garbage collector's work after it.
// Secrets never match this way: each ciphertext has a nonce of its own.
func (d *decoder) sameAsInputs(s *resource.State) bool {
	if d.inputsOf != s || s.Inputs == nil {
		return false
	}
	d.space()
	rest := d.data[d.pos:]
	n := len(d.inputs)
	if len(rest) <= n || rest[:n] != d.inputs {
		return false
	}
	switch rest[n] {
	case ',', '}', ' ', '\t', '\n', '\r':
		d.pos += n
		return true
	}
	return false
}

func (d *decoder) stateField(ctx context.Context, s *resource.State, key string) (err error) {
	var str string
	switch key {
	case "urn":
		str, err = d.name()
		s.URN = resource.URN(str)
	case "type":
		s.Type, err = d.name()
	case "custom":
		s.Custom, err = d.flag()
	case "delete":
		s.Delete, err = d.flag()
	case "id":
		str, err = d.str()
		s.ID = resource.ID(str)
	case "parent":
		str, err = d.name()
		s.Parent = resource.URN(str)
	case "provider":
		s.Provider, err = d.name()
	case "protect":
		s.Protect, err = d.flag()
	case "external":
		s.External, err = d.flag()
	case "pendingReplacement":
		s.PendingReplacement, err = d.flag()
	case "retainOnDelete":
		s.RetainOnDelete, err = d.flag()
	case "deletedWith":
		str, err = d.name()
		s.DeletedWith = resource.URN(str)
	case "importID":
		str, err = d.str()
		s.ImportID = resource.ID(str)
	case "dependencies":
		s.Dependencies, err = d.urns()
	case "aliases":
		s.Aliases, err = d.urns()
	case "propertyDependencies":
		s.PropertyDependencies = map[resource.PropertyKey][]resource.URN{}
		err = d.eachMember(func(k string) error {
			name := resource.PropertyKey(d.intern(k))
			us, err := d.urns()
			s.PropertyDependencies[name] = us
			return err
		})
	case "inputs":
		d.space()
		start := d.pos
		s.Inputs, err = d.propertyMap(ctx)
		d.inputs, d.inputsOf = d.data[start:d.pos], s
	case "outputs":
		if d.sameAsInputs(s) {
			s.Outputs = s.Inputs
			break
		}
		s.Outputs, err = d.propertyMap(ctx)
	case "initErrors":
		s.InitErrors, err = d.strs(false)
	case "ignoreChanges":
		s.IgnoreChanges, err = d.strs(true)
	case "replaceOnChanges":
		s.ReplaceOnChanges, err = d.strs(true)
	case "additionalSecretOutputs":
		var ks []string
		ks, err = d.strs(true)
		for _, k := range ks {
			s.AdditionalSecretOutputs = append(s.AdditionalSecretOutputs, resource.PropertyKey(k))
		}
	case "hooks":
		s.Hooks = resource.Hooks{}
		err = d.eachMember(func(k string) error {
			names, err := d.strs(true)
			if len(names) > 0 {
				s.Hooks[resource.HookKind(d.intern(k))] = names
			}
			return err
		})
	case "customTimeouts":
		err = d.eachMember(func(k string) error {
			var target *time.Duration
			switch k {
			case "create":
				target = &s.CustomTimeouts.Create
			case "update":
				target = &s.CustomTimeouts.Update
			case "delete":
				target = &s.CustomTimeouts.Delete
			default:
				return d.fail("unknown custom timeout %q", k)
			}
			text, err := d.str()
			if err == nil {
				*target, err = time.ParseDuration(text)
			}
			return err
		})
	case "created":
		s.Created, err = d.time()
	case "modified":
		s.Modified, err = d.time()
	default:
		err = d.skip(0)
	}
	return err
}

func (d *decoder) urns() ([]resource.URN, error) {
	var out []resource.URN
	err := d.eachElement(func() error {
		s, err := d.name()
		out = append(out, resource.URN(s))
		return err
	})
	return out, err
}

// RecordedSecrets reads the secrets section of a snapshot file: nil for a
// file without one, or one too malformed to tell (decoding it in full
// reports that).
func RecordedSecrets(data []byte) *state.SecretsState {
	var rec *state.SecretsState
	d := newDecoder(string(data), nil)
	_ = d.eachMember(func(key string) (err error) {
		if key == "secrets" {
			rec, err = d.secretsState()
			return err
		}
		return d.skip(0)
	})
	return rec
}
