package program

import (
	"fmt"

	"github.com/groundwork-iac/groundwork/resource"
)

// ResourceOption sets a resource option on a registration.
type ResourceOption func(*resourceOptions)

type resourceOptions struct {
	parent              *Resource
	dependsOn           []*Resource
	provider            *Resource
	deletedWith         *Resource
	protect             bool
	deleteBeforeReplace bool
	retainOnDelete      bool
	ignoreChanges       []string
	replaceOnChanges    []string
	secretOutputs       []resource.PropertyKey
	aliases             []resource.Alias
	timeouts            resource.CustomTimeouts
	importID            resource.ID
	version             string
	remote              bool
	hooks               map[resource.HookKind][]*Hook
	// bad lists the options given a nil handle.
	bad []*ArgumentError
}

// check returns an error for the first option given a nil handle: an
// *ArgumentError naming r, or naming no resource when r is nil (the
// options of an invoke or a call).
func (o *resourceOptions) check(r *Resource) error {
	if len(o.bad) == 0 {
		return nil
	}
	e := *o.bad[0]
	if r == nil {
		return fmt.Errorf("%s %s", e.Argument, e.Reason)
	}
	e.Type, e.Name = r.typ, r.name
	return &e
}

// checkOwner returns an *ArgumentError naming r for the first option
// given a resource that c did not register: one of another operation,
// which this one cannot wait for, or a zero Resource, which no operation
// registered and which would be waited for forever.
func (o *resourceOptions) checkOwner(c *Context, r *Resource) error {
	check := func(option string, d *Resource) error {
		switch {
		case d == nil || d.ctx == c:
			return nil
		case d.ctx == nil:
			return &ArgumentError{Type: r.typ, Name: r.name, Argument: "option " + option,
				Reason: "names a zero Resource, which was never registered; pass the handle that Register (or Component, Provider, Read) returned"}
		}
		return &ArgumentError{Type: r.typ, Name: r.name, Argument: "option " + option,
			Reason: fmt.Sprintf("names %s, which comes from another operation; register it in this program", d.describe())}
	}
	for _, e := range []error{check("Parent", o.parent), check("Provider", o.provider), check("DeletedWith", o.deletedWith)} {
		if e != nil {
			return e
		}
	}
	for _, d := range o.dependsOn {
		if err := check("DependsOn", d); err != nil {
			return err
		}
	}
	return nil
}

// handleOption returns the resource h stands for, noting a nil one as a
// bad use of the option.
func (o *resourceOptions) handleOption(option string, h Handle) *Resource {
	r := handleOf(h)
	if r == nil {
		o.bad = append(o.bad, &ArgumentError{Argument: "option " + option, Reason: "names a nil resource handle; leave the option out for the default"})
	}
	return r
}

// Parent makes r the parent of the resource: the resource's URN carries
// r's type, and r is deleted only after it.
func Parent(r Handle) ResourceOption {
	return func(o *resourceOptions) { o.parent = o.handleOption("Parent", r) }
}

// DependsOn adds explicit dependencies: the resource is created after them
// and deleted before them.
func DependsOn(rs ...Handle) ResourceOption {
	return func(o *resourceOptions) {
		for i, h := range rs {
			r := handleOf(h)
			if r == nil {
				o.bad = append(o.bad, &ArgumentError{Argument: "option DependsOn", Reason: fmt.Sprintf("names a nil resource handle (%d of %d)", i+1, len(rs))})
				continue
			}
			o.dependsOn = append(o.dependsOn, r)
		}
	}
}

// Provider makes the resource use an explicit provider (registered with
// Context.Provider) instead of its package's default provider.
func Provider(p Handle) ResourceOption {
	return func(o *resourceOptions) { o.provider = o.handleOption("Provider", p) }
}

// Protect keeps the resource from being deleted or replaced. An update that
// no longer declares it, or a destroy, deletes everything else that goes
// except what it depends on, and then fails naming it.
func Protect() ResourceOption { return func(o *resourceOptions) { o.protect = true } }

// DeleteBeforeReplace deletes the old resource before creating its
// replacement.
func DeleteBeforeReplace() ResourceOption {
	return func(o *resourceOptions) { o.deleteBeforeReplace = true }
}

// RetainOnDelete removes the resource from the state without deleting it
// physically.
func RetainOnDelete() ResourceOption { return func(o *resourceOptions) { o.retainOnDelete = true } }

// DeletedWith skips the physical delete of the resource when r is deleted
// in the same operation (deleting r deletes it too).
func DeletedWith(r Handle) ResourceOption {
	return func(o *resourceOptions) { o.deletedWith = o.handleOption("DeletedWith", r) }
}

// IgnoreChanges names property paths whose changes are ignored: the old
// value is kept.
func IgnoreChanges(paths ...string) ResourceOption {
	return func(o *resourceOptions) { o.ignoreChanges = append(o.ignoreChanges, paths...) }
}

// ReplaceOnChanges names property paths whose change forces a replacement.
func ReplaceOnChanges(paths ...string) ResourceOption {
	return func(o *resourceOptions) { o.replaceOnChanges = append(o.replaceOnChanges, paths...) }
}

// AdditionalSecretOutputs names outputs to treat as secret.
func AdditionalSecretOutputs(keys ...string) ResourceOption {
	return func(o *resourceOptions) {
		for _, k := range keys {
			o.secretOutputs = append(o.secretOutputs, resource.PropertyKey(k))
		}
	}
}

// Aliases names what the resource was called before, so that a rename or
// move takes over the old resource instead of replacing it.
func Aliases(as ...resource.Alias) ResourceOption {
	return func(o *resourceOptions) { o.aliases = append(o.aliases, as...) }
}

// CustomTimeouts bounds how long the provider may take to create, update
// or delete the resource (zero: no bound). The provider is told the
// timeout, and the call's context ends at it; a call that outlives it
// fails with an error wrapping an *engine.TimeoutError, and one the
// provider did not answer stays recorded as a pending operation (an
// *engine.UnansweredError).
func CustomTimeouts(t resource.CustomTimeouts) ResourceOption {
	return func(o *resourceOptions) { o.timeouts = t }
}

// Import adopts the existing physical resource with this ID instead of
// creating one.
func Import(id resource.ID) ResourceOption { return func(o *resourceOptions) { o.importID = id } }

// Version pins the version of the default provider used for the resource.
func Version(v string) ResourceOption { return func(o *resourceOptions) { o.version = v } }

// Remote marks a component implemented by its provider (a multi-language
// component): the provider's Construct builds it and its children.
func Remote() ResourceOption { return func(o *resourceOptions) { o.remote = true } }
