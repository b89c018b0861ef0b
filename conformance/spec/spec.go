// Package spec describes the programs of the differential conformance
// suite: a Program is a few versions of one deployment program, each
// deployed with an update (and, optionally, a destroy at the end), with
// the provider failures to inject into each operation. A Program is plain
// data: it is generated from a seed (package gen), written as JSON for a
// regression, reduced by removing parts, and run by both engines (package
// drive) through the same wire requests.
package spec

import (
	"encoding/json"
	"fmt"
	"os"
	"time"
)

// Project and Stack name the stack every program is deployed to, in both
// engines.
const (
	Project = "proj"
	Stack   = "stk"
)

// The types a program declares. Custom resources are managed by the world's
// provider (package world); components belong to no provider.
const (
	// Package is the provider package of every custom resource.
	Package = "world"
	// ThingType is the type of every custom resource.
	ThingType = "world:index:Thing"
	// GroupType and BoxType are component types; a component retyped from
	// one to the other keeps its identity through a type alias.
	GroupType = "world:index:Group"
	BoxType   = "world:index:Box"
)

// ReplacePrefix starts the keys of input properties whose change forces a
// replacement: the world's provider answers Diff with such keys as replace
// keys.
const ReplacePrefix = "r"

// OutKey is the output every custom resource computes from its ID and
// inputs; a property that takes its value from another resource takes this
// output.
const OutKey = "out"

// Program is the scenario: its versions, deployed one after the other,
// and an optional destroy.
type Program struct {
	// Seed is the generator's seed, for the record; a Program replays
	// from its contents alone.
	Seed     int64     `json:"seed,omitempty"`
	Versions []Version `json:"versions"`
	// Destroy ends the program with a destroy of the stack.
	Destroy bool `json:"destroy,omitempty"`
	// DestroyFailures are the provider failures injected into the destroy.
	DestroyFailures []Failure `json:"destroyFailures,omitempty"`
	// Schedule is how both engines run it; nil is the default schedule.
	Schedule *Schedule `json:"schedule,omitempty"`
}

// Schedule is how both engines run a program: how many steps at once, and
// how long provider calls take. It changes no outcome the engines promise,
// only the timing under which they keep it.
type Schedule struct {
	// Parallelism bounds the steps an engine runs at once; 0 is the
	// driver's default, above any program's size.
	Parallelism int `json:"parallelism,omitempty"`
	// Latency is the most a provider call waits before it answers, each
	// call a random time up to it; 0 answers at once.
	Latency time.Duration `json:"latency,omitempty"`
	// Concurrent registers each resource as soon as what it refers to has
	// been answered, as an SDK program does, instead of one after the
	// other: registrations then race each other, and the order each
	// engine sees differs, so only what each engine promises on its own
	// (the invariants) is comparable, not the engines with each other.
	Concurrent bool `json:"concurrent,omitempty"`
}

// Version is one version of the program: the resources it registers, in
// registration order (each registration waits for the one before), and the
// failures injected into its update.
type Version struct {
	Resources []Resource `json:"resources"`
	Failures  []Failure  `json:"failures,omitempty"`
	// Exports names custom resources whose "out" output becomes a stack
	// output of the same name, registered when the program ends.
	Exports []string `json:"exports,omitempty"`
}

// Resource is one registration.
type Resource struct {
	Name string `json:"name"`
	// Type is ThingType for a custom resource, GroupType or BoxType for a
	// component; empty means ThingType.
	Type string `json:"type,omitempty"`
	// Parent names an earlier resource of the version; empty is the stack.
	Parent string `json:"parent,omitempty"`
	// Props are the inputs of a custom resource.
	Props []Prop `json:"props,omitempty"`
	// DependsOn names earlier resources of the version.
	DependsOn           []string `json:"dependsOn,omitempty"`
	Protect             bool     `json:"protect,omitempty"`
	RetainOnDelete      bool     `json:"retainOnDelete,omitempty"`
	DeleteBeforeReplace bool     `json:"deleteBeforeReplace,omitempty"`
	// ReplaceOnChanges names input properties whose change replaces the
	// resource (the resource option, apart from the provider's replace
	// keys).
	ReplaceOnChanges []string `json:"replaceOnChanges,omitempty"`
	Aliases          []Alias  `json:"aliases,omitempty"`
}

// Prop is one input property: a literal, or the "out" output of an earlier
// custom resource of the version (a property dependency).
type Prop struct {
	Key   string `json:"key"`
	Value string `json:"value,omitempty"`
	From  string `json:"from,omitempty"`
}

// Alias is an alias spec: what the resource was called in the version
// before. Empty Name and Type keep the current ones; Parent nil keeps the
// current parent, "" is the stack, and a name is that resource of the
// version before.
type Alias struct {
	Name   string  `json:"name,omitempty"`
	Type   string  `json:"type,omitempty"`
	Parent *string `json:"parent,omitempty"`
}

// Failure is an injected provider failure: every call of Op ("create",
// "update" or "delete") on a resource named Name fails in the operation it
// belongs to, without changing the world. An object's name is that of the
// URN it was created (or last updated) under; a create's, that of the URN
// passed.
type Failure struct {
	Op   string `json:"op"`
	Name string `json:"name"`
}

// The operations a Failure can name.
const (
	OpCreate = "create"
	OpUpdate = "update"
	OpDelete = "delete"
)

// IsComponent reports whether r is a component.
func (r *Resource) IsComponent() bool {
	return r.Type == GroupType || r.Type == BoxType
}

// TypeOrDefault returns r's type, ThingType when it is empty.
func (r *Resource) TypeOrDefault() string {
	if r.Type == "" {
		return ThingType
	}
	return r.Type
}

// Find returns the resource of v named name, or nil.
func (v *Version) Find(name string) *Resource {
	for i := range v.Resources {
		if v.Resources[i].Name == name {
			return &v.Resources[i]
		}
	}
	return nil
}

// Clone returns a deep copy of p.
func (p *Program) Clone() *Program {
	b, err := json.Marshal(p)
	if err != nil {
		panic(fmt.Sprintf("spec: a program that does not encode: %v", err))
	}
	var c Program
	if err := json.Unmarshal(b, &c); err != nil {
		panic(fmt.Sprintf("spec: a program that does not decode: %v", err))
	}
	return &c
}

// Load reads a program written as JSON and validates it.
func Load(path string) (*Program, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var p Program
	if err := json.Unmarshal(b, &p); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if err := p.Validate(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &p, nil
}

// Save writes p as indented JSON.
func (p *Program) Save(path string) error {
	b, err := json.MarshalIndent(p, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}

// String is p as compact JSON, for logs.
func (p *Program) String() string {
	b, _ := json.Marshal(p)
	return string(b)
}
