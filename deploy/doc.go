// Package deploy is the deployment loop's I/O: where a step or a call
// meets its provider. The loop itself (the goroutine that feeds the step
// generator its events, walks the steps it issues and records them) lives
// in package engine.
//
// Apply performs a step (stepgen.Step) and Ask answers a Check or Diff
// call (stepgen.Call). Both resolve providers through the
// providers.ProviderSource the host hands them; neither touches the generator, whose Done and Answer
// the host calls with what they return.
package deploy
