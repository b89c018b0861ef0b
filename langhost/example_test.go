package langhost_test

import (
	"context"
	"fmt"

	"github.com/groundwork-iac/groundwork/engine"
	"github.com/groundwork-iac/groundwork/langhost"
	"github.com/groundwork-iac/groundwork/state/memstore"
)

// A built Pulumi Go program deploys like an in-process one: its Run
// method is the engine.Program.
func ExampleCommand() {
	eng, err := engine.New(engine.Config{Project: "infra", Stack: "dev", Store: memstore.New()})
	if err != nil {
		panic(err)
	}
	prog := langhost.Command("./bin/infra")
	prog.Dir = "./infra"
	res, err := eng.Up(context.Background(), prog.Run)
	if err != nil {
		fmt.Println("error:", err)
		return
	}
	fmt.Println(res.Outputs)
}

// A Node.js program runs from its folder, where npm installed
// @pulumi/pulumi; "." is the entry point its package.json names.
func ExampleNode() {
	eng, err := engine.New(engine.Config{Project: "web", Stack: "dev", Store: memstore.New()})
	if err != nil {
		panic(err)
	}
	prog := langhost.Node(".")
	prog.Dir = "./web"
	if _, err := eng.Preview(context.Background(), prog.Run); err != nil {
		fmt.Println("error:", err)
	}
}

// A program's failure names its exit status and quotes its stderr.
func ExampleProgramError() {
	eng, err := engine.New(engine.Config{Project: "demo", Stack: "dev", Store: memstore.New()})
	if err != nil {
		panic(err)
	}
	_, err = eng.Preview(context.Background(), langhost.Command("sh", "-c", "echo 'no credentials' >&2; exit 2").Run)
	fmt.Println(err)
	// Output:
	// the program failed: "sh -c echo 'no credentials' >&2; exit 2" exited with status 2:
	//   no credentials
}
