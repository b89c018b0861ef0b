// Command pulumi-resource-command is groundwork's built-in command provider
// (commands run on create, update and delete; see package
// providers/command) as a provider plugin that any engine speaking the
// Pulumi provider protocol can launch. It prints its port on stdout and
// serves until the engine cancels it or it gets SIGTERM.
package main

import (
	"github.com/groundwork-iac/groundwork/plugin/server"
	"github.com/groundwork-iac/groundwork/providers/command"
)

func main() {
	server.Main(command.New(), server.Options{Name: command.Package, Version: command.Version})
}
