// Command pulumi-resource-local is groundwork's built-in local provider
// (files and directories; see package providers/local) as a provider
// plugin: any engine that speaks the Pulumi provider protocol, groundwork's
// plugin client or the Pulumi CLI, can launch it. It prints its port on
// stdout and serves until the engine cancels it or it gets SIGTERM.
package main

import (
	"github.com/groundwork-iac/groundwork/plugin/server"
	"github.com/groundwork-iac/groundwork/providers/local"
)

func main() {
	server.Main(local.New(), server.Options{Name: local.Package, Version: local.Version})
}
