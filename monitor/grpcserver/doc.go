// Package grpcserver serves a deployment's Monitor over the Pulumi gRPC
// protocol, so that a program running in another process — a Pulumi SDK
// program in Go or Node.js, or a provider plugin constructing a component —
// registers resources exactly as an in-process program does.
//
// # One server per deployment
//
// Start listens on a free port of 127.0.0.1 and serves two services there:
// ResourceMonitor (the address an SDK reads from PULUMI_MONITOR) and Engine
// (PULUMI_ENGINE). Stop lets requests in flight finish, cuts them off
// after Config.StopTimeout, and returns once the serving goroutine has
// ended. Every request's context ends with the context given to Start, so
// that cancelling the operation ends the program's requests.
//
// # What each request becomes
//
// Every resource request goes to Config.Monitor (a *monitor.Monitor, or a
// wrapper around one), converted by package wire; no protobuf type goes
// further than this package.
//
//   - RegisterResource becomes a resource.Goal with every option the engine
//     supports: type, name, parent, custom, remote, inputs, protect,
//     dependencies and property dependencies, provider (or the entry of the
//     providers map for the resource's package), version or package
//     reference, delete-before-replace, ignore-changes, replace-on-changes,
//     additional secret outputs, alias specs and alias URNs (read as
//     Pulumi's engine reads them, legacy Node.js specs included; the
//     aliases children inherit from a renamed parent are derived by the
//     engine, not sent), import ID, custom timeouts, retain-on-delete and
//     deleted-with. It is answered
//     once the resource's step has completed, with the outputs marshaled as
//     the caller accepts them (acceptSecrets, acceptResources).
//   - RegisterResourceOutputs, ReadResource, Invoke and Call map one to one
//     onto the Monitor's methods. Invoke arguments that are secret are
//     passed as their plain values (functions take no secrets; the SDKs mark
//     the result secret themselves). The answer of pulumi:pulumi:getResource
//     keeps resource references whatever the caller accepts, as SDKs that
//     predate acceptResources expect.
//   - RegisterPackage is served when Config.Packages is set: a package with
//     a parameterization is produced by parameterizing its plugin, and the
//     reference it answers gives later requests that name it their version.
//   - SignalAndWaitForShutdown, the program saying it has finished
//     registering, answers when Config.Shutdown returns (at once without
//     it): the program stays up, serving its callbacks, meanwhile.
//
// # Transforms: calling back into the program
//
// An SDK program that registers a transform runs a Callbacks server of its
// own and names it, with a token, in a pulumirpc.Callback; the server calls
// it back over one connection per target, closed by Stop. Stack transforms
// (RegisterStackTransform) rewrite every registration that follows; a
// resource's own transforms (the request's transforms) rewrite it and its
// descendants, which run their own first, then their ancestors', nearest
// first, then the stack's, as with Pulumi's engine; those of a remote
// component wait for its provider to register the component. Each is given
// the inputs and options and answers new ones; the dependencies are then
// those of the answered dependsOn and of the output values among the inputs
// (a resource with transforms of its own hands its property dependencies
// over as output values). Invoke transforms (RegisterStackInvokeTransform)
// rewrite the arguments and options of every invoke that follows. A
// failing transform fails the registration or invoke.
//
// Resource hooks (RegisterResourceHook) go to Config.Hooks, each as a
// function that calls the program back with the resource's URN, ID, name,
// type and properties (secrets kept); the names a registration binds
// become its goal's Hooks. The engine decides when they run (engine.Hook).
//
// SupportsFeature answers true for "secrets", "resourceReferences",
// "outputValues", "aliasSpecs", "deletedWith", "transforms" and
// "invokeTransforms"; for "parameterization" when packages are served and
// "resourceHooks" when hooks are; false for everything else, notably
// "errorHooks" and "replaceWith" (the SDKs then refuse those options).
//
// The Engine service's Log goes to Config.Log; GetRootResource answers
// what SetRootResource recorded. A failed request answers a gRPC error
// whose message is the Monitor's error: the SDKs show it to the user. A
// registration whose failure the deployment has reported itself
// (monitor.Reported: its step failed, or the deployment is ending) answers
// UNAVAILABLE, on which the SDKs stop making requests without reporting
// it again — unless the operation goes on after errors
// (Config.ContinueOnError) and the failure is the outcome of the
// resource's step (monitor.StepOutcome): that registration is answered as
// the Pulumi engine answers it, with its URN, no outputs and the result
// FAIL (SKIP when a resource it needs failed), and the program goes on.
package grpcserver
