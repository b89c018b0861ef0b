package format

import (
	"encoding/json"

	"github.com/groundwork-iac/groundwork/resource"
)

// RecordedProject returns the project a stack's bytes record, for stores
// that kept stacks by stack name alone before they kept them by project:
// the project in the URN of the snapshot's root stack resource; without
// one, the project every URN of the snapshot names; and for a snapshot
// that names none, the project every URN of the journal's entries names.
// ok is false when they name no project or more than one, or cannot be
// read. It reads only URNs, which are never encrypted, so it needs no
// secrets manager, and it checks no MAC: a store that later loads the
// stack checks those as ever.
func RecordedProject(snapshot, journal []byte) (project string, ok bool) {
	var snap struct {
		Resources []struct {
			URN    resource.URN `json:"urn"`
			Type   string       `json:"type"`
			Parent resource.URN `json:"parent"`
		} `json:"resources"`
		PendingOperations []struct {
			Resource *struct {
				URN resource.URN `json:"urn"`
			} `json:"resource"`
		} `json:"pendingOperations"`
	}
	var seen projects
	if len(snapshot) > 0 && json.Unmarshal(snapshot, &snap) == nil {
		for _, r := range snap.Resources {
			if r.Type == resource.RootStackType && r.Parent == "" && r.URN.IsValid() {
				return r.URN.Project(), true
			}
			seen.add(r.URN)
		}
		for _, op := range snap.PendingOperations {
			if op.Resource != nil {
				seen.add(op.Resource.URN)
			}
		}
	}
	if seen.none() && len(journal) > 0 {
		_, _ = ScanRecords(journal, func(r Record) error {
			payload := r.Payload
			switch r.Type {
			case RecordTaggedEntry:
				if len(payload) < MACSize {
					return nil
				}
				payload = payload[:len(payload)-MACSize]
			case RecordEntry:
			default:
				return nil
			}
			var e struct {
				Old, New *struct {
					URN resource.URN `json:"urn"`
				}
			}
			if json.Unmarshal(payload, &e) == nil {
				for _, s := range []*struct {
					URN resource.URN `json:"urn"`
				}{e.Old, e.New} {
					if s != nil {
						seen.add(s.URN)
					}
				}
			}
			return nil
		})
	}
	return seen.one()
}

// projects collects the projects URNs name.
type projects struct {
	first string
	count int
	mixed bool
}

func (p *projects) add(u resource.URN) {
	if !u.IsValid() {
		p.mixed = true
		return
	}
	switch proj := u.Project(); {
	case p.count == 0:
		p.first = proj
	case proj != p.first:
		p.mixed = true
	}
	p.count++
}

func (p *projects) none() bool { return p.count == 0 && !p.mixed }

func (p *projects) one() (string, bool) {
	if p.count == 0 || p.mixed {
		return "", false
	}
	return p.first, true
}
