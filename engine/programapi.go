package engine

import (
	"github.com/groundwork-iac/groundwork/program"
	"github.com/groundwork-iac/groundwork/resource"
)

// The program API lives in package program. The names below keep the
// programs written against package engine compiling unchanged: each type
// is an alias of program's (the same type, so that values pass between
// the two freely) and each function forwards to program's.

// Props is program.Props: the untyped inputs of a registration. It is kept in engine for
// compatibility.
//
// Deprecated: use program.Props.
type Props = program.Props

// Context is program.Context: a running in-process program's view of the engine. It is kept in engine for
// compatibility.
//
// Deprecated: use program.Context.
type Context = program.Context

// Resource is program.Resource: the handle of a registration. It is kept in engine for
// compatibility.
//
// Deprecated: use program.Resource.
type Resource = program.Resource

// Handle is program.Handle: what stands for a registered resource. It is kept in engine for
// compatibility.
//
// Deprecated: use program.Handle.
type Handle = program.Handle

// ResourceOption is program.ResourceOption: a resource option of a registration. It is kept in engine for
// compatibility.
//
// Deprecated: use program.ResourceOption.
type ResourceOption = program.ResourceOption

// Hook is program.Hook: a resource hook. It is kept in engine for
// compatibility.
//
// Deprecated: use program.Hook.
type Hook = program.Hook

// ArgumentError is program.ArgumentError: the error of a registration given a bad argument. It is kept in engine for
// compatibility.
//
// Deprecated: use program.ArgumentError.
type ArgumentError = program.ArgumentError

// DependencyError is program.DependencyError: the error of a registration whose dependency failed. It is kept in engine for
// compatibility.
//
// Deprecated: use program.DependencyError.
type DependencyError = program.DependencyError

// MissingOutputError is program.MissingOutputError: the error of using an output the provider did not return. It is kept in engine for
// compatibility.
//
// Deprecated: use program.MissingOutputError.
type MissingOutputError = program.MissingOutputError

// PanicError is program.PanicError: a panic in the program's code, as an error. It is kept in engine for
// compatibility.
//
// Deprecated: use program.PanicError.
type PanicError = program.PanicError

// CycleError is program.CycleError: a wait that could never end, refused. It is kept in engine for
// compatibility.
//
// Deprecated: use program.CycleError.
type CycleError = program.CycleError

// Output is program.Output: a value that becomes known during the
// operation. It is kept in engine for compatibility.
//
// Deprecated: use program.Output.
type Output[T any] = program.Output[T]

// ErrUnknown is program.ErrUnknown, kept in engine for compatibility.
//
// Deprecated: use program.ErrUnknown.
var ErrUnknown = program.ErrUnknown

// Val returns an Output whose value is v, known at once: it calls program.Val, and is kept in engine for
// compatibility.
//
// Deprecated: use program.Val.
func Val[T any](v T) Output[T] {
	return program.Val[T](v)
}

// Secret returns o marked secret: it calls program.Secret, and is kept in engine for
// compatibility.
//
// Deprecated: use program.Secret.
func Secret[T any](o Output[T]) Output[T] {
	return program.Secret[T](o)
}

// OutputOf returns the typed future value of an output of a resource: it calls program.OutputOf, and is kept in engine for
// compatibility.
//
// Deprecated: use program.OutputOf.
func OutputOf[T any](h Handle, key string) Output[T] {
	return program.OutputOf[T](h, key)
}

// As decodes an untyped Output into T: it calls program.As, and is kept in engine for
// compatibility.
//
// Deprecated: use program.As.
func As[T any](o Output[resource.PropertyValue]) Output[T] {
	return program.As[T](o)
}

// Apply returns an Output whose value is fn of o's value: it calls program.Apply, and is kept in engine for
// compatibility.
//
// Deprecated: use program.Apply.
func Apply[T, U any](o Output[T], fn func(T) U) Output[U] {
	return program.Apply(o, fn)
}

// ApplyErr is Apply for a function that may fail: it calls program.ApplyErr, and is kept in engine for
// compatibility.
//
// Deprecated: use program.ApplyErr.
func ApplyErr[T, U any](o Output[T], fn func(T) (U, error)) Output[U] {
	return program.ApplyErr(o, fn)
}

// Apply2 is Apply over two outputs: it calls program.Apply2, and is kept in engine for
// compatibility.
//
// Deprecated: use program.Apply2.
func Apply2[A, B, U any](a Output[A], b Output[B], fn func(A, B) U) Output[U] {
	return program.Apply2(a, b, fn)
}

// Apply3 is Apply over three outputs: it calls program.Apply3, and is kept in engine for
// compatibility.
//
// Deprecated: use program.Apply3.
func Apply3[A, B, C, U any](a Output[A], b Output[B], c Output[C], fn func(A, B, C) U) Output[U] {
	return program.Apply3(a, b, c, fn)
}

// All returns an Output of the values of outs: it calls program.All, and is kept in engine for
// compatibility.
//
// Deprecated: use program.All.
func All[T any](outs ...Output[T]) Output[[]T] {
	return program.All(outs...)
}

// Sprintf formats with Outputs among its arguments: it calls program.Sprintf, and is kept in engine for
// compatibility.
//
// Deprecated: use program.Sprintf.
func Sprintf(format string, args ...any) Output[string] {
	return program.Sprintf(format, args...)
}

// StackOutput returns an output of the stack a StackReference reads: it calls program.StackOutput, and is kept in engine for
// compatibility.
//
// Deprecated: use program.StackOutput.
func StackOutput(ref *Resource, key string) Output[resource.PropertyValue] {
	return program.StackOutput(ref, key)
}

// NewResource declares a custom resource with typed inputs and outputs: it calls program.NewResource, and is kept in engine for
// compatibility.
//
// Deprecated: use program.NewResource.
func NewResource[R any, P interface {
	*R
	Handle
}](ctx *Context, typ, name string, args any, opts ...ResourceOption) *R {
	return program.NewResource[R, P](ctx, typ, name, args, opts...)
}

// ReadResource reads an existing resource, with typed outputs: it calls program.ReadResource, and is kept in engine for
// compatibility.
//
// Deprecated: use program.ReadResource.
func ReadResource[R any, P interface {
	*R
	Handle
}](ctx *Context, typ, name string, id resource.ID, args any, opts ...ResourceOption) *R {
	return program.ReadResource[R, P](ctx, typ, name, id, args, opts...)
}

// Parent makes r the parent of the resource: it calls program.Parent, and is kept in engine for
// compatibility.
//
// Deprecated: use program.Parent.
func Parent(r Handle) ResourceOption {
	return program.Parent(r)
}

// DependsOn adds explicit dependencies: it calls program.DependsOn, and is kept in engine for
// compatibility.
//
// Deprecated: use program.DependsOn.
func DependsOn(rs ...Handle) ResourceOption {
	return program.DependsOn(rs...)
}

// Provider makes the resource use an explicit provider: it calls program.Provider, and is kept in engine for
// compatibility.
//
// Deprecated: use program.Provider.
func Provider(p Handle) ResourceOption {
	return program.Provider(p)
}

// Protect keeps the resource from being deleted or replaced: it calls program.Protect, and is kept in engine for
// compatibility.
//
// Deprecated: use program.Protect.
func Protect() ResourceOption {
	return program.Protect()
}

// DeleteBeforeReplace deletes the old resource before creating its replacement: it calls program.DeleteBeforeReplace, and is kept in engine for
// compatibility.
//
// Deprecated: use program.DeleteBeforeReplace.
func DeleteBeforeReplace() ResourceOption {
	return program.DeleteBeforeReplace()
}

// RetainOnDelete removes the resource from the state without deleting it: it calls program.RetainOnDelete, and is kept in engine for
// compatibility.
//
// Deprecated: use program.RetainOnDelete.
func RetainOnDelete() ResourceOption {
	return program.RetainOnDelete()
}

// DeletedWith skips the resource's delete when r is deleted: it calls program.DeletedWith, and is kept in engine for
// compatibility.
//
// Deprecated: use program.DeletedWith.
func DeletedWith(r Handle) ResourceOption {
	return program.DeletedWith(r)
}

// IgnoreChanges ignores changes of property paths: it calls program.IgnoreChanges, and is kept in engine for
// compatibility.
//
// Deprecated: use program.IgnoreChanges.
func IgnoreChanges(paths ...string) ResourceOption {
	return program.IgnoreChanges(paths...)
}

// ReplaceOnChanges replaces the resource when property paths change: it calls program.ReplaceOnChanges, and is kept in engine for
// compatibility.
//
// Deprecated: use program.ReplaceOnChanges.
func ReplaceOnChanges(paths ...string) ResourceOption {
	return program.ReplaceOnChanges(paths...)
}

// AdditionalSecretOutputs names outputs to treat as secret: it calls program.AdditionalSecretOutputs, and is kept in engine for
// compatibility.
//
// Deprecated: use program.AdditionalSecretOutputs.
func AdditionalSecretOutputs(keys ...string) ResourceOption {
	return program.AdditionalSecretOutputs(keys...)
}

// Aliases names what the resource was called before: it calls program.Aliases, and is kept in engine for
// compatibility.
//
// Deprecated: use program.Aliases.
func Aliases(as ...resource.Alias) ResourceOption {
	return program.Aliases(as...)
}

// CustomTimeouts bounds how long the provider may take: it calls program.CustomTimeouts, and is kept in engine for
// compatibility.
//
// Deprecated: use program.CustomTimeouts.
func CustomTimeouts(t resource.CustomTimeouts) ResourceOption {
	return program.CustomTimeouts(t)
}

// Import adopts an existing physical resource: it calls program.Import, and is kept in engine for
// compatibility.
//
// Deprecated: use program.Import.
func Import(id resource.ID) ResourceOption {
	return program.Import(id)
}

// Version pins the version of the default provider: it calls program.Version, and is kept in engine for
// compatibility.
//
// Deprecated: use program.Version.
func Version(v string) ResourceOption {
	return program.Version(v)
}

// Remote marks a component implemented by its provider: it calls program.Remote, and is kept in engine for
// compatibility.
//
// Deprecated: use program.Remote.
func Remote() ResourceOption {
	return program.Remote()
}

// ResourceHooks binds resource hooks of one kind: it calls program.ResourceHooks, and is kept in engine for
// compatibility.
//
// Deprecated: use program.ResourceHooks.
func ResourceHooks(kind resource.HookKind, hooks ...*Hook) ResourceOption {
	return program.ResourceHooks(kind, hooks...)
}
