// Package contents reads what assets and archives name: files and folders
// on the local file system, and http:// and https:// URIs, fetched with an
// HTTP client the caller chooses. Source is the resource.Source that
// providers which read assets (the local provider, say) use unless they
// are given another.
//
//	src := contents.Source{Client: &http.Client{Timeout: time.Minute}}
//	data, err := asset.Bytes(ctx, src)
package contents

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/url"
	"os"
)

// Source reads local files and folders with package os, and fetches
// http:// and https:// URIs with Client. It refuses other schemes. The
// zero Source is ready to use.
type Source struct {
	// Client fetches http:// and https:// URIs; nil means
	// http.DefaultClient.
	Client *http.Client
}

// Open opens the local file or folder at path (an *os.File, whose ReadDir
// lists a folder). It checks ctx first: reading a local file is not
// cancelled midway.
func (s Source) Open(ctx context.Context, path string) (fs.File, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return os.Open(path)
}

// Fetch GETs an http:// or https:// URI with s.Client under ctx; any
// answer but 200 OK is an error naming the status. The caller closes the
// body it returns.
func (s Source) Fetch(ctx context.Context, uri string) (io.ReadCloser, error) {
	u, err := url.Parse(uri)
	if err != nil {
		return nil, fmt.Errorf("malformed URI %q: %w", uri, err)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return nil, fmt.Errorf("URI %q: unsupported scheme %q (want file, http or https)", uri, u.Scheme)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, uri, nil)
	if err != nil {
		return nil, fmt.Errorf("fetching %q: %w", uri, err)
	}
	client := s.Client
	if client == nil {
		client = http.DefaultClient
	}
	resp, err := client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("fetching %q: %w", uri, err)
	}
	if resp.StatusCode != http.StatusOK {
		resp.Body.Close()
		return nil, fmt.Errorf("fetching %q: the server answered %s", uri, resp.Status)
	}
	return resp.Body, nil
}
