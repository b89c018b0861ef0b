// Package providers defines what a resource provider is to the engine, and
// the Registry that finds, configures and shuts providers down.
//
// # Providers
//
// A Provider manages the lifecycle of custom resources: Check validates
// inputs, Diff compares recorded state with new inputs, Create, Read,
// Update and Delete act on the physical resource. Each method takes a
// context and a request struct and returns a response struct.
//
// Everything else a provider may do is a small optional interface:
// Configurer (CheckConfig, DiffConfig, Configure), Parameterizer,
// SchemaProvider, Constructor, Invoker, StreamInvoker, Caller, Canceler and
// Closer. Each documents its fallback for providers without it.
//
// # Detecting an ability: call it
//
// Wrappers stand between the engine and most providers — Recover, the
// instances the Registry hands out, Func, and the gRPC plugin adapter — and
// a wrapper cannot know in advance what the provider behind it can do. So
// every wrapper implements every optional interface and answers an error
// wrapping ErrNotImplemented where the provider lacks the ability. The rule
// for callers is therefore: an ability is missing when the call fails with
// errors.Is(err, ErrNotImplemented), never "when the type assertion fails".
// The package functions CheckConfig, DiffConfig, Configure, Parameterize,
// GetSchema, Construct, Invoke, StreamInvoke, Call, SignalCancellation and
// Close apply that rule and each ability's fallback; engine code calls
// them rather than asserting types.
//
// # Writing a provider
//
// Typed builds the provider of one resource type from functions over Go
// structs, one for the inputs and one for the outputs: it checks the
// inputs against the struct, decodes requests and encodes answers, and
// keeps secrets secret, so the functions see no property maps. ByType
// serves several resource types as one provider:
//
//	type entryInputs struct {
//		Key   string `prop:"key,replace"` // a new key replaces the entry
//		Value string `prop:"value"`
//	}
//	type entryOutputs struct {
//		entryInputs
//		Path string `prop:"path"`
//	}
//	p := providers.ByType(map[string]providers.Provider{
//		"kv:index:Entry": &providers.Typed[entryInputs, entryOutputs]{
//			CreateF: func(ctx context.Context, req providers.TypedCreate[entryInputs]) (resource.ID, entryOutputs, error) {
//				path, err := write(req.Inputs.Key, req.Inputs.Value)
//				return resource.ID(req.Inputs.Key), entryOutputs{req.Inputs, path}, err
//			},
//		},
//	})
//
// Func builds a provider from functions over property maps, with sensible
// defaults for the ones left nil; it is the layer below Typed, for
// providers that handle values no struct describes. The providertest
// subpackage is a conformance suite any Provider runs against itself, and
// holds an in-memory fake backend.
//
// # Provider resources and references
//
// Providers are themselves resources, of type "pulumi:providers:<package>".
// Their inputs are the provider's configuration (plus the reserved keys
// VersionKey, PluginDownloadURLKey, ParameterizationKey and InternalKey).
// A custom resource names the provider instance that manages it by a Reference, the
// provider resource's URN and ID ("<URN>::<ID>"); during a preview a
// provider resource not yet created has the ID UnknownID. A resource whose
// Reference changes must be replaced. A resource that names no provider is
// managed by its package's default provider, named by DefaultProviderName.
//
// # Built-in providers and plugins of one package
//
// A package may have both a provider the host registers (a built-in, such
// as random) and a plugin the Resolver finds (pulumi-resource-random in a
// plugin folder). Which serves a resource that names no provider:
//
//   - The built-in, when its version qualifies (Lookup) and it serves the
//     resource's type: a built-in that declares its types (Tokens) serves
//     only those.
//   - The plugin, when the version asked for is one only the plugin
//     satisfies (another major version, or newer than the built-in), or
//     when the built-in does not serve the type. ChooseVersion then pins
//     the default provider to the plugin's version ("default_4_18_0"), so
//     that later runs, which load it from the state, start the plugin
//     again.
//
// A built-in registered with ClaimMajor stands in for a plugin's whole
// major line: it qualifies for every version of its major, newer than its
// own included, but after any plugin that qualifies without the claim.
// A registry made with PreferPlugins(pkg) passes pkg's built-ins over:
// only a plugin serves it, and without one the lookup fails with a
// *NoFactoryError that names the command installing it.
//
// A plugin at exactly the built-in's version cannot stand in for it: the
// registration fails, saying so. A resource with an explicit provider
// gets that provider's package version by the same rules, without the
// type check.
//
// # The Registry
//
// The Registry is a value a host builds; there is no global one. It holds:
//
//   - Factories by package and semantic version. Lookup picks the newest
//     factory with the version's major that is not older than it,
//     preferring those the host registered to plugins. A Resolver option
//     finds plugins for what is not registered, and Parameterize records
//     packages that a plugin produces when parameterized (a generic
//     bridge becoming "aws", say).
//   - Live instances by Reference, returned by Get. Load records the
//     provider resources of a previous snapshot; their instances start on
//     first use. A renamed provider resource answers to its old references
//     too (Alias).
//   - The provider resources' lifecycle: the Registry is the Provider of
//     provider resources. Check runs the package's CheckConfig and Diff its
//     DiffConfig (on an unconfigured instance kept per package version);
//     Create and Update start an instance, Configure it and record it under
//     the resource's Reference; Delete shuts it down and forgets it.
//
// Instances obey the provider lifecycle: started by a factory, configured
// once, used, then shut down with SignalCancellation and Close. The Registry
// enforces it — a resource operation on an instance that is not configured
// or is closed fails with a *LifecycleError — and Registry.Close shuts every
// instance down, signalling all of them before closing any.
//
// In a preview, a provider whose configuration has unknown values (it
// depends on resources not yet created) is started but not configured; its
// instance answers what it can without the provider and reports the rest as
// unknown, so the preview goes on (see Registry.Get).
//
// Panics in providers never reach the engine: Recover, and every instance
// the Registry starts, turn them into a *PanicError naming the provider,
// the method and the resource.
package providers
