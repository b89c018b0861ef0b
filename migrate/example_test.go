package migrate_test

import (
	"context"
	"fmt"

	"github.com/groundwork-iac/groundwork/migrate"
	"github.com/groundwork-iac/groundwork/state"
	"github.com/groundwork-iac/groundwork/state/memstore"
)

// A stack exported with `pulumi stack export --file dev.json` becomes a
// groundwork stack of the same name; with secrets sealed by Pulumi's
// passphrase manager, FromOptions.Passphrase opens them.
func ExampleImportStack() {
	exported := []byte(`{"version": 3, "deployment": {
	  "manifest": {"time": "2025-01-01T00:00:00Z", "magic": "", "version": "v3.220.0"},
	  "resources": [
	    {"urn": "urn:pulumi:dev::site::pulumi:pulumi:Stack::site-dev", "custom": false, "type": "pulumi:pulumi:Stack",
	     "outputs": {"url": "http://localhost"}},
	    {"urn": "urn:pulumi:dev::site::pulumi:providers:random::default", "custom": true, "id": "4f1c",
	     "type": "pulumi:providers:random", "parent": "urn:pulumi:dev::site::pulumi:pulumi:Stack::site-dev"},
	    {"urn": "urn:pulumi:dev::site::random:index/randomPet:RandomPet::mascot", "custom": true, "id": "brave-otter",
	     "type": "random:index/randomPet:RandomPet", "parent": "urn:pulumi:dev::site::pulumi:pulumi:Stack::site-dev",
	     "provider": "urn:pulumi:dev::site::pulumi:providers:random::default::4f1c",
	     "inputs": {"length": 2}, "outputs": {"id": "brave-otter", "length": 2}}
	  ]}}`)
	ctx := context.Background()
	store := memstore.New()
	if _, err := migrate.ImportStack(ctx, store, dev, exported, migrate.FromOptions{}); err != nil {
		fmt.Println(err)
		return
	}
	snap, _ := store.Load(ctx, dev)
	for _, r := range snap.Resources {
		fmt.Printf("%s id=%q\n", r.URN.Name(), r.ID)
	}
	// Output:
	// site-dev id=""
	// default id="4f1c"
	// mascot id="brave-otter"
}

// dev is the stack the examples work on: project site's stack dev.
var dev = state.StackID{Project: "site", Stack: "dev"}
