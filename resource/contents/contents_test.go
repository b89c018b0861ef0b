package contents_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/groundwork-iac/groundwork/resource"
	"github.com/groundwork-iac/groundwork/resource/contents"
)

// The Source fetches http(s) URIs with the client it was given, and reads
// local files.
func TestSource(t *testing.T) {
	ctx := context.Background()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/hello":
			io.WriteString(w, "hello over http")
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	used := 0
	client := &http.Client{Transport: roundTripper(func(r *http.Request) (*http.Response, error) {
		used++
		return http.DefaultTransport.RoundTrip(r)
	})}
	src := contents.Source{Client: client}

	b, err := resource.NewURIAsset(srv.URL+"/hello").Bytes(ctx, src)
	if err != nil || string(b) != "hello over http" {
		t.Fatalf("Bytes = %q, %v", b, err)
	}
	if used != 1 {
		t.Errorf("the caller's client made %d requests, want 1", used)
	}
	path := filepath.Join(t.TempDir(), "f.txt")
	if err := os.WriteFile(path, []byte("local"), 0o600); err != nil {
		t.Fatal(err)
	}
	if b, err := resource.NewPathAsset(path).Bytes(ctx, src); err != nil || string(b) != "local" {
		t.Errorf("Bytes of a path = %q, %v", b, err)
	}

	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	for _, tt := range []struct {
		name string
		ctx  context.Context
		uri  string
		want string
	}{
		{"not found", ctx, srv.URL + "/missing", "404 Not Found"},
		{"unsupported scheme", ctx, "ftp://example.com/x", `unsupported scheme "ftp"`},
		{"cancelled", cancelled, srv.URL + "/hello", "context canceled"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := resource.NewURIAsset(tt.uri).Bytes(tt.ctx, src)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error = %v, want one containing %q", err, tt.want)
			}
		})
	}
}

type roundTripper func(*http.Request) (*http.Response, error)

func (f roundTripper) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }
