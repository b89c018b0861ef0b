// Package migrate moves stacks between Pulumi and groundwork.
//
// FromPulumi reads the JSON that `pulumi stack export` writes (a deployment
// of version 3, or 4 with the features it lists) and returns the
// groundwork snapshot of the same stack: every resource with its inputs,
// outputs, provider, parent, dependencies, property dependencies and
// options (protect, retainOnDelete, deletedWith, ignoreChanges, aliases,
// custom timeouts, resource hooks and the rest), old copies awaiting
// deletion, and pending operations. ToPulumi writes a groundwork snapshot back as a version 3
// deployment that `pulumi stack import` reads. ImportStack and ExportStack
// do either against a state.Store.
//
// Secrets travel encrypted. A deployment's secrets were sealed by the
// Pulumi stack's secrets manager; with the passphrase manager (a stack
// whose Pulumi.<stack>.yaml has an encryptionsalt) FromPulumi opens them
// given the passphrase, and the salt the deployment records (or the one
// given). The snapshot holds them as secret values, which the store seals
// again with groundwork's own manager. ToPulumi seals them the way Pulumi's
// passphrase manager does, under the salt given or a fresh one. A
// deployment exported with --show-secrets carries them in plaintext and
// needs no passphrase; other Pulumi secrets managers (the Pulumi Cloud, a
// cloud KMS) are not supported: change the stack to the passphrase manager
// first (`pulumi stack change-secrets-provider passphrase`).
//
// A few things Pulumi records have no counterpart in groundwork. Source
// positions, stack traces and hidden diffs are dropped. Refresh-before-
// update, replaceWith and replacement triggers, and error hooks are
// dropped and reported (Imported.Dropped). A tainted resource or a view is
// refused, with what to do in Pulumi first.
package migrate
