package plan

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/groundwork-iac/groundwork/resource"
	"github.com/groundwork-iac/groundwork/state"
	"github.com/groundwork-iac/groundwork/state/secrets"
	"github.com/groundwork-iac/groundwork/state/values"
)

// FormatVersion is the version of the JSON Marshal writes. Unmarshal reads
// every version up to it and refuses a newer one.
const FormatVersion = 1

// The JSON of a plan:
//
//	{"version":1,"manifest":{"time":"…"},"project":"site","stack":"dev",
//	 "state":"sha256:…",
//	 "secrets":{"type":"passphrase","state":{…}},
//	 "resources":[{"urn":"…","steps":["update"],"goal":{"custom":true,
//	   "provider":"…","inputs":{"updates":{"size":2}}}}]}
//
// Resources are sorted by URN; property values are encoded as the state
// encodes them (state/FORMAT.md), secrets sealed by the manager named in
// "secrets".
type planJSON struct {
	Version   int            `json:"version"`
	Manifest  manifestJSON   `json:"manifest"`
	Project   string         `json:"project"`
	Stack     string         `json:"stack"`
	State     string         `json:"state,omitempty"`
	Secrets   *secretsJSON   `json:"secrets,omitempty"`
	Resources []resourceJSON `json:"resources"`
}

type secretsJSON struct {
	Type  string          `json:"type"`
	State json.RawMessage `json:"state,omitempty"`
}

type manifestJSON struct {
	Time time.Time `json:"time"`
}

type resourceJSON struct {
	URN   resource.URN `json:"urn"`
	Steps []Op         `json:"steps"`
	Goal  *goalJSON    `json:"goal,omitempty"`
}

type goalJSON struct {
	Custom                  bool                                    `json:"custom,omitempty"`
	Parent                  resource.URN                            `json:"parent,omitempty"`
	Provider                string                                  `json:"provider,omitempty"`
	Protect                 bool                                    `json:"protect,omitempty"`
	DeleteBeforeReplace     bool                                    `json:"deleteBeforeReplace,omitempty"`
	RetainOnDelete          bool                                    `json:"retainOnDelete,omitempty"`
	DeletedWith             resource.URN                            `json:"deletedWith,omitempty"`
	ImportID                resource.ID                             `json:"importID,omitempty"`
	IgnoreChanges           []string                                `json:"ignoreChanges,omitempty"`
	ReplaceOnChanges        []string                                `json:"replaceOnChanges,omitempty"`
	AdditionalSecretOutputs []resource.PropertyKey                  `json:"additionalSecretOutputs,omitempty"`
	Dependencies            []resource.URN                          `json:"dependencies,omitempty"`
	PropertyDependencies    map[resource.PropertyKey][]resource.URN `json:"propertyDependencies,omitempty"`
	Aliases                 []resource.Alias                        `json:"aliases,omitempty"`
	CustomTimeouts          *timeoutsJSON                           `json:"customTimeouts,omitempty"`
	Inputs                  *diffJSON                               `json:"inputs,omitempty"`
	Outputs                 *diffJSON                               `json:"outputs,omitempty"`
}

type timeoutsJSON struct {
	Create string `json:"create,omitempty"`
	Update string `json:"update,omitempty"`
	Delete string `json:"delete,omitempty"`
}

type diffJSON struct {
	Adds    json.RawMessage        `json:"adds,omitempty"`
	Updates json.RawMessage        `json:"updates,omitempty"`
	Deletes []resource.PropertyKey `json:"deletes,omitempty"`
}

// Marshal writes p as JSON. Secret values are sealed by mgr, whose public
// description the JSON records so that Unmarshal can open them again; a
// plan holding a secret needs a manager (state.ErrNoSecretsManager).
func Marshal(ctx context.Context, p *Plan, mgr secrets.Manager) ([]byte, error) {
	out := planJSON{Version: FormatVersion, Manifest: manifestJSON{Time: time.Now().UTC()},
		Project: p.Project, Stack: p.Stack, State: p.State, Resources: []resourceJSON{}}
	if mgr != nil {
		out.Secrets = &secretsJSON{Type: mgr.Type(), State: mgr.State()}
	}
	urns := make([]resource.URN, 0, len(p.Resources))
	for u := range p.Resources {
		urns = append(urns, u)
	}
	slices.Sort(urns)
	for _, u := range urns {
		r := p.Resources[u]
		rj := resourceJSON{URN: u, Steps: r.Ops}
		if r.Goal != nil {
			g, err := encodeGoal(ctx, r.Goal, mgr)
			if err != nil {
				return nil, fmt.Errorf("saving the plan of %s: %w", u, err)
			}
			rj.Goal = g
		}
		out.Resources = append(out.Resources, rj)
	}
	return json.MarshalIndent(out, "", " ")
}

func encodeGoal(ctx context.Context, g *Goal, mgr secrets.Manager) (*goalJSON, error) {
	gj := &goalJSON{
		Custom: g.Custom, Parent: g.Parent, Provider: g.Provider, Protect: g.Protect,
		DeleteBeforeReplace: g.DeleteBeforeReplace, RetainOnDelete: g.RetainOnDelete, DeletedWith: g.DeletedWith,
		ImportID: g.ImportID, IgnoreChanges: g.IgnoreChanges, ReplaceOnChanges: g.ReplaceOnChanges,
		AdditionalSecretOutputs: g.AdditionalSecretOutputs, Dependencies: g.Dependencies,
		PropertyDependencies: g.PropertyDependencies, Aliases: g.Aliases,
	}
	if t := g.CustomTimeouts; !t.IsZero() {
		gj.CustomTimeouts = &timeoutsJSON{Create: duration(t.Create), Update: duration(t.Update), Delete: duration(t.Delete)}
	}
	var err error
	if gj.Inputs, err = encodeDiff(ctx, g.Inputs, mgr); err != nil {
		return nil, err
	}
	if gj.Outputs, err = encodeDiff(ctx, g.Outputs, mgr); err != nil {
		return nil, err
	}
	return gj, nil
}

func duration(d time.Duration) string {
	if d == 0 {
		return ""
	}
	return d.String()
}

func encodeDiff(ctx context.Context, d Diff, mgr secrets.Manager) (*diffJSON, error) {
	if d.IsEmpty() {
		return nil, nil
	}
	dj := &diffJSON{Deletes: d.Deletes}
	var err error
	if len(d.Adds) > 0 {
		if dj.Adds, err = values.Marshal(ctx, d.Adds, mgr); err != nil {
			return nil, err
		}
	}
	if len(d.Updates) > 0 {
		if dj.Updates, err = values.Marshal(ctx, d.Updates, mgr); err != nil {
			return nil, err
		}
	}
	return dj, nil
}

// Opener gives the secrets manager a saved plan records, to open its
// secrets; every store of package state is one (state.SecretsProvider's
// SecretsManager, for a given stack).
type Opener func(ctx context.Context, recorded *state.SecretsState) (secrets.Manager, error)

// FormatVersionError reports a plan written in a newer format than this
// package reads.
type FormatVersionError struct{ Version int }

func (e *FormatVersionError) Error() string {
	return fmt.Sprintf("the plan is in format %d, newer than the %d this version reads; apply it with the version that saved it", e.Version, FormatVersion)
}

// Unmarshal reads a plan Marshal wrote. open gives the manager that opens
// its secrets; it is called only when the plan records one.
func Unmarshal(ctx context.Context, data []byte, open Opener) (*Plan, error) {
	var in planJSON
	if err := json.Unmarshal(data, &in); err != nil {
		return nil, fmt.Errorf("reading the plan: %w", err)
	}
	switch {
	case in.Version > FormatVersion:
		return nil, &FormatVersionError{Version: in.Version}
	case in.Version < 1:
		return nil, errors.New("reading the plan: it has no format version; is it a plan saved by a preview?")
	}
	var mgr secrets.Manager
	if in.Secrets != nil && open != nil {
		var err error
		if mgr, err = open(ctx, &state.SecretsState{Type: in.Secrets.Type, State: in.Secrets.State}); err != nil {
			return nil, fmt.Errorf("opening the plan's secrets: %w", err)
		}
	}
	p := &Plan{Project: in.Project, Stack: in.Stack, State: in.State, Resources: make(map[resource.URN]*Resource, len(in.Resources))}
	for _, rj := range in.Resources {
		if rj.URN == "" {
			return nil, errors.New("reading the plan: a resource has no URN")
		}
		if _, dup := p.Resources[rj.URN]; dup {
			return nil, fmt.Errorf("reading the plan: %s is listed twice", rj.URN)
		}
		r := &Resource{Ops: rj.Steps}
		if rj.Goal != nil {
			g, err := decodeGoal(ctx, rj.Goal, mgr)
			if err != nil {
				return nil, fmt.Errorf("reading the plan of %s: %w", rj.URN, err)
			}
			r.Goal = g
		}
		p.Resources[rj.URN] = r
	}
	return p, nil
}

func decodeGoal(ctx context.Context, gj *goalJSON, mgr secrets.Manager) (*Goal, error) {
	g := &Goal{
		Custom: gj.Custom, Parent: gj.Parent, Provider: gj.Provider, Protect: gj.Protect,
		DeleteBeforeReplace: gj.DeleteBeforeReplace, RetainOnDelete: gj.RetainOnDelete, DeletedWith: gj.DeletedWith,
		ImportID: gj.ImportID, IgnoreChanges: gj.IgnoreChanges, ReplaceOnChanges: gj.ReplaceOnChanges,
		AdditionalSecretOutputs: gj.AdditionalSecretOutputs, Dependencies: gj.Dependencies,
		PropertyDependencies: gj.PropertyDependencies, Aliases: gj.Aliases,
	}
	if t := gj.CustomTimeouts; t != nil {
		for _, f := range []struct {
			s string
			d *time.Duration
		}{{t.Create, &g.CustomTimeouts.Create}, {t.Update, &g.CustomTimeouts.Update}, {t.Delete, &g.CustomTimeouts.Delete}} {
			if f.s == "" {
				continue
			}
			d, err := time.ParseDuration(f.s)
			if err != nil {
				return nil, fmt.Errorf("a custom timeout: %w", err)
			}
			*f.d = d
		}
	}
	var err error
	if g.Inputs, err = decodeDiff(ctx, gj.Inputs, mgr); err != nil {
		return nil, err
	}
	if g.Outputs, err = decodeDiff(ctx, gj.Outputs, mgr); err != nil {
		return nil, err
	}
	return g, nil
}

func decodeDiff(ctx context.Context, dj *diffJSON, mgr secrets.Manager) (Diff, error) {
	var d Diff
	if dj == nil {
		return d, nil
	}
	d.Deletes = dj.Deletes
	var err error
	if len(dj.Adds) > 0 {
		if d.Adds, err = values.Unmarshal(ctx, dj.Adds, mgr); err != nil {
			return d, err
		}
	}
	if len(dj.Updates) > 0 {
		if d.Updates, err = values.Unmarshal(ctx, dj.Updates, mgr); err != nil {
			return d, err
		}
	}
	return d, nil
}
