// Package interop runs groundwork against software nobody here wrote: real
// provider plugins built with Pulumi's frameworks (pulumi-go-provider, the
// Terraform bridge, the Go SDK's component provider), started as separate
// processes and driven through the engine's public API, and real Pulumi
// SDK programs (Go and Node.js, under programs/) run through langhost and,
// for those written with pulumi-command's SDKs, through the gw CLI.
//
// It is a module of its own so that its heavy dependencies
// (pulumi-go-provider, the bridge and what they pull in) stay out of the
// library's go.mod. Its tests build each plugin from source under plugins/
// (each a module of its own, pinning its framework's exact version) into
// a temporary plugin folder, run whole lifecycles through engine.Engine,
// and check after each test that no process they started, directly or
// not, is left running. See TESTING.md at the repository root.
package interop
