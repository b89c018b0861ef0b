package resource

// Asset is a blob of content a resource consumes: literal text, a local
// file, or a URI. Exactly one of Text, Path and URI is set. Hash is the
// hex-encoded SHA-256 of the contents, filled in once the contents have been
// read (see EnsureHash).
type Asset struct {
	Hash string `json:"hash,omitempty"`
	Text string `json:"text,omitempty"`
	Path string `json:"path,omitempty"`
	URI  string `json:"uri,omitempty"`
}

// Archive is a collection of assets and archives: a map of named members, a
// local folder, or a tar, tar.gz or zip file (by path or URI). Exactly one of
// Assets, Path and URI is set. Hash is the hex-encoded SHA-256 of the
// archive's contents, computed deterministically (see EnsureHash).
type Archive struct {
	Hash   string                    `json:"hash,omitempty"`
	Assets map[string]AssetOrArchive `json:"assets,omitempty"`
	Path   string                    `json:"path,omitempty"`
	URI    string                    `json:"uri,omitempty"`
}

// AssetOrArchive is one member of an Archive's map: exactly one field is
// set.
type AssetOrArchive struct {
	Asset   *Asset   `json:"asset,omitempty"`
	Archive *Archive `json:"archive,omitempty"`
}

// Equals reports whether a and b are the same asset: equal hashes when both
// have one, otherwise equal sources.
func (a *Asset) Equals(b *Asset) bool {
	if a == nil || b == nil {
		return a == b
	}
	if a.Hash != "" && b.Hash != "" {
		return a.Hash == b.Hash
	}
	return a.Text == b.Text && a.Path == b.Path && a.URI == b.URI
}

// Equals reports whether a and b are the same archive: equal hashes when
// both have one, otherwise equal sources.
func (a *Archive) Equals(b *Archive) bool {
	if a == nil || b == nil {
		return a == b
	}
	if a.Hash != "" && b.Hash != "" {
		return a.Hash == b.Hash
	}
	if a.Path != b.Path || a.URI != b.URI || len(a.Assets) != len(b.Assets) {
		return false
	}
	for name, m := range a.Assets {
		n, ok := b.Assets[name]
		if !ok || !m.Asset.Equals(n.Asset) || !m.Archive.Equals(n.Archive) {
			return false
		}
	}
	return true
}

func (a *Asset) describe() string {
	switch {
	case a == nil:
		return "nil"
	case a.Path != "":
		return "path=" + a.Path
	case a.URI != "":
		return "uri=" + a.URI
	case a.Hash != "":
		return "text, sha256=" + shortHash(a.Hash)
	default:
		return "text"
	}
}

func (a *Archive) describe() string {
	switch {
	case a == nil:
		return "nil"
	case a.Path != "":
		return "path=" + a.Path
	case a.URI != "":
		return "uri=" + a.URI
	default:
		return "assets"
	}
}

func shortHash(h string) string {
	if len(h) > 12 {
		return h[:12]
	}
	return h
}
