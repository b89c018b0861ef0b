// Package monitor is the single entry point of a running program.
//
// Every request a program makes — register a resource, register a
// component's outputs, read an external resource, invoke a provider
// function, call a component method — goes through a Monitor, whether the
// program runs in-process (package program's API) or in another
// process over gRPC. The Monitor resolves providers (explicit references,
// or the default provider of a package and version, registered on first
// need from the stack configuration keys of that package), sends remote
// components to their provider's Construct, and hands everything else to
// its Deployer, which the engine implements.
//
// An asynchronous registration that needs a default provider still being
// registered does not wait on a goroutine: it is parked on that provider
// and continued, in arrival order, by the goroutine registering it. A
// program that registers thousands of resources before its first
// provider is ready thus costs no goroutines and reaches the engine in
// program order.
package monitor
