// Package resource holds the vocabulary every other part of groundwork
// speaks: how a resource is named, what its properties are, how two sets
// of properties differ, what files it carries, and in what order a set of
// resources may be created or deleted. It has no I/O of its own — the
// contents of assets and archives are read through a Source the caller
// passes in (package resource/contents reads local files and http(s)) —
// and no dependencies beyond the standard library.
//
// # Names
//
// A resource is identified by a URN, built from the stack, the project,
// the resource's type (prefixed by the types of its parents, joined by
// "$") and its name:
//
//	urn:pulumi:dev::site::my:web:Site$aws:s3/bucket:Bucket::assets
//
// ParseURN checks the whole grammar and says which part is wrong;
// NewURN builds one without checking. A URN is stable for as long as the
// type, name and parent stay the same, which is why renames need aliases.
// An ID is the provider's own name for the physical resource; the engine
// never interprets it.
//
// # Values
//
// Inputs and outputs are PropertyMaps of PropertyValues. Besides the JSON
// kinds (null, bool, number, string, array, object) a value may be an
// asset, an archive, or a reference to another resource, and three kinds
// carry information about the value rather than the value itself:
//
//   - unknown: during a preview, a value that will only exist once some
//     resource has been created. Anything computed from it is unknown too.
//   - secret: a value that must never be shown. Secrets print as
//     "[secret]" under every fmt verb, however deeply they are nested,
//     and a SecretFilter masks their plaintexts in text that quotes them
//     (an error message, a line of output).
//   - output: a value together with whether it is known, whether it is
//     secret, and which resources it came from, so that passing one
//     resource's output to another keeps the dependency.
//
// NewPropertyValue and Mappable convert to and from plain Go values.
//
// # Paths and diffs
//
// A PropertyPath such as `spec.containers[0].env["API.KEY"]` addresses a
// value inside another. Paths are how ignore-changes, replace-on-changes
// and detailed diffs name properties; they read and write through secrets
// without unwrapping them for the caller.
//
// PropertyMap.Diff compares old and new properties, key by key and
// element by element, and returns nil when nothing changed, quickly and
// without allocating, since most resources in a deployment do not change.
// DetailedDiffFromObjectDiff turns a diff into the per-path form that
// providers report.
//
// # Assets and archives
//
// An Asset is a blob (text, a file, a URI); an Archive is a set of named
// blobs (a folder, a tar, tar.gz or zip file, or a map of assets and
// archives). Each is identified by the SHA-256 of its contents. An
// archive's hash depends only on its member names and contents, not on
// its format or the order in which its members are stored, so a folder and
// a zip of that folder hash alike and changing the packaging does not
// cause an update.
//
// # Dependency graph
//
// A Graph links each recorded State to what it depends on: its parent,
// its dependencies and property dependencies, the resource it is deleted
// with, and its provider. TopologicalOrder gives a creation order (and
// reports a cycle by naming it); TransitiveDependents finds what must be
// replaced or deleted along with a resource; Antichains cuts a set of
// resources to delete into groups that can each be deleted in parallel,
// in an order where nothing is deleted while a resource that depends on
// it still exists.
//
// The graph is built for large stacks: it is stored as flat index arrays,
// and most of the cost of building it and of cutting it into antichains
// is looking URNs up in a map. BENCHMARKS.md has the figures.
package resource
