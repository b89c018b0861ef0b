package resource

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"strings"
)

// Asset is a blob of content a resource consumes: literal text, a local
// file, or a URI. Exactly one of Text, Path and URI is set (an asset with
// none set is the empty text). Hash is the hex-encoded SHA-256 of the
// contents, filled in once the contents have been read (see EnsureHash).
//
// An Asset is shared by the property values that hold it; EnsureHash is
// the only method that changes it, so call it before sharing the asset
// between goroutines.
type Asset struct {
	Hash string `json:"hash,omitempty"`
	Text string `json:"text,omitempty"`
	Path string `json:"path,omitempty"`
	URI  string `json:"uri,omitempty"`
}

// Archive is a collection of assets and archives: a map of named members, a
// local folder, or a tar, tar.gz or zip file (by path or URI). Exactly one of
// Assets, Path and URI is set (an archive with none set is the empty map).
// Hash is the hex-encoded SHA-256 of the archive's contents, computed
// deterministically (see EnsureHash).
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

// NewTextAsset returns an asset holding text, with its hash computed.
func NewTextAsset(text string) *Asset {
	sum := sha256.Sum256([]byte(text))
	return &Asset{Text: text, Hash: hex.EncodeToString(sum[:])}
}

// NewPathAsset returns an asset whose contents are the file at path. The
// file is not read until the contents or the hash are asked for (through
// a Source).
func NewPathAsset(path string) *Asset { return &Asset{Path: path} }

// NewURIAsset returns an asset whose contents are fetched from uri: a
// file:// URI names a local file, and any other scheme is the Source's to
// fetch (package resource/contents fetches http:// and https://). Nothing
// is fetched until the contents or the hash are asked for.
func NewURIAsset(uri string) *Asset { return &Asset{URI: uri} }

// IsText reports whether a holds literal text.
func (a *Asset) IsText() bool { return a != nil && a.Path == "" && a.URI == "" }

// IsPath reports whether a refers to a local file.
func (a *Asset) IsPath() bool { return a != nil && a.Path != "" }

// IsURI reports whether a refers to a URI.
func (a *Asset) IsURI() bool { return a != nil && a.URI != "" }

func (a *Asset) check() error {
	switch {
	case a == nil:
		return fmt.Errorf("asset is nil")
	case a.Path != "" && a.URI != "":
		return fmt.Errorf("asset sets both path %q and URI %q; want exactly one source", a.Path, a.URI)
	case a.Text != "" && (a.Path != "" || a.URI != ""):
		return fmt.Errorf("asset %s also sets text; want exactly one source", a.describe())
	}
	return nil
}

// Reader opens the asset's contents: the text itself, or the file at Path
// or the resource at URI, read through src (nil will do for a text
// asset). The caller closes the reader.
func (a *Asset) Reader(ctx context.Context, src Source) (io.ReadCloser, error) {
	if err := a.check(); err != nil {
		return nil, err
	}
	if a.IsText() {
		return io.NopCloser(strings.NewReader(a.Text)), nil
	}
	loc, err := locate(a.Path, a.URI)
	if err == nil {
		var r io.ReadCloser
		if r, err = loc.open(ctx, src); err == nil {
			return r, nil
		}
	}
	return nil, fmt.Errorf("reading asset %s: %w", a.describe(), err)
}

// Bytes reads the asset's whole contents (see Reader).
func (a *Asset) Bytes(ctx context.Context, src Source) ([]byte, error) {
	if a.IsText() && a.check() == nil {
		return []byte(a.Text), nil
	}
	r, err := a.Reader(ctx, src)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	b, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("reading asset %s: %w", a.describe(), err)
	}
	return b, nil
}

// ComputeHash reads the asset's contents through src and returns their
// hex-encoded SHA-256, without changing a.
func (a *Asset) ComputeHash(ctx context.Context, src Source) (string, error) {
	r, err := a.Reader(ctx, src)
	if err != nil {
		return "", err
	}
	defer r.Close()
	h := sha256.New()
	if _, err := io.Copy(h, r); err != nil {
		return "", fmt.Errorf("hashing asset %s: %w", a.describe(), err)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// EnsureHash sets a.Hash from the contents, read through src, if it is
// not set yet.
func (a *Asset) EnsureHash(ctx context.Context, src Source) error {
	if a != nil && a.Hash != "" {
		return nil
	}
	h, err := a.ComputeHash(ctx, src)
	if err != nil {
		return err
	}
	a.Hash = h
	return nil
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
