package resource

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/url"
)

// Source reads what assets and archives name by path or URI. Package
// resource does no I/O of its own: whoever needs the contents of an asset
// or an archive that is not held in memory passes a Source in. Package
// resource/contents implements it over the local file system and HTTP.
type Source interface {
	// Open opens the local file or folder at path. A folder is returned
	// as an fs.File that implements fs.ReadDirFile, so that an archive
	// can list it; its entries are opened with Open in turn.
	Open(ctx context.Context, path string) (fs.File, error)
	// Fetch opens the contents a URI names. It is never given a file://
	// URI: those name local paths, which Open reads.
	Fetch(ctx context.Context, uri string) (io.ReadCloser, error)
}

// ErrNoSource is returned when the contents of an asset or an archive
// must be read from a path or a URI but no Source was given.
var ErrNoSource = errors.New("no Source was given to read it from")

// location is where an asset's or an archive's contents are: a local path
// (which a file:// URI turns into) or a URI of another scheme.
type location struct{ path, uri string }

// locate turns a path or a URI into a location, parsing a URI only as far
// as its scheme: a file:// URI names a local path.
func locate(path, uri string) (location, error) {
	if path != "" {
		return location{path: path}, nil
	}
	u, err := url.Parse(uri)
	if err != nil {
		return location{}, fmt.Errorf("malformed URI %q: %w", uri, err)
	}
	if u.Scheme != "file" {
		return location{uri: uri}, nil
	}
	p, err := fileURIPath(u)
	if err != nil {
		return location{}, err
	}
	return location{path: p}, nil
}

// open opens the file (or, for a path, the folder) at l through src.
func (l location) open(ctx context.Context, src Source) (io.ReadCloser, error) {
	if src == nil {
		return nil, ErrNoSource
	}
	if l.path != "" {
		return src.Open(ctx, l.path)
	}
	return src.Fetch(ctx, l.uri)
}

func fileURIPath(u *url.URL) (string, error) {
	if u.Host != "" && u.Host != "localhost" {
		return "", fmt.Errorf("file URI %q names host %q; only local files are supported", u.String(), u.Host)
	}
	if u.Path == "" {
		return "", fmt.Errorf("file URI %q has no path", u.String())
	}
	return u.Path, nil
}
