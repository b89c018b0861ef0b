// Package infra_test shows how to test an infrastructure program with
// groundwork: deploy it in-process against a fake provider and an
// in-memory store (enginetest), then assert on the steps the engine took,
// the calls the provider received and the state left behind. Change the
// program's inputs and deploy again to test updates, replacements and
// deletions; no cloud account and no CLI are involved.
package infra_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/groundwork-iac/groundwork/display"
	"github.com/groundwork-iac/groundwork/engine"
	"github.com/groundwork-iac/groundwork/enginetest"
)

// Settings are the inputs of the program under test.
type Settings struct {
	Region string
	Size   string
	Cache  bool
}

// The resource types of the program, and how the program declares them:
// the arguments (Outputs, so that one resource's output can be another's
// input) and the outputs it reads. In your code base these live with the
// program, or come from the provider's package.
const (
	bucketType = "cloud:storage:Bucket"
	serverType = "cloud:compute:Server"
	cacheType  = "cloud:compute:Cache"
)

type BucketArgs struct {
	Region engine.Output[string] `prop:"region"`
}

type ServerArgs struct {
	Region engine.Output[string] `prop:"region"`
	Size   engine.Output[string] `prop:"size"`
	Assets engine.Output[string] `prop:"assets"`
}

type CacheArgs struct {
	Backend engine.Output[string] `prop:"backend"`
}

// Thing is what the program reads of each: where it is.
type Thing struct {
	*engine.Resource
	URL engine.Output[string] `prop:"url"`
}

// webApp is the program under test: in your code base it is the function
// your deployment tool runs. A bucket, a server that uses it, and an
// optional cache in front of the server.
func webApp(s Settings) engine.Program {
	return func(ctx *engine.Context) error {
		bucket := engine.NewResource[Thing](ctx, bucketType, "assets", BucketArgs{Region: engine.Val(s.Region)})
		server := engine.NewResource[Thing](ctx, serverType, "web", ServerArgs{
			Region: engine.Val(s.Region),
			Size:   engine.Val(s.Size),
			Assets: bucket.URL,
		})
		if s.Cache {
			engine.NewResource[Thing](ctx, cacheType, "cache", CacheArgs{Backend: server.URL})
		}
		ctx.Export("url", server.URL)
		return nil
	}
}

var defaults = Settings{Region: "eu-west", Size: "small", Cache: true}

// setup returns a test stack whose "cloud" package is served by a fake,
// already deployed with the default settings. On failure the test log
// shows the last operation as the display package renders it.
func setup(t *testing.T) (*enginetest.Env, *fakeCloud) {
	t.Helper()
	env := enginetest.New(t)
	cloud := newFakeCloud()
	env.Provider("cloud", "", cloud.provider())
	t.Cleanup(func() {
		if t.Failed() {
			var b strings.Builder
			r := display.New(&b, display.Options{Mode: display.ModePlain, ShowDiff: true})
			for _, e := range env.Events() {
				r.Event(e)
			}
			r.Close()
			t.Logf("the last operation:\n%s", b.String())
		}
	})
	if _, err := env.Up(webApp(defaults)); err != nil {
		t.Fatalf("first deployment: %v", err)
	}
	cloud.Calls() // forget the first deployment's calls
	return env, cloud
}

// sorted returns enginetest.Ops sorted: independent resources deploy in
// parallel, so their steps complete in any order.
func sorted(res *engine.Result) []string {
	ops := enginetest.Ops(res)
	slices.Sort(ops)
	return ops
}

func TestCreate(t *testing.T) {
	env := enginetest.New(t)
	cloud := newFakeCloud()
	env.Provider("cloud", "", cloud.provider())

	res, err := env.Up(webApp(defaults))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"create assets", "create cache", "create web"}, sorted(res)); diff != "" {
		t.Errorf("steps (-want +got):\n%s", diff)
	}
	// The state records what the provider returned...
	web := env.Resource(env.URN(serverType, "web"))
	if web == nil || web.ID == "" {
		t.Fatalf("web recorded as %+v", web)
	}
	// ...including the output of the bucket it was given as an input.
	assets := env.Resource(env.URN(bucketType, "assets"))
	if got, want := web.Inputs["assets"], assets.Outputs["url"]; !got.DeepEquals(want) {
		t.Errorf("web's assets input = %v, want the bucket's url %v", got, want)
	}
	// Stack outputs decode into a struct, as any property map does.
	var out struct {
		URL string `prop:"url"`
	}
	if err := res.Outputs.Decode(&out); err != nil || out.URL != "https://"+string(web.ID)+".example.com" {
		t.Errorf("stack output url = %q (%v)", out.URL, err)
	}
	if cloud.Live() != 3 {
		t.Errorf("%d things in the cloud, want 3", cloud.Live())
	}
}

func TestNoChanges(t *testing.T) {
	env, cloud := setup(t)
	// ExpectNoChanges turns any change into an error: the guard a CI job
	// uses to check that the deployed stack matches the program.
	res, err := env.Up(webApp(defaults), engine.ExpectNoChanges())
	if err != nil {
		t.Fatal(err)
	}
	if res.HasChanges() {
		t.Errorf("the same program changed something: %v", enginetest.Ops(res))
	}
	if calls := cloud.Calls(); len(calls) != 0 {
		t.Errorf("provider calls %v, want none", calls)
	}
}

func TestResizeUpdatesInPlace(t *testing.T) {
	env, cloud := setup(t)
	before := env.Resource(env.URN(serverType, "web")).ID

	bigger := defaults
	bigger.Size = "large"
	// A preview says what would happen and touches nothing. It cannot
	// know the server's outputs after the update, so the cache, which
	// takes the server's url, may change too: the preview says so.
	plan, err := env.Preview(webApp(bigger))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"same assets", "update cache", "update web"}, sorted(plan)); diff != "" {
		t.Errorf("preview steps (-want +got):\n%s", diff)
	}
	if calls := cloud.Calls(); len(calls) != 0 {
		t.Fatalf("the preview called %v", calls)
	}

	// The update itself knows the url did not change: only the server
	// is updated.
	res, err := env.Up(webApp(bigger))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"update web"}, cloud.Calls()); diff != "" {
		t.Errorf("provider calls (-want +got):\n%s", diff)
	}
	web := env.Resource(env.URN(serverType, "web"))
	if web.ID != before || web.Outputs["size"].StringValue() != "large" {
		t.Errorf("web after the update: id %s (was %s), size %v", web.ID, before, web.Outputs["size"])
	}
	if !res.HasChanges() {
		t.Error("HasChanges = false after an update")
	}
}

func TestRegionChangeReplaces(t *testing.T) {
	env, cloud := setup(t)
	before := env.Resource(env.URN(serverType, "web")).ID

	moved := defaults
	moved.Region = "us-east"
	res, err := env.Up(webApp(moved))
	if err != nil {
		t.Fatal(err)
	}
	// A replacement is three steps: mark the old copy, create the new
	// one, delete the old one once nothing needs it. The cache takes the
	// server's new url: an update.
	want := []string{
		"create-replacement assets", "create-replacement web",
		"delete-replaced assets", "delete-replaced web",
		"replace assets", "replace web",
		"update cache",
	}
	if diff := cmp.Diff(want, sorted(res)); diff != "" {
		t.Errorf("steps (-want +got):\n%s", diff)
	}
	wantCalls := []string{"create assets", "create web", "delete assets", "delete web", "update cache"}
	if diff := cmp.Diff(wantCalls, cloud.Calls()); diff != "" {
		t.Errorf("provider calls (-want +got):\n%s", diff)
	}
	web := env.Resource(env.URN(serverType, "web"))
	if web.ID == before {
		t.Errorf("web kept its id %s through a replacement", before)
	}
	// Nothing is left over: one live record per resource, no pending
	// deletions, and the cloud holds exactly three things again.
	for _, s := range env.Snapshot().Resources {
		if s.Delete {
			t.Errorf("%s is still marked for deletion", s.URN)
		}
	}
	if cloud.Live() != 3 {
		t.Errorf("%d things in the cloud, want 3", cloud.Live())
	}
}

func TestRemovingAResourceDeletesIt(t *testing.T) {
	env, cloud := setup(t)
	noCache := defaults
	noCache.Cache = false
	if _, err := env.Up(webApp(noCache)); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"delete cache"}, cloud.Calls()); diff != "" {
		t.Errorf("provider calls (-want +got):\n%s", diff)
	}
	if env.Resource(env.URN(cacheType, "cache")) != nil {
		t.Error("the cache is still recorded")
	}
}

func TestDestroy(t *testing.T) {
	env, cloud := setup(t)
	res, err := env.Destroy()
	if err != nil {
		t.Fatal(err)
	}
	// Dependents go first: the cache before the server, the server
	// before its bucket.
	ops := enginetest.Ops(res)
	if want := []string{"delete cache", "delete web", "delete assets"}; !slices.Equal(ops, want) {
		t.Errorf("steps %v, want %v in that order", ops, want)
	}
	if n := len(env.Snapshot().Resources); n != 0 {
		t.Errorf("%d resources left in the state", n)
	}
	if cloud.Live() != 0 {
		t.Errorf("%d things left in the cloud", cloud.Live())
	}
}
