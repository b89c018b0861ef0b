package engine

import "github.com/groundwork-iac/groundwork/resource"

// Option adjusts one operation.
type Option func(*options)

type options struct {
	parallelism     int
	continueOnError bool
	expectNoChanges bool
	replaceTargets  []resource.URN
	inputsOnlyDiff  bool
}

// Parallelism bounds how many steps run at once; 0 (the default) means no
// bound beyond what the dependency graph imposes.
func Parallelism(n int) Option { return func(o *options) { o.parallelism = n } }

// ContinueOnError keeps going after a step fails: only the resources that
// depend on the failed one are skipped. Without it the first failure stops
// new steps from starting (steps in flight finish and are recorded).
func ContinueOnError() Option { return func(o *options) { o.continueOnError = true } }

// ExpectNoChanges makes the operation fail, changing nothing, if any
// resource would be created, updated, replaced or deleted.
func ExpectNoChanges() Option { return func(o *options) { o.expectNoChanges = true } }

// ReplaceTargets forces the named resources to be replaced whatever their
// diff says.
func ReplaceTargets(urns ...resource.URN) Option {
	return func(o *options) { o.replaceTargets = append(o.replaceTargets, urns...) }
}

// InputsOnlyDiff decides updates by comparing old and new inputs, without
// asking providers to diff.
func InputsOnlyDiff() Option { return func(o *options) { o.inputsOnlyDiff = true } }
