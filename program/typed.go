package program

import (
	"fmt"
	"reflect"

	"github.com/groundwork-iac/groundwork/resource"
)

// NewResource declares a custom resource of type typ with typed inputs
// and outputs, and returns its handle at once. R is the resource's Go
// type: a struct that embeds *Resource and has one Output field per
// output property, named as resource.StructFields describes:
//
//	type Pet struct {
//		*program.Resource
//		Length program.Output[int]    `prop:"length"`
//		Result program.Output[string] `prop:"result"`
//		Prefix program.Output[string] `prop:"prefix,optional"` // may be absent
//	}
//
// args are the inputs: a struct whose fields are Outputs (a zero Output
// leaves the property out; Val gives a constant) or plain values,
// or Props. The registration waits for every Output in args and records
// the resources they came from as dependencies.
//
// Each Output field of the result is the future value of that output. An
// output the provider did not return is an error naming the resource and
// the key when the field is used, unless the field is tagged optional
// (its value is then the zero value); in a preview it is unknown until
// the resource exists. A bad argument (an empty name, a malformed type, a
// nil handle in an option, a zero Output among Props) fails the
// registration at once with an *ArgumentError, as does an R that is not
// such a struct.
func NewResource[R any, P interface {
	*R
	Handle
}](ctx *Context, typ, name string, args any, opts ...ResourceOption) *R {
	return declare[R](ctx, typ, name, false, "", args, opts)
}

// ReadResource reads an existing resource by ID without managing it (see
// Context.Read), with typed outputs as NewResource has.
func ReadResource[R any, P interface {
	*R
	Handle
}](ctx *Context, typ, name string, id resource.ID, args any, opts ...ResourceOption) *R {
	return declare[R](ctx, typ, name, true, id, args, opts)
}

func declare[R any](c *Context, typ, name string, read bool, id resource.ID, args any, opts []ResourceOption) *R {
	out := new(R)
	rv := reflect.ValueOf(out).Elem()
	r := c.newResource(typ, name, true)
	if read {
		r.readID = &id
	}
	fields, handleAt, err := outputFields(rv.Type())
	if handleAt != nil {
		rv.FieldByIndex(handleAt).Set(reflect.ValueOf(r))
	}
	if err != nil {
		// Fail the registration, counted like any other.
		c.launch(r, nil, []ResourceOption{func(o *resourceOptions) {
			o.bad = append(o.bad, &ArgumentError{Argument: "the Go type " + rv.Type().String(), Reason: err.Error()})
		}})
		return out
	}
	for _, f := range fields {
		rv.FieldByIndex(f.Index).Addr().Interface().(binder).bind(r, f.Name, f.Optional)
	}
	c.launch(r, args, opts)
	return out
}

// binder is what every *Output[T] is to NewResource.
type binder interface {
	bind(r *Resource, key resource.PropertyKey, optional bool)
}

func (o *Output[T]) bind(r *Resource, key resource.PropertyKey, optional bool) {
	o.f = &future{res: r, key: key, optional: optional}
}

var (
	binderType   = reflect.TypeFor[binder]()
	resourceType = reflect.TypeFor[*Resource]()
)

// outputFields checks a typed resource's Go type and returns its Output
// fields and the index of its embedded *Resource.
func outputFields(t reflect.Type) ([]resource.StructField, []int, error) {
	if t.Kind() != reflect.Struct {
		return nil, nil, fmt.Errorf("is not a struct that embeds *engine.Resource")
	}
	var handleAt []int
	for i := range t.NumField() {
		if f := t.Field(i); f.Anonymous && f.Type == resourceType {
			handleAt = f.Index
		}
	}
	if handleAt == nil {
		return nil, nil, fmt.Errorf("does not embed *engine.Resource")
	}
	fields, err := resource.StructFields(t)
	if err != nil {
		return nil, handleAt, fmt.Errorf("has bad fields: %w", err)
	}
	for _, f := range fields {
		if !reflect.PointerTo(f.Type).Implements(binderType) {
			return nil, handleAt, fmt.Errorf("has the field %q of type %s; the fields of a typed resource are engine.Output values (tag others `prop:\"-\"`)", f.Name, f.Type)
		}
	}
	return fields, handleAt, nil
}
