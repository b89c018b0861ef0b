package resource

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"slices"
	"strings"
)

// NewAssetArchive returns an archive whose members are the given assets and
// archives. Member names are slash-separated relative paths; a name that is
// absolute, empty, or contains a "." or ".." element is rejected, as is a
// member that sets neither or both of Asset and Archive.
func NewAssetArchive(members map[string]AssetOrArchive) (*Archive, error) {
	for name, m := range members {
		if err := checkMemberName(name); err != nil {
			return nil, fmt.Errorf("asset archive: %w", err)
		}
		if (m.Asset == nil) == (m.Archive == nil) {
			return nil, fmt.Errorf("asset archive: member %q must set exactly one of Asset and Archive", name)
		}
	}
	return &Archive{Assets: members}, nil
}

// NewPathArchive returns an archive read from path: a folder, or a file
// whose name ends in .tar, .tar.gz, .tgz, .zip or .jar. A folder's members
// are its regular files, named by their slash-separated paths relative to
// the folder; symbolic links to files are followed, symbolic links to
// folders are skipped (they could form loops), and empty folders leave no
// trace. Nothing is read until the contents or the hash are asked for
// (through a Source).
func NewPathArchive(path string) *Archive { return &Archive{Path: path} }

// NewURIArchive returns an archive fetched from uri: a file:// URI names a
// local folder or archive file, any other scheme is the Source's to fetch
// (see NewURIAsset). The format of a fetched archive comes from the
// extension of the URI's path, as for NewPathArchive.
func NewURIArchive(uri string) *Archive { return &Archive{URI: uri} }

// IsAssets reports whether a is a map of members.
func (a *Archive) IsAssets() bool { return a != nil && a.Path == "" && a.URI == "" }

// IsPath reports whether a refers to a local folder or archive file.
func (a *Archive) IsPath() bool { return a != nil && a.Path != "" }

// IsURI reports whether a refers to a URI.
func (a *Archive) IsURI() bool { return a != nil && a.URI != "" }

// checkMemberName rejects member names that could escape the folder an
// archive is extracted into, or that would not round-trip.
func checkMemberName(name string) error {
	switch {
	case name == "":
		return fmt.Errorf("member name is empty")
	case strings.ContainsRune(name, 0):
		return fmt.Errorf("member name %q contains a NUL byte", name)
	case strings.HasPrefix(name, "/"):
		return fmt.Errorf("member name %q is absolute; want a relative path", name)
	case slices.Contains(strings.Split(name, "/"), ".."):
		return fmt.Errorf("member name %q contains \"..\" and would escape the archive", name)
	case !fs.ValidPath(name) || name == ".":
		return fmt.Errorf("member name %q is not a clean relative path (empty or \".\" element, or trailing \"/\")", name)
	}
	return nil
}

// ComputeHash returns the archive's hash without changing a: the
// hex-encoded SHA-256 over its members sorted by name, each contributing
// its name (length-prefixed) and the SHA-256 of its contents. Nested
// archives are flattened first (member "x" of archive member "sub" is
// "sub/x"), so one set of files hashes the same whether it is a folder, a
// tar, tar.gz or zip file, or a map of assets, and regardless of the order
// in which a directory listing or an archive file presents them. What is
// not held in memory is read through src.
func (a *Archive) ComputeHash(ctx context.Context, src Source) (string, error) {
	l := &lister{ctx: ctx, src: src}
	defer l.close()
	if err := l.archive("", a); err != nil {
		return "", err
	}
	if err := l.sort(); err != nil {
		return "", err
	}
	h := sha256.New()
	var lenbuf [binary.MaxVarintLen64]byte
	for _, e := range l.entries {
		digest := e.digest
		if digest == nil {
			var err error
			if digest, err = e.hash(); err != nil {
				return "", err
			}
		}
		h.Write(lenbuf[:binary.PutUvarint(lenbuf[:], uint64(len(e.name)))])
		h.Write([]byte(e.name))
		h.Write(digest)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// EnsureHash sets a.Hash from the contents, read through src, if it is
// not set yet.
func (a *Archive) EnsureHash(ctx context.Context, src Source) error {
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

// Open lists the archive's members and returns a reader that yields them
// one at a time in sorted name order, flattened as described for
// ComputeHash, reading through src what is not held in memory. Folder, zip
// and asset members are read lazily; the members of tar and tar.gz files
// are held in memory because those formats cannot be read out of order,
// and so is a fetched archive file. The caller must Close the reader.
// Member names are checked as they are listed: a name containing ".." (or
// otherwise escaping the archive) is an error.
func (a *Archive) Open(ctx context.Context, src Source) (*ArchiveReader, error) {
	l := &lister{ctx: ctx, src: src, keep: true}
	if err := l.archive("", a); err != nil {
		l.close()
		return nil, err
	}
	if err := l.sort(); err != nil {
		l.close()
		return nil, err
	}
	return &ArchiveReader{l: l}, nil
}

// ArchiveReader yields an archive's members in sorted name order. It is
// not safe for concurrent use.
type ArchiveReader struct {
	l    *lister
	next int
	cur  io.ReadCloser
}

// Len returns the number of members.
func (r *ArchiveReader) Len() int { return len(r.l.entries) }

// Next returns the next member's name and contents, or io.EOF after the
// last one. The contents stay readable until the next call to Next or
// Close, which close them.
func (r *ArchiveReader) Next() (string, io.ReadCloser, error) {
	if r.cur != nil {
		r.cur.Close()
		r.cur = nil
	}
	if r.next >= len(r.l.entries) {
		return "", nil, io.EOF
	}
	e := r.l.entries[r.next]
	r.next++
	rc, err := e.open()
	if err != nil {
		return "", nil, fmt.Errorf("opening archive member %q: %w", e.name, err)
	}
	r.cur = rc
	return e.name, rc, nil
}

// Close releases the reader and any files it holds open.
func (r *ArchiveReader) Close() error {
	if r.cur != nil {
		r.cur.Close()
		r.cur = nil
	}
	r.next = len(r.l.entries)
	return r.l.close()
}

// entry is one flattened member of an archive. When a lister does not keep
// contents, members of streamed formats carry only their digest.
type entry struct {
	name   string
	open   func() (io.ReadCloser, error)
	digest []byte
}

func (e entry) hash() ([]byte, error) {
	rc, err := e.open()
	if err != nil {
		return nil, fmt.Errorf("hashing archive member %q: %w", e.name, err)
	}
	defer rc.Close()
	h := sha256.New()
	if _, err := io.Copy(h, rc); err != nil {
		return nil, fmt.Errorf("hashing archive member %q: %w", e.name, err)
	}
	return h.Sum(nil), nil
}

// lister flattens an archive into entries.
type lister struct {
	ctx     context.Context
	src     Source
	keep    bool // keep streamed contents in memory (for Open)
	entries []entry
	closers []io.Closer
	onStack map[*Archive]bool // asset archives being listed, to catch cycles
}

func (l *lister) close() error {
	var errs []error
	for _, c := range l.closers {
		errs = append(errs, c.Close())
	}
	l.closers = nil
	return errors.Join(errs...)
}

// sort orders the entries by name and rejects duplicates.
func (l *lister) sort() error {
	slices.SortFunc(l.entries, func(a, b entry) int { return strings.Compare(a.name, b.name) })
	for i := 1; i < len(l.entries); i++ {
		if l.entries[i].name == l.entries[i-1].name {
			return fmt.Errorf("archive has two members named %q", l.entries[i].name)
		}
	}
	return nil
}

// addStream records a member whose contents can be read only now, from r.
func (l *lister) addStream(name string, r io.Reader) error {
	if !l.keep {
		h := sha256.New()
		if _, err := io.Copy(h, r); err != nil {
			return fmt.Errorf("reading archive member %q: %w", name, err)
		}
		l.entries = append(l.entries, entry{name: name, digest: h.Sum(nil)})
		return nil
	}
	b, err := io.ReadAll(r)
	if err != nil {
		return fmt.Errorf("reading archive member %q: %w", name, err)
	}
	l.entries = append(l.entries, entry{name: name, open: func() (io.ReadCloser, error) {
		return io.NopCloser(bytes.NewReader(b)), nil
	}})
	return nil
}
