package migrate

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"time"

	"github.com/groundwork-iac/groundwork/resource"
	"github.com/groundwork-iac/groundwork/state"
	"github.com/groundwork-iac/groundwork/state/secrets"
)

// ToOptions adjust ToPulumi.
type ToOptions struct {
	// Passphrase seals the secrets as Pulumi's passphrase secrets manager
	// does: it must be the passphrase of the Pulumi stack that imports the
	// deployment. A snapshot with secrets needs one.
	Passphrase string
	// EncryptionSalt is that stack's encryptionsalt (Pulumi.<stack>.yaml),
	// or empty for a fresh salt, which the deployment records.
	EncryptionSalt string
}

// ToPulumi writes snap as a version 3 deployment (4 when a resource has
// hooks), the JSON `pulumi stack import` reads. Nothing groundwork records
// is lost.
func ToPulumi(ctx context.Context, snap *state.Snapshot, opts ToOptions) ([]byte, error) {
	w := &writer{ctx: ctx}
	dep := deployment{Manifest: exportManifest(snap)}
	if opts.Passphrase != "" {
		var m *secrets.PulumiPassphrase
		var err error
		if opts.EncryptionSalt != "" {
			m, err = secrets.OpenPulumiPassphrase(opts.Passphrase, opts.EncryptionSalt)
		} else {
			m, err = secrets.NewPulumiPassphrase(opts.Passphrase)
		}
		if err != nil {
			return nil, fmt.Errorf("preparing the Pulumi passphrase: %w", err)
		}
		w.mgr = m
		dep.SecretsProviders = &secretsProvider{Type: pulumiPassphraseType, State: m.State()}
	}
	version, features := 3, []string(nil)
	for _, s := range snap.Resources {
		pr, err := w.resource(s)
		if err != nil {
			return nil, err
		}
		if len(pr.ResourceHooks) > 0 {
			// Pulumi reads hooks from version 4 on, with the feature named.
			version, features = 4, []string{"hooks"}
		}
		dep.Resources = append(dep.Resources, pr)
	}
	for _, op := range snap.PendingOperations {
		if op.Resource == nil {
			continue
		}
		pr, err := w.resource(op.Resource)
		if err != nil {
			return nil, fmt.Errorf("a pending operation: %w", err)
		}
		dep.PendingOperations = append(dep.PendingOperations, operation{Resource: pr, Type: string(op.Kind)})
	}
	inner, err := json.Marshal(dep)
	if err != nil {
		return nil, err
	}
	return json.MarshalIndent(envelope{Version: version, Features: features, Deployment: inner}, "", "    ")
}

// exportManifest names groundwork as the writer, with the magic Pulumi
// derives from the version.
func exportManifest(snap *state.Snapshot) manifest {
	v := "groundwork"
	if snap.Manifest.LibraryVersion != "" {
		v += " " + snap.Manifest.LibraryVersion
	}
	t := snap.Manifest.Time
	if t.IsZero() {
		t = time.Now()
	}
	return manifest{Time: t.UTC(), Version: v, Magic: fmt.Sprintf("%x", sha256.Sum256([]byte(v)))}
}

func (w *writer) resource(s *resource.State) (pulumiResource, error) {
	inputs, err := w.properties(s.Inputs, false)
	if err != nil {
		return pulumiResource{}, fmt.Errorf("the inputs of %s: %w", s.URN, err)
	}
	outputs, err := w.properties(s.Outputs, false)
	if err != nil {
		return pulumiResource{}, fmt.Errorf("the outputs of %s: %w", s.URN, err)
	}
	pr := pulumiResource{
		URN: s.URN, Custom: s.Custom, Delete: s.Delete, ID: s.ID, Type: s.Type,
		Inputs: inputs, Outputs: outputs, Parent: s.Parent, Protect: s.Protect, External: s.External,
		Dependencies: s.Dependencies, InitErrors: s.InitErrors, Provider: s.Provider,
		PropertyDependencies: s.PropertyDependencies, PendingReplacement: s.PendingReplacement,
		AdditionalSecretOutputs: s.AdditionalSecretOutputs, Aliases: s.Aliases, ImportID: s.ImportID,
		RetainOnDelete: s.RetainOnDelete, DeletedWith: s.DeletedWith,
		IgnoreChanges: s.IgnoreChanges, ReplaceOnChanges: s.ReplaceOnChanges,
	}
	if t := s.CustomTimeouts; !t.IsZero() {
		pr.CustomTimeouts = &timeouts{Create: t.Create.Seconds(), Update: t.Update.Seconds(), Delete: t.Delete.Seconds()}
	}
	for kind, names := range s.Hooks {
		for pulumiKind, k := range hookKinds {
			if k == kind {
				if pr.ResourceHooks == nil {
					pr.ResourceHooks = map[string][]string{}
				}
				pr.ResourceHooks[pulumiKind] = names
			}
		}
	}
	if !s.Created.IsZero() {
		c := s.Created.UTC()
		pr.Created = &c
	}
	if !s.Modified.IsZero() {
		m := s.Modified.UTC()
		pr.Modified = &m
	}
	return pr, nil
}
