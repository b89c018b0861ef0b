package resource

// DiffChanges says whether a provider found changes.
type DiffChanges int

// The answers a provider's Diff may give.
const (
	// DiffUnknown: the provider could not tell; the engine compares old
	// and new inputs itself.
	DiffUnknown DiffChanges = iota
	// DiffNone: no changes.
	DiffNone
	// DiffSome: at least one change.
	DiffSome
)

// String names the answer.
func (c DiffChanges) String() string {
	switch c {
	case DiffNone:
		return "none"
	case DiffSome:
		return "some"
	default:
		return "unknown"
	}
}

// PropertyDiffKind is the kind of change to one property in a detailed
// diff.
type PropertyDiffKind int

// The kinds of property change. Each has a replace variant meaning the
// change forces the resource to be replaced.
const (
	DiffAdd PropertyDiffKind = iota
	DiffAddReplace
	DiffDelete
	DiffDeleteReplace
	DiffUpdate
	DiffUpdateReplace
)

var propertyDiffKindNames = [...]string{"add", "add-replace", "delete", "delete-replace", "update", "update-replace"}

// String names the kind.
func (k PropertyDiffKind) String() string {
	if k >= 0 && int(k) < len(propertyDiffKindNames) {
		return propertyDiffKindNames[k]
	}
	return "unknown"
}

// IsReplace reports whether the change forces a replacement.
func (k PropertyDiffKind) IsReplace() bool {
	return k == DiffAddReplace || k == DiffDeleteReplace || k == DiffUpdateReplace
}

// AsReplace returns the replace variant of k.
func (k PropertyDiffKind) AsReplace() PropertyDiffKind {
	switch k {
	case DiffAdd:
		return DiffAddReplace
	case DiffDelete:
		return DiffDeleteReplace
	case DiffUpdate:
		return DiffUpdateReplace
	}
	return k
}

// PropertyDiff is one entry of a detailed diff.
type PropertyDiff struct {
	Kind PropertyDiffKind
	// InputDiff is set when the change is between old and new inputs,
	// clear when it is between old outputs and new inputs.
	InputDiff bool
}

// DiffResult is a provider's answer to Diff: whether anything changed, what,
// and whether the change needs a replacement.
type DiffResult struct {
	Changes DiffChanges
	// ReplaceKeys are the top-level properties whose change forces a
	// replacement; non-empty means the resource must be replaced.
	ReplaceKeys []PropertyKey
	// StableKeys are properties that will not change even on update.
	StableKeys []PropertyKey
	// ChangedKeys are the top-level properties that changed.
	ChangedKeys []PropertyKey
	// DetailedDiff maps property paths (in PropertyPath syntax) to the kind
	// of change. When present it is authoritative over ReplaceKeys.
	DetailedDiff map[string]PropertyDiff
	// DeleteBeforeReplace asks for the old resource to be deleted before its
	// replacement is created (e.g. because it has a fixed, unique name).
	DeleteBeforeReplace bool
}

// Replace reports whether the diff requires a replacement.
func (d DiffResult) Replace() bool {
	if len(d.ReplaceKeys) > 0 {
		return true
	}
	for _, pd := range d.DetailedDiff {
		if pd.Kind.IsReplace() {
			return true
		}
	}
	return false
}
