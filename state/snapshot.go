package state

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/groundwork-iac/groundwork/resource"
)

// FormatVersion is the version of the snapshot format this package
// writes. It reads every version up to and including this one and rejects
// newer files (see FORMAT.md). Version 2 added the "mac" member that ends
// every snapshot; version 1 files carry none (see
// WithUnauthenticatedSnapshots).
const FormatVersion = 2

// JournalFormatVersion is the version of the journal format this package
// writes, in each journal's header; like FormatVersion, it reads every
// version up to this one and rejects newer journals. Version 2 added the
// entries' "with" member (records that leave the state together with
// Old), which a version 1 reader would ignore and so misread. Version 3
// added the tagged record types, whose bodies end with a MAC chained to
// the record before, and a header's base that names an authenticated
// snapshot by its MAC, neither of which a version 2 reader knows.
// Version 4 added the entries' "condemn" member (Old stays, marked Delete,
// beside New), which a version 3 reader would ignore and so misread.
const JournalFormatVersion = 4

// Snapshot is the recorded state of one stack at one moment: its resources
// in dependency order (every resource after its parent, dependencies,
// property dependencies, deleted-with target and provider) and the steps
// that began but never ended.
//
// Resources are shared, not copied, between snapshots and journals: a
// *resource.State is immutable once recorded (see resource.State).
type Snapshot struct {
	Manifest Manifest
	// Secrets describes the secrets manager whose ciphertexts the stack's
	// records hold; nil until the stack first records one.
	Secrets *SecretsState
	// Resources are in dependency order; see VerifyIntegrity.
	Resources []*resource.State
	// PendingOperations are steps that began and did not end, typically
	// because the process died. The physical resource may or may not
	// exist; a refresh resolves them.
	PendingOperations []resource.Operation
}

// Manifest says when and by what a snapshot was written.
type Manifest struct {
	// Time is when the snapshot was written.
	Time time.Time
	// Version is the format version of the file the snapshot was read from
	// (FormatVersion for a snapshot written by this package).
	Version int
	// LibraryVersion is the groundwork module version that wrote it.
	LibraryVersion string
}

// SecretsState is the public description of a stack's secrets manager: its
// type and the JSON state that re-creates it (for a passphrase manager: the
// salt, the iteration count and a check value). It never holds key
// material.
type SecretsState struct {
	Type  string
	State json.RawMessage
}

// Rule names one integrity rule of a snapshot.
type Rule string

// The integrity rules VerifyIntegrity checks.
const (
	// RuleInvalidResource: a resource (or pending operation) is nil or has
	// no URN or type.
	RuleInvalidResource Rule = "invalid-resource"
	// RuleDuplicateURN: a URN appears twice and the older copy is not
	// marked Delete (a copy kept only until its replacement's delete).
	RuleDuplicateURN Rule = "duplicate-urn"
	// RuleParentOrder: the parent is not recorded earlier.
	RuleParentOrder Rule = "parent-order"
	// RuleDependencyOrder: a dependency is not recorded earlier.
	RuleDependencyOrder Rule = "dependency-order"
	// RulePropertyDependencyOrder: a property dependency is not recorded
	// earlier.
	RulePropertyDependencyOrder Rule = "property-dependency-order"
	// RuleDeletedWithOrder: the deleted-with target is not recorded
	// earlier.
	RuleDeletedWithOrder Rule = "deleted-with-order"
	// RuleProviderMissing: a custom resource that is not itself a provider
	// has no provider reference.
	RuleProviderMissing Rule = "provider-missing"
	// RuleProviderMalformed: a provider reference is not "<URN>::<ID>".
	RuleProviderMalformed Rule = "provider-malformed"
	// RuleProviderUnresolved: a provider reference does not name a provider
	// resource with that URN and ID recorded earlier.
	RuleProviderUnresolved Rule = "provider-unresolved"
	// RuleUnknownValue: an input or output holds an unknown value, which
	// only a preview may produce.
	RuleUnknownValue Rule = "unknown-value"
)

// IntegrityError reports the first integrity rule a snapshot breaks.
type IntegrityError struct {
	// URN is the offending resource ("" when it has none).
	URN resource.URN
	// Rule is the broken rule.
	Rule Rule
	// Detail says what exactly is wrong.
	Detail string
}

// Error names the resource, the rule and what is wrong.
func (e *IntegrityError) Error() string {
	return fmt.Sprintf("state integrity: resource %q breaks rule %s: %s", e.URN, e.Rule, e.Detail)
}

// ParseProviderReference splits a provider reference "<URN>::<ID>" at its
// last "::". ok is false when either half is empty.
func ParseProviderReference(ref string) (urn resource.URN, id resource.ID, ok bool) {
	i := len(ref) - 2 // the last "::", found from the end: IDs are short
	for i >= 0 && (ref[i] != ':' || ref[i+1] != ':') {
		i--
	}
	if i <= 0 || i+2 >= len(ref) {
		return "", "", false
	}
	return resource.URN(ref[:i]), resource.ID(ref[i+2:]), true
}

// VerifyIntegrity checks that s can be recorded and read back meaningfully:
//
//   - no two live copies of a URN: a URN may repeat only when every earlier
//     copy is marked Delete;
//   - each parent, dependency, property dependency and deleted-with target
//     names a resource recorded earlier in Resources, by its URN or, for a
//     renamed resource, by a URN it lists among its Aliases (the URNs it
//     was known by, which records written before the rename still name);
//   - each provider reference "<URN>::<ID>" names a provider resource (type
//     "pulumi:providers:...") recorded earlier with that ID and that URN
//     (or, renamed since, listing it among its Aliases), and every custom
//     resource that is not a provider has one;
//   - no input or output anywhere holds an unknown value, in Resources or
//     in PendingOperations.
//
// The error is an *IntegrityError for the first violation. The check is
// linear in the number of resources plus references (and property values).
func (s *Snapshot) VerifyIntegrity() error { return s.verifyIntegrity(false) }

// providerKey identifies a provider resource by URN and ID.
type providerKey struct {
	urn resource.URN
	id  resource.ID
}

// VerifyKnownIntegrity is VerifyIntegrity for a snapshot whose caller has
// established that no input or output holds an unknown value (a decoder or
// an encoder notices them as it passes them), which spares searching the
// property maps again.
func (s *Snapshot) VerifyKnownIntegrity() error { return s.verifyIntegrity(true) }

// verifyIntegrity is VerifyIntegrity, or VerifyKnownIntegrity with
// knownValues set.
func (s *Snapshot) verifyIntegrity(knownValues bool) error {
	// live[u] is true once a live copy of u was seen, false if only
	// Delete-marked copies were.
	live := make(map[resource.URN]bool, len(s.Resources))
	// aliases holds the URNs earlier records were once known by: a
	// reference to a renamed resource's old URN resolves to it.
	var aliases map[resource.URN]bool
	providers := make(map[providerKey]struct{})
	// last is the provider last found in providers. Resources mostly name
	// the provider the one before them named, and a provider found stays
	// found (none is ever removed here): comparing with it spares hashing
	// the reference again.
	var last providerKey
	scope := refScope{
		live: func(u resource.URN) bool { return live[u] },
		seen: func(u resource.URN) bool { _, ok := live[u]; return ok || aliases[u] },
		provider: func(u resource.URN, id resource.ID) bool {
			k := providerKey{u, id}
			if k == last && u != "" {
				return true
			}
			_, ok := providers[k]
			if ok {
				last = k
			}
			return ok
		},
		knownValues: knownValues,
	}
	for _, r := range s.Resources {
		if err := checkResource(r, scope); err != nil {
			return err
		}
		// checkResource refused a second live copy: no live copy of
		// r.URN precedes r, so whether one is recorded is whether r is.
		live[r.URN] = !r.Delete
		for _, a := range r.Aliases {
			if aliases == nil {
				aliases = make(map[resource.URN]bool)
			}
			aliases[a] = true
		}
		if r.IsProvider() {
			providers[providerKey{r.URN, r.ID}] = struct{}{}
			for _, a := range r.Aliases {
				providers[providerKey{a, r.ID}] = struct{}{}
			}
		}
	}
	for _, op := range s.PendingOperations {
		r := op.Resource
		if r == nil || r.URN == "" {
			return &IntegrityError{Rule: RuleInvalidResource, Detail: "a pending operation has no resource or no URN"}
		}
		if knownValues {
			continue
		}
		if err := checkUnknowns(r); err != nil {
			return err
		}
	}
	return nil
}

// refScope answers what is recorded before a resource: whether a live copy
// of a URN is, whether any copy is, and whether a provider with this URN
// and ID is.
type refScope struct {
	live, seen func(resource.URN) bool
	provider   func(resource.URN, resource.ID) bool
	// knownValues says the caller has established that the resource holds
	// no unknowns, so they need not be searched for.
	knownValues bool
}

func checkResource(r *resource.State, scope refScope) error {
	if r == nil {
		return &IntegrityError{Rule: RuleInvalidResource, Detail: "a resource entry is empty"}
	}
	fail := func(rule Rule, format string, args ...any) error {
		return &IntegrityError{URN: r.URN, Rule: rule, Detail: fmt.Sprintf(format, args...)}
	}
	if r.URN == "" || r.Type == "" {
		return fail(RuleInvalidResource, "the resource has no URN or no type")
	}
	if scope.live(r.URN) {
		return fail(RuleDuplicateURN, "a live copy of this URN is already recorded earlier; only copies marked Delete may precede another")
	}
	seen := scope.seen
	if r.Parent != "" && !seen(r.Parent) {
		return fail(RuleParentOrder, "parent %q is not recorded before it", r.Parent)
	}
	for _, d := range r.Dependencies {
		if !seen(d) {
			return fail(RuleDependencyOrder, "dependency %q is not recorded before it", d)
		}
	}
	for _, k := range sortedKeys(r.PropertyDependencies) {
		for _, d := range r.PropertyDependencies[k] {
			if !seen(d) {
				return fail(RulePropertyDependencyOrder, "property %q depends on %q, which is not recorded before it", k, d)
			}
		}
	}
	if r.DeletedWith != "" && !seen(r.DeletedWith) {
		return fail(RuleDeletedWithOrder, "deleted-with target %q is not recorded before it", r.DeletedWith)
	}
	if r.Provider != "" {
		pu, pid, ok := ParseProviderReference(r.Provider)
		if !ok {
			return fail(RuleProviderMalformed, "provider reference %q is not \"<URN>::<ID>\"", r.Provider)
		}
		if !scope.provider(pu, pid) {
			return fail(RuleProviderUnresolved, "provider reference %q does not name a provider resource with that URN and ID recorded before it", r.Provider)
		}
	} else if r.Custom && !r.IsProvider() {
		return fail(RuleProviderMissing, "a custom resource must record the provider reference that manages it")
	}
	if scope.knownValues {
		return nil
	}
	return checkUnknowns(r)
}

func checkUnknowns(r *resource.State) error {
	for _, side := range []struct {
		name string
		m    resource.PropertyMap
	}{{"input", r.Inputs}, {"output", r.Outputs}} {
		if !side.m.ContainsUnknowns() {
			continue
		}
		for _, k := range side.m.StableKeys() {
			if side.m[k].ContainsUnknowns() {
				return &IntegrityError{URN: r.URN, Rule: RuleUnknownValue,
					Detail: fmt.Sprintf("%s %q holds an unknown value; only previews produce unknowns and they are never recorded", side.name, k)}
			}
		}
	}
	return nil
}

// sortedKeys returns m's keys in order; maps of one key cost no sort.
func sortedKeys(m map[resource.PropertyKey][]resource.URN) []resource.PropertyKey {
	if len(m) == 0 {
		return nil
	}
	return slices.Sorted(maps.Keys(m))
}
