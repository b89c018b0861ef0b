// Command goprog is the Pulumi Go SDK program of package scenario, built
// as a binary that the interop suite runs through langhost.
package main

import (
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"

	"example.com/interopprog/scenario"
)

func main() {
	pulumi.Run(scenario.Run)
}
