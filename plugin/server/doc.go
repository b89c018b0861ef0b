// Package server turns any providers.Provider into a provider plugin: a
// program that serves the Pulumi provider gRPC protocol, which groundwork's
// plugin client and the Pulumi CLI can both launch.
//
// A plugin binary's main is one line:
//
//	func main() { server.Main(myprovider.New(), server.Options{Name: "my", Version: "1.0.0"}) }
//
// # On the wire
//
// Main listens on a free port of 127.0.0.1 and prints the port number, on
// a line of its own, on stdout: that is how the engine that started it
// learns where to connect. It ignores its arguments (the engine passes
// flags and, last, the engine's address). Each RPC of the ResourceProvider
// service is converted with package wire and handed to the provider; the
// optional abilities are reached through the providers package functions,
// so a provider without one gets its documented fallback (CheckConfig
// accepts, DiffConfig compares keys, Configure is a no-op) or answers
// codes.Unimplemented (an error wrapping providers.ErrNotImplemented maps
// to it too). A *providers.InitError becomes an ErrorResourceInitFailed
// status detail, so the engine records a resource that was created but
// failed to initialize; a panic in the provider is an error, not a crash.
// Configure accepts structured args or, from older engines, the legacy
// "<package>:config:<key>" strings, and records whether the engine accepts
// secrets and resource references in answers.
//
// Construct and Call receive the address of the engine's resource monitor;
// the provider's Host registers the component's children there.
//
// # Shutdown
//
// The server stops when the engine calls Cancel (after the provider's
// SignalCancellation) or when the process gets SIGTERM or SIGINT: it
// refuses new calls, lets those in flight finish within
// Options.StopTimeout, closes the provider, and Main exits. A call or a
// Close that ignores its context does not keep the process alive: after
// the stop timeout its context is cancelled, after another it is given
// up on, and Main exits with status 1 naming it. Serve is the
// same server on a listener of the caller's, stopped by its context; tests
// use it to serve a provider in-process.
package server
