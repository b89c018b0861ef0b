package postgres_test

import (
	"context"
	"fmt"
	"log"
	"os"

	"github.com/groundwork-iac/groundwork/state"
	"github.com/groundwork-iac/groundwork/state/postgres"
)

// Open a store on a PostgreSQL server, in a schema of the team's choosing,
// with locks that lapse 15 seconds after their holder stops renewing them.
func ExampleOpen() {
	ctx := context.Background()
	store, err := postgres.Open(ctx, "postgres://deployer@db.internal:5432/infra?sslmode=require&schema=platform&lease=15s",
		state.WithSecrets(state.PassphraseSecrets(os.Getenv("DEPLOY_PASSPHRASE"))))
	if err != nil {
		log.Fatal(err)
	}
	defer store.Close()
	stacks, err := store.List(ctx)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(stacks)
}
