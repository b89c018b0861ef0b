package migrate

import (
	"encoding/json"
	"time"

	"github.com/groundwork-iac/groundwork/resource"
)

// The JSON of a Pulumi deployment, as `pulumi stack export` writes it and
// `pulumi stack import` reads it: an envelope with the schema version,
// around the deployment itself.
type envelope struct {
	Version    int             `json:"version"`
	Features   []string        `json:"features,omitempty"`
	Deployment json.RawMessage `json:"deployment"`
}

type deployment struct {
	Manifest          manifest         `json:"manifest"`
	SecretsProviders  *secretsProvider `json:"secrets_providers,omitempty"`
	Resources         []pulumiResource `json:"resources,omitempty"`
	PendingOperations []operation      `json:"pending_operations,omitempty"`
	Metadata          json.RawMessage  `json:"metadata,omitempty"`
}

type manifest struct {
	Time    time.Time `json:"time"`
	Magic   string    `json:"magic"`
	Version string    `json:"version"`
}

type secretsProvider struct {
	Type  string          `json:"type"`
	State json.RawMessage `json:"state,omitempty"`
}

type operation struct {
	Resource pulumiResource `json:"resource"`
	Type     string         `json:"type"`
}

// pulumiResource is one resource record. The members groundwork has no
// counterpart for are read only to be dropped, reported or refused.
type pulumiResource struct {
	URN                     resource.URN                            `json:"urn"`
	Custom                  bool                                    `json:"custom"`
	Delete                  bool                                    `json:"delete,omitempty"`
	ID                      resource.ID                             `json:"id,omitempty"`
	Type                    string                                  `json:"type"`
	Inputs                  map[string]any                          `json:"inputs,omitempty"`
	Outputs                 map[string]any                          `json:"outputs,omitempty"`
	Parent                  resource.URN                            `json:"parent,omitempty"`
	Protect                 bool                                    `json:"protect,omitempty"`
	External                bool                                    `json:"external,omitempty"`
	Dependencies            []resource.URN                          `json:"dependencies,omitempty"`
	InitErrors              []string                                `json:"initErrors,omitempty"`
	Provider                string                                  `json:"provider,omitempty"`
	PropertyDependencies    map[resource.PropertyKey][]resource.URN `json:"propertyDependencies,omitempty"`
	PendingReplacement      bool                                    `json:"pendingReplacement,omitempty"`
	AdditionalSecretOutputs []resource.PropertyKey                  `json:"additionalSecretOutputs,omitempty"`
	Aliases                 []resource.URN                          `json:"aliases,omitempty"`
	CustomTimeouts          *timeouts                               `json:"customTimeouts,omitempty"`
	ImportID                resource.ID                             `json:"importID,omitempty"`
	RetainOnDelete          bool                                    `json:"retainOnDelete,omitempty"`
	DeletedWith             resource.URN                            `json:"deletedWith,omitempty"`
	Created                 *time.Time                              `json:"created,omitempty"`
	Modified                *time.Time                              `json:"modified,omitempty"`
	IgnoreChanges           []string                                `json:"ignoreChanges,omitempty"`
	ReplaceOnChanges        []string                                `json:"replaceOnChanges,omitempty"`

	// Dropped silently: they only tell where the program declared it and
	// what the display hides.
	SourcePosition string            `json:"sourcePosition,omitempty"`
	StackTrace     []json.RawMessage `json:"stackTrace,omitempty"`
	HideDiff       []json.RawMessage `json:"hideDiff,omitempty"`
	// Kept, but for the kinds of hooks groundwork does not run.
	ResourceHooks map[string][]string `json:"resourceHooks,omitempty"`
	// Dropped and reported.
	RefreshBeforeUpdate bool           `json:"refreshBeforeUpdate,omitempty"`
	ReplaceWith         []resource.URN `json:"replaceWith,omitempty"`
	ReplacementTrigger  any            `json:"replacementTrigger,omitempty"`
	// Refused.
	Taint  bool         `json:"taint,omitempty"`
	ViewOf resource.URN `json:"viewOf,omitempty"`
}

// timeouts are custom timeouts in seconds.
type timeouts struct {
	Create float64 `json:"create,omitempty"`
	Update float64 `json:"update,omitempty"`
	Delete float64 `json:"delete,omitempty"`
}

// The markers of Pulumi's property value encoding: an object whose
// signature key holds one of the signatures is not a plain object.
const (
	sigKey      = "4dabf18193072939515e22adb298388d"
	sigSecret   = "1b47061264138c4ac30d75fd1eb44270"
	sigAsset    = "c44067f5952c0a294b673a41bacd8c17"
	sigArchive  = "0def7320c3a5731c473e5ecbe6d01bc7"
	sigRef      = "5cf8f73096256a8f31e491e813e4eb8e"
	sigFloat    = "8ad145fe-0d11-4827-bfd7-1abcbf086f5c"
	unknownText = "04da6b54-80e4-46f7-96ec-b56ff0331ba9"
)

// pulumiPassphraseType is the type of Pulumi's passphrase secrets manager
// in a deployment's secrets_providers.
const pulumiPassphraseType = "passphrase"
