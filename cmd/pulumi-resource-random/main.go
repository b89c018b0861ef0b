// Command pulumi-resource-random is groundwork's built-in random provider
// (strings, integers, UUIDs, pets; see package providers/random) as a
// provider plugin that any engine speaking the Pulumi provider protocol can
// launch. It stands in for pulumi-random 4.x, serving its types, and so
// reports that version (random.PulumiVersion), as its schema does. It
// prints its port on stdout and serves until the engine cancels it or it
// gets SIGTERM.
package main

import (
	"github.com/groundwork-iac/groundwork/plugin/server"
	"github.com/groundwork-iac/groundwork/providers/random"
)

func main() {
	server.Main(random.New(), server.Options{Name: random.Package, Version: random.PulumiVersion})
}
