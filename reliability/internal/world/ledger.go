// Package world is the fake "real world" of the reliability tests: a
// provider whose every physical change is appended to a ledger file (synced
// line by line, so it survives the process being killed), and the
// deterministic programs the crash test deploys against it.
package world

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/groundwork-iac/groundwork/providers"
	"github.com/groundwork-iac/groundwork/resource"
)

// The ledger's operations.
const (
	OpCreate = "create"
	// OpAdopt is a create that found its physical resource already there
	// (a create retried after a crash) and took it over.
	OpAdopt  = "adopt"
	OpUpdate = "update"
	OpDelete = "delete"
)

// Record is one line of the ledger: one physical change.
type Record struct {
	Op    string            `json:"op"`
	ID    resource.ID       `json:"id"`
	URN   resource.URN      `json:"urn"`
	Props map[string]string `json:"props,omitempty"`
}

// Physical is a resource that exists in the world.
type Physical struct {
	URN   resource.URN
	Props map[string]string
}

// Ledger is the world's record of itself. It is safe for concurrent use by
// one process; two processes must not append at once.
type Ledger struct {
	path string

	mu      sync.Mutex
	f       *os.File
	live    map[resource.ID]Physical
	records []Record
	sync    bool
}

// OpenLedger opens (creating if needed) the ledger at path and replays it.
// With sync set, each appended line is fsync'd before the call that made
// the change returns.
//
// A torn last line (a process killed amid its write: the kernel may stop a
// write that crosses a page at a fatal signal) is cut off first, so that
// the next record starts a line of its own instead of completing it.
func OpenLedger(path string, sync bool) (*Ledger, error) {
	recs, err := ReadLedger(path)
	if err != nil {
		return nil, err
	}
	if err := cutTornLine(path); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return nil, err
	}
	l := &Ledger{path: path, f: f, sync: sync, records: recs, live: Live(recs)}
	return l, nil
}

// cutTornLine truncates the ledger at path after its last complete line.
func cutTornLine(path string) error {
	data, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		return err
	}
	if n := bytes.LastIndexByte(data, '\n') + 1; n < len(data) {
		return os.Truncate(path, int64(n))
	}
	return nil
}

// ReadLedger reads every complete record of the ledger at path. A torn last
// line (the process was killed while writing it) is ignored: its change
// never reached the caller either.
func ReadLedger(path string) ([]Record, error) {
	data, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var recs []Record
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 64<<10), 16<<20)
	for sc.Scan() {
		var r Record
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			if !bytes.HasSuffix(data, []byte("\n")) && len(sc.Bytes()) > 0 {
				break // the torn last line
			}
			return nil, fmt.Errorf("ledger %s: %w", path, err)
		}
		recs = append(recs, r)
	}
	return recs, sc.Err()
}

// Live folds records into the set of resources that exist.
func Live(recs []Record) map[resource.ID]Physical {
	live := map[resource.ID]Physical{}
	for _, r := range recs {
		switch r.Op {
		case OpCreate, OpAdopt, OpUpdate:
			live[r.ID] = Physical{URN: r.URN, Props: r.Props}
		case OpDelete:
			delete(live, r.ID)
		}
	}
	return live
}

// Close closes the ledger file.
func (l *Ledger) Close() error { return l.f.Close() }

// Records returns every record so far.
func (l *Ledger) Records() []Record {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.records)
}

// Live returns the resources that exist now.
func (l *Ledger) Live() map[resource.ID]Physical {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := make(map[resource.ID]Physical, len(l.live))
	for id, p := range l.live {
		out[id] = p
	}
	return out
}

// appendLocked writes r durably, then applies it.
func (l *Ledger) appendLocked(r Record) error {
	line, err := json.Marshal(r)
	if err != nil {
		return err
	}
	if _, err := l.f.Write(append(line, '\n')); err != nil {
		return err
	}
	if l.sync {
		if err := l.f.Sync(); err != nil {
			return err
		}
	}
	l.records = append(l.records, r)
	switch r.Op {
	case OpDelete:
		delete(l.live, r.ID)
	default:
		l.live[r.ID] = Physical{URN: r.URN, Props: r.Props}
	}
	return nil
}

// ReplaceKeys are the inputs whose change replaces a resource: "gen" and
// "rk" always, plus the keys listed (comma-separated) in the input "rk".
func ReplaceKeys(props map[string]string) []string {
	keys := []string{"gen", "rk"}
	if rk := props["rk"]; rk != "" {
		keys = append(keys, strings.Split(rk, ",")...)
	}
	return keys
}

// PhysicalID is the name a resource has in the world: its URN's name and
// a digest of the values of its replace keys. A replacement therefore gets
// a new name, and a create retried with the same inputs finds the
// resource it made before (and adopts it).
func PhysicalID(urn resource.URN, props map[string]string) resource.ID {
	h := sha256.New()
	h.Write([]byte(urn))
	for _, k := range ReplaceKeys(props) {
		fmt.Fprintf(h, "\x00%s=%s", k, props[k])
	}
	return resource.ID(urn.Name() + "-" + hex.EncodeToString(h.Sum(nil))[:10])
}

// Strings turns a property map of strings into a Go map; other values are
// formatted with %v.
func Strings(m resource.PropertyMap) map[string]string {
	out := make(map[string]string, len(m))
	for k, v := range m {
		v = v.Unwrap()
		if v.IsString() {
			out[string(k)] = v.StringValue()
		} else {
			out[string(k)] = fmt.Sprint(v)
		}
	}
	return out
}

func propertyMap(props map[string]string, id resource.ID) resource.PropertyMap {
	out := make(resource.PropertyMap, len(props)+1)
	for k, v := range props {
		out[resource.PropertyKey(k)] = resource.NewString(v)
	}
	if id != "" {
		out["id"] = resource.NewString(string(id))
	}
	return out
}

// Provider serves the world's resources from a ledger. Each call sleeps a
// random time up to MaxSleep, half before the change and half after it,
// so that a kill can land anywhere around it.
type Provider struct {
	Ledger   *Ledger
	MaxSleep time.Duration

	rmu sync.Mutex
	rng *rand.Rand
}

// NewProvider returns a provider over l whose sleeps follow seed.
func NewProvider(l *Ledger, maxSleep time.Duration, seed uint64) *Provider {
	return &Provider{Ledger: l, MaxSleep: maxSleep, rng: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))}
}

func (p *Provider) nap() {
	if p.MaxSleep <= 0 {
		return
	}
	p.rmu.Lock()
	d := time.Duration(p.rng.Int64N(int64(p.MaxSleep)/2 + 1))
	p.rmu.Unlock()
	time.Sleep(d)
}

// Func returns the provider as a providers.Func.
func (p *Provider) Func() *providers.Func {
	return &providers.Func{
		DiffF:   p.diff,
		CreateF: p.create,
		ReadF:   p.read,
		UpdateF: p.update,
		DeleteF: p.delete,
	}
}

func (p *Provider) diff(_ context.Context, req providers.DiffRequest) (providers.DiffResponse, error) {
	d := req.OldInputs.Diff(req.NewInputs)
	if d == nil || !d.AnyChanges() {
		return providers.DiffResponse{Changes: resource.DiffNone}, nil
	}
	res := providers.DiffResponse{Changes: resource.DiffSome, ChangedKeys: d.ChangedKeys()}
	// The physical name follows the replace keys, so a change of one
	// under the old inputs or the new ones replaces the resource.
	replace := append(ReplaceKeys(Strings(req.OldInputs)), ReplaceKeys(Strings(req.NewInputs))...)
	for _, k := range res.ChangedKeys {
		if slices.Contains(replace, string(k)) {
			res.ReplaceKeys = append(res.ReplaceKeys, k)
		}
	}
	return res, nil
}

func (p *Provider) create(_ context.Context, req providers.CreateRequest) (providers.CreateResponse, error) {
	if req.Preview {
		return providers.CreateResponse{Outputs: req.Inputs}, nil
	}
	props := Strings(req.Inputs)
	id := PhysicalID(req.URN, props)
	p.nap()
	l := p.Ledger
	l.mu.Lock()
	op := OpCreate
	if _, ok := l.live[id]; ok {
		op = OpAdopt
	}
	err := l.appendLocked(Record{Op: op, ID: id, URN: req.URN, Props: props})
	l.mu.Unlock()
	if err != nil {
		return providers.CreateResponse{}, err
	}
	p.nap()
	return providers.CreateResponse{ID: id, Outputs: propertyMap(props, id)}, nil
}

func (p *Provider) update(_ context.Context, req providers.UpdateRequest) (providers.UpdateResponse, error) {
	props := Strings(req.NewInputs)
	p.nap()
	l := p.Ledger
	l.mu.Lock()
	var err error
	if _, ok := l.live[req.ID]; !ok {
		err = fmt.Errorf("update of %s: the world has no resource %s", req.URN, req.ID)
	} else {
		err = l.appendLocked(Record{Op: OpUpdate, ID: req.ID, URN: req.URN, Props: props})
	}
	l.mu.Unlock()
	if err != nil {
		return providers.UpdateResponse{}, err
	}
	p.nap()
	return providers.UpdateResponse{Outputs: propertyMap(props, req.ID)}, nil
}

func (p *Provider) delete(_ context.Context, req providers.DeleteRequest) (providers.DeleteResponse, error) {
	p.nap()
	l := p.Ledger
	l.mu.Lock()
	var err error
	if _, ok := l.live[req.ID]; !ok {
		err = fmt.Errorf("delete of %s: the world has no resource %s", req.URN, req.ID)
	} else {
		err = l.appendLocked(Record{Op: OpDelete, ID: req.ID, URN: req.URN})
	}
	l.mu.Unlock()
	if err != nil {
		return providers.DeleteResponse{}, err
	}
	p.nap()
	return providers.DeleteResponse{}, nil
}

func (p *Provider) read(_ context.Context, req providers.ReadRequest) (providers.ReadResponse, error) {
	l := p.Ledger
	l.mu.Lock()
	ph, ok := l.live[req.ID]
	l.mu.Unlock()
	if !ok {
		return providers.ReadResponse{}, nil
	}
	return providers.ReadResponse{ID: req.ID, Inputs: propertyMap(ph.Props, ""), Outputs: propertyMap(ph.Props, req.ID)}, nil
}
