package resource

import (
	"slices"
	"time"
)

// CustomTimeouts bound how long a provider may take for each operation on a
// resource. Zero means the provider's default.
type CustomTimeouts struct {
	Create time.Duration `json:"create,omitempty"`
	Update time.Duration `json:"update,omitempty"`
	Delete time.Duration `json:"delete,omitempty"`
}

// IsZero reports whether no timeout is set.
func (t CustomTimeouts) IsZero() bool { return t == CustomTimeouts{} }

// State is one recorded resource: what the engine knows of it after the
// last step that touched it. States are treated as immutable once recorded;
// code that needs a changed state makes a copy (see Clone).
type State struct {
	Type   string
	URN    URN
	Custom bool
	// Delete marks an old copy that is slated for deletion because its
	// replacement has already been created (create-before-delete).
	Delete  bool
	ID      ID
	Inputs  PropertyMap
	Outputs PropertyMap
	Parent  URN
	Protect bool
	// External resources were read, not created: the engine never deletes
	// them physically.
	External     bool
	Dependencies []URN
	// PropertyDependencies maps an input property to the resources its
	// value came from.
	PropertyDependencies map[PropertyKey][]URN
	// Provider is the provider reference ("<provider URN>::<provider ID>")
	// of a custom resource; "" for components and provider resources.
	Provider string
	// InitErrors are the reasons a resource exists but failed to
	// initialize fully (a partial failure of Create or Update).
	InitErrors []string
	// PendingReplacement marks a resource that has been deleted as part of
	// a delete-before-replace whose replacement is not yet created.
	PendingReplacement bool
	RetainOnDelete     bool
	DeletedWith        URN
	IgnoreChanges      []string
	ReplaceOnChanges   []string
	CustomTimeouts     CustomTimeouts
	// ImportID is the ID the resource was imported from, if any.
	ImportID ID
	// AdditionalSecretOutputs name outputs the engine marks secret even if
	// the provider did not.
	AdditionalSecretOutputs []PropertyKey
	// Aliases are the URNs this resource was once known by.
	Aliases []URN
	// Hooks are the resource hooks bound to the resource.
	Hooks    Hooks
	Created  time.Time
	Modified time.Time
}

// Clone returns a copy of s whose slices and maps may be changed without
// affecting s. Property values are immutable and shared.
func (s *State) Clone() *State {
	if s == nil {
		return nil
	}
	c := *s
	c.Inputs = s.Inputs.Copy()
	c.Outputs = s.Outputs.Copy()
	c.Dependencies = slices.Clone(s.Dependencies)
	if s.PropertyDependencies != nil {
		c.PropertyDependencies = make(map[PropertyKey][]URN, len(s.PropertyDependencies))
		for k, v := range s.PropertyDependencies {
			c.PropertyDependencies[k] = slices.Clone(v)
		}
	}
	c.InitErrors = slices.Clone(s.InitErrors)
	c.IgnoreChanges = slices.Clone(s.IgnoreChanges)
	c.ReplaceOnChanges = slices.Clone(s.ReplaceOnChanges)
	c.AdditionalSecretOutputs = slices.Clone(s.AdditionalSecretOutputs)
	c.Aliases = slices.Clone(s.Aliases)
	c.Hooks = s.Hooks.Clone()
	return &c
}

// IsProvider reports whether s is a provider resource
// ("pulumi:providers:<package>").
func (s *State) IsProvider() bool { return IsProviderType(s.Type) }

// ProviderTypePrefix begins the type of every provider resource.
const ProviderTypePrefix = "pulumi:providers:"

// IsProviderType reports whether typ is a provider resource type.
func IsProviderType(typ string) bool {
	return len(typ) > len(ProviderTypePrefix) && typ[:len(ProviderTypePrefix)] == ProviderTypePrefix
}

// Alias names a URN a resource was previously known by. Either URN is set
// (the full old URN), or some of the other fields are, each replacing the
// corresponding part of the resource's current URN; NoParent says the old
// resource had no parent.
type Alias struct {
	URN      URN
	Name     string
	Type     string
	Parent   URN
	NoParent bool
	Stack    string
	Project  string
}

// Goal is one desired resource: what a program asked for in a registration,
// with every resource option.
type Goal struct {
	Type   string
	Name   string
	Custom bool
	// Remote marks a component implemented by a provider's Construct.
	Remote bool
	Inputs PropertyMap
	Parent URN
	// Provider is an explicit provider reference; "" asks for the default
	// provider of the type's package.
	Provider string
	// Providers maps package names to provider references, for the
	// children of a component (the providers option of a remote component).
	Providers map[string]string
	// Version picks the default provider's version.
	Version              string
	Protect              bool
	Dependencies         []URN
	PropertyDependencies map[PropertyKey][]URN
	DeleteBeforeReplace  bool
	IgnoreChanges        []string
	ReplaceOnChanges     []string
	// AdditionalSecretOutputs are outputs to mark secret.
	AdditionalSecretOutputs []PropertyKey
	Aliases                 []Alias
	CustomTimeouts          CustomTimeouts
	RetainOnDelete          bool
	DeletedWith             URN
	// ImportID asks the engine to adopt an existing physical resource
	// instead of creating one.
	ImportID ID
	// Hooks names the resource hooks to run around the resource's steps.
	Hooks Hooks
}

// OperationKind is what a pending operation was doing when it began.
type OperationKind string

// The kinds of pending operation.
const (
	OperationCreating  OperationKind = "creating"
	OperationUpdating  OperationKind = "updating"
	OperationDeleting  OperationKind = "deleting"
	OperationReading   OperationKind = "reading"
	OperationImporting OperationKind = "importing"
)

// Operation is a step that began and has not (yet) ended: the resource it
// acts on and what it was doing. After a crash it tells the user that the
// physical resource may exist even though the state does not say so.
type Operation struct {
	Resource *State
	Kind     OperationKind
}
