// Package pulumi is the provider of the "pulumi" package, which every
// deployment has built in: the engine serves it itself, without a plugin,
// and answers the resources and functions the Pulumi SDKs rely on.
//
//   - pulumi:pulumi:getResource (a function) returns what the running
//     deployment knows of a resource it registered or read: its URN, ID,
//     provider reference and outputs ("state"). The SDKs call it to
//     rehydrate a resource known only by its URN: the URN resource option,
//     resource references among outputs, the providers and the component
//     handed to a remote component's Construct and Call.
//   - pulumi:pulumi:StackReference (a resource, read by ID) holds the outputs
//     of another stack: "outputs", an object of the other stack's outputs,
//     and "secretOutputNames", the names of those that hold secrets, sorted.
//     Secret outputs stay secret. The SDKs read it with the other stack's
//     name as the ID and as the input "name"; a registration creates it the
//     same way (the form older SDKs used), and a change of name replaces
//     it. pulumi:pulumi:readStackOutputs (a function) returns the same
//     outputs without recording anything.
//   - pulumi:index:Stash (a resource) keeps the first value of its input
//     "input" as its output "output", and its latest as "input".
//   - Resources of type "pulumi:providers:pulumi" (the package's provider
//     resources, a default one normally) take any configuration, never
//     change, and are given a random ID when created.
//
// The provider knows the deployment through two small interfaces: Resources
// (what this run has registered or read so far), which the engine
// implements, and Stacks (the outputs of the other stacks of the state
// store), which StoreStacks implements over a state.Store. A stack
// reference's name reads as the SDKs write it (ParseStackReference).
package pulumi
