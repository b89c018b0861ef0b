// Package providertest helps test providers and the code that drives them.
//
// Run is a conformance suite: every Provider implementation — a Func, a
// built-in provider, a gRPC plugin seen through its adapter, an instance
// handed out by a providers.Registry — runs it against itself with a
// Harness that says how to get the provider and which inputs to use.
//
// Memory is an in-memory fake cloud with a provider in front of it, for
// tests of the engine and its parts that need real-looking resources
// without touching anything real:
//
//	mem := providertest.NewMemory("name") // changing "name" forces a replacement
//	providertest.Run(t, providertest.Harness{
//		New:    func(*testing.T) providers.Provider { return mem.Provider() },
//		Type:   "mem:index:Thing",
//		Inputs: resource.PropertyMap{"name": resource.NewString("a")},
//		Count:  mem.Count,
//	})
package providertest
