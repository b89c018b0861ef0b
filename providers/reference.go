package providers

import (
	"fmt"
	"strings"

	"github.com/groundwork-iac/groundwork/resource"
)

// UnknownID is the ID a provider resource has during a preview, before it
// has been created: the wire protocol's sentinel for "not known yet". A
// Reference with this ID is valid and names the provider instance the
// preview configured; it never appears in recorded state.
const UnknownID resource.ID = "04da6b54-80e4-46f7-96ec-b56ff0331ba9"

// referenceDelimiter joins a provider resource's URN and ID. URNs contain it
// too, so a reference is split at its last occurrence.
const referenceDelimiter = "::"

// Reference names one provider instance: the URN and ID of the provider
// resource that configured it. Its string form, "<URN>::<ID>", is what a
// custom resource records as its provider. Two resources managed by
// different references are managed by different instances, even when the
// instances' configuration is the same.
//
// The zero Reference names no provider.
type Reference struct {
	URN resource.URN
	ID  resource.ID
}

// NewReference returns the reference to the provider resource urn with id.
// It does not validate; use ParseReference for untrusted text.
func NewReference(urn resource.URN, id resource.ID) Reference {
	return Reference{URN: urn, ID: id}
}

// ReferenceError reports text that is not a provider reference, and why.
type ReferenceError struct {
	Input  string // the text as given
	Reason string
	Err    error // the underlying cause, e.g. a *resource.URNError
}

// Error quotes the input and says what is wrong with it.
func (e *ReferenceError) Error() string {
	msg := fmt.Sprintf("invalid provider reference %q: %s", e.Input, e.Reason)
	if e.Err != nil {
		msg += ": " + e.Err.Error()
	}
	return msg + ` (a provider reference is "<provider URN>::<provider ID>", e.g. "urn:pulumi:dev::proj::pulumi:providers:aws::default::<id>")`
}

// Unwrap returns the underlying cause.
func (e *ReferenceError) Unwrap() error { return e.Err }

// ParseReference parses "<URN>::<ID>". The URN must be a well-formed URN of
// a provider resource (type "pulumi:providers:<package>") and the ID must not
// be empty. The error is a *ReferenceError.
func ParseReference(s string) (Reference, error) {
	i := strings.LastIndex(s, referenceDelimiter)
	if i < 0 {
		return Reference{}, &ReferenceError{Input: s, Reason: `no "::" separates the URN from the ID`}
	}
	urnText, id := s[:i], resource.ID(s[i+len(referenceDelimiter):])
	if id == "" {
		return Reference{}, &ReferenceError{Input: s, Reason: "the ID is empty"}
	}
	urn, err := resource.ParseURN(urnText)
	if err != nil {
		return Reference{}, &ReferenceError{Input: s, Reason: "the URN is malformed", Err: err}
	}
	if !resource.IsProviderType(urn.Type()) {
		return Reference{}, &ReferenceError{Input: s, Reason: fmt.Sprintf("%q is not a provider resource type (want %q followed by a package name)", urn.Type(), resource.ProviderTypePrefix)}
	}
	return Reference{URN: urn, ID: id}, nil
}

// String returns "<URN>::<ID>", the form ParseReference reads.
func (r Reference) String() string {
	return string(r.URN) + referenceDelimiter + string(r.ID)
}

// IsZero reports whether r is the zero Reference.
func (r Reference) IsZero() bool { return r == Reference{} }

// IsUnknown reports whether r names a provider resource that a preview has
// not created yet (its ID is UnknownID).
func (r Reference) IsUnknown() bool { return r.ID == UnknownID }

// Package returns the package the referenced provider serves ("aws" for
// a reference to a "pulumi:providers:aws" resource), or "" if r's URN is
// not a provider resource's.
func (r Reference) Package() string {
	pkg, _ := PackageOfProviderType(r.URN.Type())
	return pkg
}

// ProviderType returns the type of the provider resources of pkg,
// "pulumi:providers:<pkg>".
func ProviderType(pkg string) string { return resource.ProviderTypePrefix + pkg }

// PackageOfProviderType returns the package of a provider resource type, and
// false if typ is not one.
func PackageOfProviderType(typ string) (string, bool) {
	if !resource.IsProviderType(typ) {
		return "", false
	}
	return typ[len(resource.ProviderTypePrefix):], true
}

// defaultProviderName is the name of the default provider of a package when
// no version is asked for; versioned defaults add a suffix.
const defaultProviderName = "default"

// DefaultProviderName returns the name of the default provider resource for
// a package version: "default" for no version, otherwise "default_" followed
// by the version with "." and "-" replaced by "_" ("default_1_2_3",
// "default_2_0_0_beta_1"). One default provider exists per package and
// version.
func DefaultProviderName(version string) string {
	if version == "" {
		return defaultProviderName
	}
	return defaultProviderName + "_" + strings.NewReplacer(".", "_", "-", "_").Replace(version)
}

// IsDefaultProvider reports whether urn names a default provider resource:
// a provider resource named as DefaultProviderName names them.
func IsDefaultProvider(urn resource.URN) bool {
	if !resource.IsProviderType(urn.Type()) {
		return false
	}
	name := urn.Name()
	return name == defaultProviderName || strings.HasPrefix(name, defaultProviderName+"_")
}

// The packages of the dynamic providers of Pulumi's SDKs: their resources
// carry their own provider code (serialized in an input), and the plugin
// that runs it is configured with the whole stack configuration, keys
// with their namespaces, rather than with one package's keys.
const (
	DynamicNodeJS = "pulumi-nodejs"
	DynamicPython = "pulumi-python"
)

// IsDynamic reports whether pkg is the package of a dynamic provider
// (DynamicNodeJS or DynamicPython).
func IsDynamic(pkg string) bool { return pkg == DynamicNodeJS || pkg == DynamicPython }
