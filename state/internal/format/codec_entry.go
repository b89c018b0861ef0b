package format

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/groundwork-iac/groundwork/resource"
	"github.com/groundwork-iac/groundwork/state"
	"github.com/groundwork-iac/groundwork/state/secrets"
)

// A journal entry's payload (FORMAT.md, "Journal"), both ways: what
// EncodeEntry writes of an Entry, and what an EntryDecoder reads back.
// The resources in it are encoded as a snapshot encodes them.

// EncodeEntry writes the payload of one journal entry (its Seq lives in the
// record frame). It records only what the fold reads: for a begin, the
// resource of the pending operation; for an end or a write, Old's identity
// (URN, ID, Delete), the identities of the records in With, and New in
// full. Replaying the record therefore gives an Entry that folds exactly
// as the original did.
//
// The encoding is appended to b. unknowns reports whether a recorded
// resource holds an unknown value. When the entry records New in full as
// it will stand in a snapshot (a success or a write), New is encoded
// exactly as a snapshot encodes it, keys sorted, as the last member:
// newAt is where it begins, and it ends just before the payload's closing
// brace. Otherwise newAt is -1.
func EncodeEntry(ctx context.Context, b []byte, en *state.Entry, mgr secrets.Manager) (_ []byte, newAt int, unknowns bool, err error) {
	e := valueEncoder{mgr: mgr, unsorted: true}
	newAt = -1
	b = append(b, `{"kind":`...)
	b = appendString(b, en.Kind.String())
	if en.Begin != 0 {
		b = append(b, `,"begin":`...)
		b = strconv.AppendUint(b, en.Begin, 10)
	}
	if en.Op != "" {
		b = append(b, `,"op":`...)
		b = appendString(b, string(en.Op))
	}
	old, new := en.Old, en.New
	switch en.Kind {
	case state.EntryBegin:
		if new != nil {
			old = nil
		}
	case state.EntryFailure:
		old, new = nil, nil
	}
	if old != nil {
		b = append(b, `,"old":`...)
		if en.Kind == state.EntryBegin {
			b, err = e.appendState(ctx, b, old)
		} else {
			b = appendIdentity(b, old)
		}
		if err != nil {
			return nil, -1, false, err
		}
	}
	if len(en.With) > 0 {
		b = appendWith(b, en.With)
	}
	if en.Condemn && (en.Kind == state.EntrySuccess || en.Kind == state.EntryWrite) {
		b = append(b, `,"condemn":true`...)
	}
	if new != nil {
		b = append(b, `,"new":`...)
		switch en.Kind {
		case state.EntryClearPending:
			b = appendIdentity(b, new)
		case state.EntrySuccess, state.EntryWrite:
			// Sorted, as in a snapshot, so that the commit can reuse it.
			e.unsorted = false
			newAt = len(b)
			fallthrough
		default:
			if b, err = e.appendState(ctx, b, new); err != nil {
				return nil, -1, false, err
			}
		}
	}
	return append(b, '}'), newAt, e.unknowns, nil
}

// appendWith writes an entry's With: the identity of each record.
func appendWith(b []byte, with []*resource.State) []byte {
	b = append(b, `,"with":[`...)
	for i, s := range with {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendIdentity(b, s)
	}
	return append(b, ']')
}

// appendIdentity writes just what identifies a recorded resource.
func appendIdentity(b []byte, s *resource.State) []byte {
	b = append(b, `{"urn":`...)
	b = appendString(b, string(s.URN))
	if s.ID != "" {
		b = append(b, `,"id":`...)
		b = appendString(b, string(s.ID))
	}
	return append(appendBool(b, "delete", s.Delete), '}')
}

// EntryDecoder reads journal records; names are interned across all the
// entries of a replay.
type EntryDecoder struct {
	mgr   secrets.Manager
	scope *decodeScope
}

// NewEntryDecoder returns a decoder of the entries of one journal, opening
// secrets with mgr.
func NewEntryDecoder(mgr secrets.Manager) *EntryDecoder {
	return &EntryDecoder{mgr: mgr, scope: &decodeScope{names: make(map[string]string)}}
}

// Decode reads the payload of one journal record. With lazy set, the
// resource of a begin entry is read only as far as its identity (URN, ID,
// Delete, type): a replay needs the rest only for steps that never ended,
// and reads those again at the end (see replay).
func (ed *EntryDecoder) Decode(ctx context.Context, payload string, seq uint64, lazy bool) (state.Entry, error) {
	d := &decoder{data: payload, mgr: ed.mgr, scope: ed.scope}
	e := state.Entry{Seq: seq}
	var old, new string
	err := d.eachMember(func(key string) (err error) {
		switch key {
		case "kind":
			var k string
			if k, err = d.str(); err == nil {
				var ok bool
				if e.Kind, ok = state.ParseEntryKind(k); !ok {
					err = fmt.Errorf("unknown entry kind %q", k)
				}
			}
		case "begin":
			e.Begin, err = d.uint()
		case "op":
			var op string
			op, err = d.name()
			e.Op = resource.OperationKind(op)
		case "old":
			old, err = d.raw(0)
		case "new":
			new, err = d.raw(0)
		case "with":
			e.With, err = d.identities()
		case "condemn":
			e.Condemn, err = d.flag()
		default:
			err = d.skip(0)
		}
		return err
	})
	if err == nil {
		err = d.end()
	}
	read := func(raw string) (*resource.State, error) {
		if raw == "" {
			return nil, nil
		}
		sub := d.sub(raw)
		if sub.null() {
			return nil, sub.end()
		}
		var s *resource.State
		var err error
		if lazy && e.Kind == state.EntryBegin {
			s, err = sub.identity()
		} else {
			s, err = sub.state(ctx)
		}
		if err == nil {
			err = sub.end()
		}
		return s, err
	}
	if err == nil {
		e.Old, err = read(old)
	}
	if err == nil {
		e.New, err = read(new)
	}
	return e, err
}

// identities reads a list of resource identities (an entry's With).
func (d *decoder) identities() ([]*resource.State, error) {
	var out []*resource.State
	err := d.eachElement(func() error {
		s, err := d.identity()
		out = append(out, s)
		return err
	})
	return out, err
}

// identity reads a resource record's URN, ID, Delete flag and type, and
// skips the rest.
func (d *decoder) identity() (*resource.State, error) {
	s := &resource.State{}
	err := d.eachMember(func(key string) (err error) {
		var str string
		switch key {
		case "urn":
			str, err = d.name()
			s.URN = resource.URN(str)
		case "id":
			str, err = d.str()
			s.ID = resource.ID(str)
		case "delete":
			s.Delete, err = d.flag()
		case "type":
			s.Type, err = d.name()
		default:
			err = d.skip(0)
		}
		return err
	})
	if err == nil && s.URN == "" {
		err = errors.New("a resource record has no URN")
	}
	return s, err
}
