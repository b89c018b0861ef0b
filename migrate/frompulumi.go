package migrate

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/groundwork-iac/groundwork/resource"
	"github.com/groundwork-iac/groundwork/state"
	"github.com/groundwork-iac/groundwork/state/secrets"
)

// FromOptions adjust FromPulumi.
type FromOptions struct {
	// Passphrase opens secrets sealed by Pulumi's passphrase secrets
	// manager (what PULUMI_CONFIG_PASSPHRASE holds for the stack).
	Passphrase string
	// EncryptionSalt is the stack's encryptionsalt (Pulumi.<stack>.yaml);
	// empty to use the salt the deployment records.
	EncryptionSalt string
	// Secrets, when set, opens the ciphertexts instead of a passphrase.
	Secrets secrets.Manager
	// Project and Stack, when set, must be those every URN names: a
	// stack imported under another name would have every resource
	// replaced by the next update.
	Project string
	Stack   string
	// Overwrite lets ImportStack replace the state of a stack that
	// already has resources.
	Overwrite bool
}

// Imported is the result of FromPulumi.
type Imported struct {
	// Snapshot is the stack as groundwork records it; secret values are
	// plaintext in memory, for a store to seal.
	Snapshot *state.Snapshot
	// Dropped lists what the deployment recorded that groundwork does
	// not keep.
	Dropped []Dropped
}

// Dropped is one thing of a Pulumi deployment that the import left out.
type Dropped struct {
	URN resource.URN
	// Field is the resource member, as Pulumi's deployment names it.
	Field string
	// Reason says what the loss means.
	Reason string
}

func (d Dropped) String() string {
	return fmt.Sprintf("%s: %s was dropped: %s", d.URN, d.Field, d.Reason)
}

// UnsupportedError reports a deployment that cannot be imported as it is,
// and what to do about it.
type UnsupportedError struct {
	URN    resource.URN
	Reason string
}

func (e *UnsupportedError) Error() string {
	if e.URN == "" {
		return "the Pulumi deployment cannot be imported: " + e.Reason
	}
	return fmt.Sprintf("the Pulumi deployment cannot be imported: %s %s", e.URN, e.Reason)
}

// FromPulumi reads the output of `pulumi stack export` (see the package
// documentation for what is kept) and returns the groundwork snapshot of
// the stack. The snapshot passes state's integrity rules.
func FromPulumi(ctx context.Context, data []byte, opts FromOptions) (*Imported, error) {
	dep, err := readEnvelope(data)
	if err != nil {
		return nil, err
	}
	r := &reader{ctx: ctx, open: opener(dep, opts)}
	out := &Imported{Snapshot: &state.Snapshot{}}
	for _, pr := range dep.Resources {
		s, err := out.resource(r, pr, opts)
		if err != nil {
			return nil, err
		}
		out.Snapshot.Resources = append(out.Snapshot.Resources, s)
	}
	for _, op := range dep.PendingOperations {
		s, err := out.resource(r, op.Resource, opts)
		if err != nil {
			return nil, fmt.Errorf("a pending operation: %w", err)
		}
		out.Snapshot.PendingOperations = append(out.Snapshot.PendingOperations,
			resource.Operation{Resource: s, Kind: resource.OperationKind(op.Type)})
	}
	if err := out.Snapshot.VerifyIntegrity(); err != nil {
		return nil, fmt.Errorf("the imported stack breaks groundwork's integrity rules: %w", err)
	}
	slices.SortStableFunc(out.Dropped, func(a, b Dropped) int {
		return cmp.Or(strings.Compare(string(a.URN), string(b.URN)), strings.Compare(a.Field, b.Field))
	})
	return out, nil
}

// readEnvelope checks the envelope's version and features and decodes the
// deployment inside.
func readEnvelope(data []byte) (*deployment, error) {
	var env envelope
	if err := json.Unmarshal(data, &env); err != nil {
		return nil, fmt.Errorf("reading the Pulumi deployment: %w", err)
	}
	switch {
	case env.Version == 0 || len(env.Deployment) == 0:
		return nil, &UnsupportedError{Reason: "it is not the output of `pulumi stack export` (no version or deployment)"}
	case env.Version < 3:
		return nil, &UnsupportedError{Reason: fmt.Sprintf("it is of version %d; export it again with a current Pulumi CLI", env.Version)}
	case env.Version > 4:
		return nil, &UnsupportedError{Reason: fmt.Sprintf("it is of version %d, newer than the 3 and 4 this version reads", env.Version)}
	}
	for _, f := range env.Features {
		if !slices.Contains([]string{"refreshBeforeUpdate", "views", "hooks", "taint", "replaceWith"}, f) {
			return nil, &UnsupportedError{Reason: fmt.Sprintf("it uses the feature %q, which this version does not know", f)}
		}
	}
	dec := json.NewDecoder(bytes.NewReader(env.Deployment))
	var dep deployment
	if err := dec.Decode(&dep); err != nil {
		return nil, fmt.Errorf("reading the Pulumi deployment: %w", err)
	}
	return &dep, nil
}

// opener returns the function that opens the deployment's ciphertexts,
// once, at the first one.
func opener(dep *deployment, opts FromOptions) func() (secrets.Manager, error) {
	return sync.OnceValues(func() (secrets.Manager, error) {
		if opts.Secrets != nil {
			return opts.Secrets, nil
		}
		sp := dep.SecretsProviders
		if sp != nil && sp.Type != pulumiPassphraseType {
			return nil, &UnsupportedError{Reason: fmt.Sprintf(
				"its secrets are sealed by Pulumi's %q secrets manager; switch the stack to the passphrase manager (`pulumi stack change-secrets-provider passphrase`) or export with --show-secrets", sp.Type)}
		}
		salt := opts.EncryptionSalt
		if salt == "" && sp != nil {
			var st struct {
				Salt string `json:"salt"`
			}
			if err := json.Unmarshal(sp.State, &st); err != nil {
				return nil, fmt.Errorf("reading the deployment's secrets manager: %w", err)
			}
			salt = st.Salt
		}
		switch {
		case salt == "":
			return nil, errors.New("the deployment holds sealed secrets but records no encryption salt: give the stack's encryptionsalt from Pulumi.<stack>.yaml")
		case opts.Passphrase == "":
			return nil, errors.New("the deployment holds sealed secrets: give the Pulumi stack's passphrase (PULUMI_CONFIG_PASSPHRASE)")
		}
		m, err := secrets.OpenPulumiPassphrase(opts.Passphrase, salt)
		if err != nil {
			return nil, fmt.Errorf("opening the deployment's secrets: %w", err)
		}
		return m, nil
	})
}

// resource converts one resource record.
func (out *Imported) resource(r *reader, pr pulumiResource, opts FromOptions) (*resource.State, error) {
	if err := checkURN(pr.URN, opts); err != nil {
		return nil, err
	}
	switch {
	case pr.Taint:
		return nil, &UnsupportedError{URN: pr.URN, Reason: "is tainted (to be replaced by the next update): run `pulumi up` (or `pulumi state untaint`) first, then export again"}
	case pr.ViewOf != "":
		return nil, &UnsupportedError{URN: pr.URN, Reason: fmt.Sprintf("is a view of %s, which groundwork does not record", pr.ViewOf)}
	}
	inputs, err := r.properties(pr.Inputs, false)
	if err != nil {
		return nil, fmt.Errorf("the inputs of %s: %w", pr.URN, err)
	}
	outputs, err := r.properties(pr.Outputs, false)
	if err != nil {
		return nil, fmt.Errorf("the outputs of %s: %w", pr.URN, err)
	}
	s := &resource.State{
		Type: pr.Type, URN: pr.URN, Custom: pr.Custom, Delete: pr.Delete, ID: pr.ID,
		Inputs: inputs, Outputs: outputs, Parent: pr.Parent, Protect: pr.Protect, External: pr.External,
		Dependencies: pr.Dependencies, PropertyDependencies: propertyDependencies(pr.PropertyDependencies), Provider: pr.Provider,
		InitErrors: pr.InitErrors, PendingReplacement: pr.PendingReplacement, RetainOnDelete: pr.RetainOnDelete,
		DeletedWith: pr.DeletedWith, IgnoreChanges: pr.IgnoreChanges, ReplaceOnChanges: pr.ReplaceOnChanges,
		ImportID: pr.ImportID, AdditionalSecretOutputs: pr.AdditionalSecretOutputs, Aliases: pr.Aliases,
	}
	if t := pr.CustomTimeouts; t != nil {
		s.CustomTimeouts = resource.CustomTimeouts{Create: seconds(t.Create), Update: seconds(t.Update), Delete: seconds(t.Delete)}
	}
	s.Hooks = out.hooks(pr)
	if pr.Created != nil {
		s.Created = *pr.Created
	}
	if pr.Modified != nil {
		s.Modified = *pr.Modified
	}
	out.dropped(pr)
	return s, nil
}

// propertyDependencies drops the empty lists Pulumi's engine records for
// every input of a registration: a key without dependencies is a key not
// listed, which is how groundwork records it.
func propertyDependencies(deps map[resource.PropertyKey][]resource.URN) map[resource.PropertyKey][]resource.URN {
	var out map[resource.PropertyKey][]resource.URN
	for k, urns := range deps {
		if len(urns) == 0 {
			continue
		}
		if out == nil {
			out = make(map[resource.PropertyKey][]resource.URN, len(deps))
		}
		out[k] = urns
	}
	return out
}

// dropped notes what the record holds that the import leaves out and a
// user would miss.
func (out *Imported) dropped(pr pulumiResource) {
	note := func(field, reason string) {
		out.Dropped = append(out.Dropped, Dropped{URN: pr.URN, Field: field, Reason: reason})
	}
	if pr.RefreshBeforeUpdate {
		note("refreshBeforeUpdate", "groundwork does not refresh the resource before updating it; run a refresh first where it matters")
	}
	if len(pr.ReplaceWith) > 0 {
		note("replaceWith", "groundwork does not replace the resource together with others")
	}
	if pr.ReplacementTrigger != nil {
		note("replacementTrigger", "groundwork does not replace the resource when the trigger changes")
	}
}

// hooks converts the resource hooks bound to a resource; a kind groundwork
// does not run (Pulumi's error hooks) is dropped and reported.
func (out *Imported) hooks(pr pulumiResource) resource.Hooks {
	var h resource.Hooks
	for kind, names := range pr.ResourceHooks {
		k, ok := hookKinds[kind]
		if !ok {
			out.Dropped = append(out.Dropped, Dropped{URN: pr.URN, Field: "resourceHooks." + kind,
				Reason: "groundwork has no hooks of this kind"})
			continue
		}
		if h == nil {
			h = resource.Hooks{}
		}
		h[k] = names
	}
	return h
}

// hookKinds maps Pulumi's names of hook kinds to groundwork's.
var hookKinds = map[string]resource.HookKind{
	"BeforeCreate": resource.HookBeforeCreate, "AfterCreate": resource.HookAfterCreate,
	"BeforeUpdate": resource.HookBeforeUpdate, "AfterUpdate": resource.HookAfterUpdate,
	"BeforeDelete": resource.HookBeforeDelete, "AfterDelete": resource.HookAfterDelete,
}

// checkURN refuses a URN of another stack or project than asked for.
func checkURN(urn resource.URN, opts FromOptions) error {
	u, err := resource.ParseURN(string(urn))
	if err != nil {
		return &UnsupportedError{URN: urn, Reason: fmt.Sprintf("has a malformed URN: %v", err)}
	}
	if opts.Stack != "" && u.Stack() != opts.Stack {
		return &UnsupportedError{URN: urn, Reason: fmt.Sprintf(
			"belongs to stack %q, not %q: import it into a stack of that name", u.Stack(), opts.Stack)}
	}
	if opts.Project != "" && u.Project() != opts.Project {
		return &UnsupportedError{URN: urn, Reason: fmt.Sprintf(
			"belongs to project %q, not %q: import it in a project of that name", u.Project(), opts.Project)}
	}
	return nil
}

func seconds(f float64) time.Duration { return time.Duration(math.Round(f * float64(time.Second))) }
