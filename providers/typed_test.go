package providers_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/groundwork-iac/groundwork/providers"
	"github.com/groundwork-iac/groundwork/providers/providertest"
	"github.com/groundwork-iac/groundwork/resource"
)

// noteArgs are the inputs of the typed test resource: a note with a title
// (changing it replaces the note), a body, and optional tags.
type noteArgs struct {
	Title string            `prop:"title,replace"`
	Body  string            `prop:"body"`
	Tags  map[string]string `prop:"tags,optional"`
	Pages int               `prop:"pages,optional"`
}

// note is its outputs: the inputs and a computed word count.
type note struct {
	noteArgs
	Words int    `prop:"words"`
	Hash  string `prop:"hash,secret"`
}

// notebook keeps notes in memory, behind a Typed provider.
type notebook struct {
	mu    sync.Mutex
	next  int
	notes map[resource.ID]note
	calls []string
}

func newNotebook() *notebook { return &notebook{notes: map[resource.ID]note{}} }

func (b *notebook) count() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return len(b.notes)
}

func (b *notebook) log(s string) {
	b.mu.Lock()
	b.calls = append(b.calls, s)
	b.mu.Unlock()
}

func (b *notebook) provider() *providers.Typed[noteArgs, note] {
	written := func(in noteArgs) note {
		return note{noteArgs: in, Words: len(strings.Fields(in.Body)), Hash: fmt.Sprintf("%x", len(in.Body))}
	}
	return &providers.Typed[noteArgs, note]{
		CheckF: func(_ context.Context, req providers.TypedCheck[noteArgs]) (noteArgs, []providers.CheckFailure, error) {
			if req.News.Pages < 0 {
				return req.News, []providers.CheckFailure{{Property: "pages", Reason: "must not be negative"}}, nil
			}
			if req.News.Pages == 0 {
				req.News.Pages = 1 // a default
			}
			return req.News, nil, nil
		},
		CreateF: func(ctx context.Context, req providers.TypedCreate[noteArgs]) (resource.ID, note, error) {
			if err := ctx.Err(); err != nil {
				return "", note{}, err
			}
			b.mu.Lock()
			defer b.mu.Unlock()
			b.next++
			id := resource.ID(fmt.Sprintf("note-%d", b.next))
			b.notes[id] = written(req.Inputs)
			b.calls = append(b.calls, "create "+req.Inputs.Title)
			return id, b.notes[id], nil
		},
		ReadF: func(_ context.Context, req providers.TypedRead[noteArgs, note]) (providers.TypedState[noteArgs, note], error) {
			b.mu.Lock()
			defer b.mu.Unlock()
			n, ok := b.notes[req.ID]
			if !ok {
				return providers.TypedState[noteArgs, note]{}, nil
			}
			return providers.TypedState[noteArgs, note]{ID: req.ID, Inputs: n.noteArgs, Outputs: n}, nil
		},
		UpdateF: func(ctx context.Context, req providers.TypedUpdate[noteArgs, note]) (note, error) {
			if err := ctx.Err(); err != nil {
				return note{}, err
			}
			b.mu.Lock()
			defer b.mu.Unlock()
			b.notes[req.ID] = written(req.NewInputs)
			b.calls = append(b.calls, "update "+req.NewInputs.Title)
			return b.notes[req.ID], nil
		},
		DeleteF: func(ctx context.Context, req providers.TypedDelete[noteArgs, note]) error {
			if err := ctx.Err(); err != nil {
				return err
			}
			b.mu.Lock()
			defer b.mu.Unlock()
			delete(b.notes, req.ID)
			b.calls = append(b.calls, "delete "+req.Inputs.Title)
			return nil
		},
	}
}

const noteType = "book:index:Note"

func noteInputs(title, body string) resource.PropertyMap {
	return resource.PropertyMap{"title": str(title), "body": str(body)}
}

// A Typed provider passes the conformance suite every provider passes.
func TestConformanceTyped(t *testing.T) {
	b := newNotebook()
	providertest.Run(t, providertest.Harness{
		New: func(*testing.T) providers.Provider {
			return providers.ByType(map[string]providers.Provider{noteType: b.provider()})
		},
		Type:                 noteType,
		Inputs:               noteInputs("a", "one two"),
		Update:               noteInputs("a", "one two three"),
		Replace:              noteInputs("b", "one two"),
		Count:                b.count,
		RespectsCancellation: true,
	})
}

// Check holds the inputs to In's schema, property by property, before
// CheckF sees them; CheckF's answer becomes the checked inputs.
func TestTypedCheck(t *testing.T) {
	p := newNotebook().provider()
	urn := resource.NewURN("dev", "p", "", noteType, "n")
	tests := []struct {
		name     string
		news     resource.PropertyMap
		failures []providers.CheckFailure
		inputs   resource.PropertyMap
	}{
		{
			name:   "valid, with a default",
			news:   noteInputs("a", "b"),
			inputs: resource.PropertyMap{"title": str("a"), "body": str("b"), "pages": resource.NewNumber(1)},
		},
		{
			name:     "an unknown property",
			news:     resource.PropertyMap{"title": str("a"), "body": str("b"), "colour": str("red")},
			failures: []providers.CheckFailure{{Property: "colour", Reason: "is not an input of this resource (its inputs: title, body, tags, pages)"}},
		},
		{
			name:     "a missing required input",
			news:     resource.PropertyMap{"title": str("a")},
			failures: []providers.CheckFailure{{Property: "body", Reason: "is required"}},
		},
		{
			name:     "a value of the wrong type",
			news:     resource.PropertyMap{"title": str("a"), "body": str("b"), "pages": str("many")},
			failures: []providers.CheckFailure{{Property: "pages", Reason: "want a number, found a string"}},
		},
		{
			name:     "a nested value of the wrong type",
			news:     resource.PropertyMap{"title": str("a"), "body": str("b"), "tags": resource.NewObject(resource.PropertyMap{"k": resource.NewNumber(1)})},
			failures: []providers.CheckFailure{{Property: "tags.k", Reason: "want a string, found a number"}},
		},
		{
			name:     "CheckF's own failure",
			news:     resource.PropertyMap{"title": str("a"), "body": str("b"), "pages": resource.NewNumber(-1)},
			failures: []providers.CheckFailure{{Property: "pages", Reason: "must not be negative"}},
		},
		{
			name:   "unknown and secret inputs keep what they are",
			news:   resource.PropertyMap{"title": resource.NewUnknown(), "body": resource.NewSecret(str("s"))},
			inputs: resource.PropertyMap{"title": resource.NewUnknown(), "body": resource.NewSecret(str("s")), "pages": resource.NewNumber(1)},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp, err := p.Check(context.Background(), providers.CheckRequest{URN: urn, News: tt.news})
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.failures, resp.Failures); diff != "" {
				t.Errorf("failures (-want +got):\n%s", diff)
			}
			if tt.failures == nil {
				if diff := cmp.Diff(tt.inputs, resp.Inputs); diff != "" {
					t.Errorf("inputs (-want +got):\n%s", diff)
				}
			}
		})
	}
}

// Diff: a change of a field tagged replace replaces, another updates;
// without UpdateF every change replaces.
func TestTypedDiff(t *testing.T) {
	urn := resource.NewURN("dev", "p", "", noteType, "n")
	olds := noteInputs("a", "b")
	diff := func(p providers.Provider, news resource.PropertyMap) resource.DiffResult {
		t.Helper()
		d, err := p.Diff(context.Background(), providers.DiffRequest{URN: urn, ID: "x", OldInputs: olds, NewInputs: news})
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	p := newNotebook().provider()
	if d := diff(p, noteInputs("a", "b")); d.Changes != resource.DiffNone {
		t.Errorf("no change: %+v", d)
	}
	if d := diff(p, noteInputs("a", "c")); d.Replace() || d.Changes != resource.DiffSome {
		t.Errorf("body change: %+v, want an update", d)
	}
	if d := diff(p, noteInputs("z", "b")); !d.Replace() || !d.DetailedDiff["title"].Kind.IsReplace() {
		t.Errorf("title change: %+v, want a replacement", d)
	}
	p.UpdateF = nil
	if d := diff(p, noteInputs("a", "c")); !d.Replace() {
		t.Errorf("body change without UpdateF: %+v, want a replacement", d)
	}
}

// Outputs echoing a secret input stay secret, and fields tagged secret are
// secret; in a preview CreateF is not called and the computed outputs are
// unknown.
func TestTypedCreate(t *testing.T) {
	b := newNotebook()
	p := b.provider()
	urn := resource.NewURN("dev", "p", "", noteType, "n")
	in := resource.PropertyMap{"title": str("a"), "body": resource.NewSecret(str("x y"))}
	resp, err := p.Create(context.Background(), providers.CreateRequest{URN: urn, Inputs: in})
	if err != nil {
		t.Fatal(err)
	}
	want := resource.PropertyMap{
		"title": str("a"), "body": resource.NewSecret(str("x y")),
		"words": resource.NewNumber(2), "hash": resource.NewSecret(str("3")),
	}
	if diff := cmp.Diff(want, resp.Outputs); diff != "" {
		t.Errorf("outputs (-want +got):\n%s", diff)
	}
	pre, err := p.Create(context.Background(), providers.CreateRequest{URN: urn, Inputs: noteInputs("b", "c"), Preview: true})
	if err != nil {
		t.Fatal(err)
	}
	if !pre.Outputs["words"].IsUnknown() || !pre.Outputs["title"].DeepEquals(str("b")) || b.count() != 1 {
		t.Errorf("preview outputs %v, %d notes; want the inputs, words unknown, nothing created", pre.Outputs, b.count())
	}
}

// ByType routes by the URN's type and names the types it serves.
func TestByType(t *testing.T) {
	p := providers.ByType(map[string]providers.Provider{noteType: newNotebook().provider()})
	_, err := p.Check(context.Background(), providers.CheckRequest{URN: resource.NewURN("dev", "p", "", "book:index:Shelf", "s")})
	if err == nil || !strings.Contains(err.Error(), `no resource type "book:index:Shelf" (it serves book:index:Note)`) {
		t.Errorf("error %v", err)
	}
}
