package program

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"

	"github.com/groundwork-iac/groundwork/resource"
)

// A registration's inputs are walked twice: scanProps, when it is
// launched, checks them and finds the Outputs and Handles it must wait
// for; resolvePropsFor, once they have finished, turns the inputs into
// property values and collects the resources each input came from.

// secretInput is an input made secret by its struct field's tag.
type secretInput struct{ v any }

// inputsOf turns a registration's arguments into Props: a struct's fields
// by resource.StructFields (zero Output fields, and zero optional ones,
// are left out), Props and maps as they are.
func inputsOf(args any) (Props, error) {
	switch a := args.(type) {
	case nil:
		return nil, nil
	case Props:
		return a, nil
	case map[string]any:
		return Props(a), nil
	case resource.PropertyMap:
		p := make(Props, len(a))
		for k, v := range a {
			p[string(k)] = v
		}
		return p, nil
	}
	rv := reflect.ValueOf(args)
	if rv.Kind() == reflect.Pointer {
		if rv.IsNil() {
			return nil, nil
		}
		rv = rv.Elem()
	}
	if rv.Kind() != reflect.Struct {
		return nil, fmt.Errorf("must be a struct, Props or nil, not %T", args)
	}
	return structProps(rv)
}

var outputType = reflect.TypeFor[output]()

// structProps lists a struct's properties.
func structProps(rv reflect.Value) (Props, error) {
	fields, err := resource.StructFields(rv.Type())
	if err != nil {
		return nil, err
	}
	p := make(Props, len(fields))
	for _, f := range fields {
		fv, ok := fieldValue(rv, f.Index)
		if !ok || (fv.IsZero() && (f.Optional || f.Type.Implements(outputType))) {
			continue
		}
		v := fv.Interface()
		if f.Secret {
			v = secretInput{v}
		}
		p[string(f.Name)] = v
	}
	return p, nil
}

// fieldValue is reflect.Value.FieldByIndex, reporting a nil embedded
// pointer on the way instead of panicking.
func fieldValue(v reflect.Value, index []int) (reflect.Value, bool) {
	for i, x := range index {
		if i > 0 && v.Kind() == reflect.Pointer {
			if v.IsNil() {
				return reflect.Value{}, false
			}
			v = v.Elem()
		}
		v = v.Field(x)
	}
	return v, true
}

// isLeaf reports whether v converts as it is, with nothing to wait for.
func isLeaf(v any) bool {
	switch v.(type) {
	case nil, bool, string, float64, float32, int, int64, int32, int16, int8,
		uint, uint64, uint32, uint16, uint8, []string, map[string]string,
		resource.PropertyValue, resource.PropertyMap, resource.ID, resource.URN,
		*resource.Asset, *resource.Archive, resource.Asset, resource.Archive,
		resource.ResourceReference, *resource.ResourceReference, resource.UnknownPlaceholder:
		return true
	}
	return false
}

// scanProps checks props and adds to waiting what their Outputs and
// Handles wait for that has not finished. of is the registration they
// belong to (nil for stack outputs, invokes and calls); a problem is then
// an *ArgumentError naming it and the input.
func (c *Context) scanProps(of *Resource, props Props, waiting *[]waitable) error {
	return c.scanEach(of, props, func(w waitable) {
		if waiting != nil && !w.finished() {
			*waiting = append(*waiting, w)
		}
	})
}

// scanEach checks props, calling visit for every Output and Handle.
func (c *Context) scanEach(of *Resource, props Props, visit func(waitable)) error {
	for k, v := range props {
		p := c.scan(v, visit)
		if p == nil {
			continue
		}
		arg := fmt.Sprintf("input %q", k+p.path)
		if of == nil {
			return fmt.Errorf("%s %s", arg, p.reason)
		}
		return &ArgumentError{Type: of.typ, Name: of.name, Argument: arg, Reason: p.reason}
	}
	return nil
}

// inputProblem is what is wrong with an input: a clause about the value
// at path, within the input.
type inputProblem struct {
	path, reason string
	// whole says the problem is the input's as a whole (it nests too
	// deeply): no path into it is named.
	whole bool
}

// within moves a problem into an element of a container.
func (p *inputProblem) within(elem string) *inputProblem {
	if p != nil && !p.whole {
		p.path = elem + p.path
	}
	return p
}

// tooDeep is the problem of an input that nests deeper than the state can
// record.
func tooDeep() *inputProblem {
	return &inputProblem{whole: true, reason: fmt.Sprintf("nests deeper than %d levels, more than the state can record", resource.MaxDepth)}
}

const zeroOutputReason = "is the zero Output, which holds no value (make Outputs with Val, OutputOf, Apply or a typed resource's fields)"

// scan checks one input, calling visit for every Output and Handle in it.
func (c *Context) scan(v any, visit func(waitable)) *inputProblem {
	return (&scanner{c: c, visit: visit}).scan(v)
}

// scanner walks one input. It refuses a value that contains itself (which
// could never be turned into a property value) and one that nests deeper
// than the state can record: both are the program's mistakes, reported
// before anything walks the value again.
type scanner struct {
	c     *Context
	visit func(waitable)
	// depth is how many containers hold the value being scanned.
	depth int
	// open holds the maps, slices and pointers being scanned, to catch
	// one met again inside itself.
	open map[container]bool
}

// container identifies a map, slice or pointer by what it points to.
type container struct {
	p    uintptr
	kind reflect.Kind
	n    int
}

func (s *scanner) scan(v any) *inputProblem {
	if isLeaf(v) {
		switch x := v.(type) {
		case resource.PropertyValue:
			return depthProblem(resource.PropertyMap{"": x}, s.depth)
		case resource.PropertyMap:
			return depthProblem(x, s.depth+1)
		}
		return nil
	}
	c := s.c
	switch x := v.(type) {
	case output:
		f := x.future()
		if f == nil {
			return &inputProblem{reason: zeroOutputReason}
		}
		if fc := f.context(); fc != nil && fc != c {
			return &inputProblem{reason: fmt.Sprintf("is %s, which comes from another operation", f.describe())}
		}
		if cl := f.cell; cl != nil && cl.c == nil && cl.out.fromGo {
			// A constant may hold Outputs (Val of a map of them).
			if p := s.scan(cl.out.value); p != nil {
				return p
			}
		}
		s.visit(f.waitable())
		return nil
	case Handle:
		r := handleOf(x)
		if r == nil {
			return &inputProblem{reason: "is a nil resource handle"}
		}
		if r.ctx != c {
			return &inputProblem{reason: fmt.Sprintf("is %s, which comes from another operation", r.describe())}
		}
		s.visit(r)
		return nil
	case secretInput:
		return s.scan(x.v)
	}
	return s.scanContainer(v)
}

// depthProblem reports a property value given as it is that, below depth
// containers, nests deeper than the state can record.
func depthProblem(m resource.PropertyMap, depth int) *inputProblem {
	for range depth {
		m = resource.PropertyMap{"": resource.NewObject(m)}
	}
	if m.CheckDepth() != nil {
		return tooDeep()
	}
	return nil
}

// scanContainer scans the elements of slices, maps, structs and pointers.
func (s *scanner) scanContainer(v any) *inputProblem {
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Slice, reflect.Array, reflect.Map, reflect.Struct, reflect.Pointer, reflect.Interface:
	default:
		return nil
	}
	if s.depth >= resource.MaxDepth {
		return tooDeep()
	}
	if k := rv.Kind(); (k == reflect.Slice || k == reflect.Map || k == reflect.Pointer) && !rv.IsNil() {
		id := container{p: uintptr(rv.UnsafePointer()), kind: k}
		if k == reflect.Slice {
			id.n = rv.Len()
		}
		if s.open[id] {
			return &inputProblem{reason: "contains itself (a cycle), which no property value can hold"}
		}
		if s.open == nil {
			s.open = map[container]bool{}
		}
		s.open[id] = true
		defer delete(s.open, id)
	}
	s.depth++
	defer func() { s.depth-- }()
	switch rv.Kind() {
	case reflect.Slice, reflect.Array:
		for i := range rv.Len() {
			if p := s.scan(rv.Index(i).Interface()); p != nil {
				return p.within(fmt.Sprintf("[%d]", i))
			}
		}
	case reflect.Map:
		if rv.Type().Key().Kind() != reflect.String {
			return nil // NewPropertyValue reports it
		}
		iter := rv.MapRange()
		for iter.Next() {
			if p := s.scan(iter.Value().Interface()); p != nil {
				return p.within("." + iter.Key().String())
			}
		}
	case reflect.Struct:
		props, err := structProps(rv)
		if err != nil {
			return &inputProblem{reason: fmt.Sprintf("is a %s, which has bad fields: %v", rv.Type(), err)}
		}
		for k, e := range props {
			if p := s.scan(e); p != nil {
				return p.within("." + k)
			}
		}
	case reflect.Pointer, reflect.Interface:
		if !rv.IsNil() {
			// A pointer is not a level of the value it points to.
			s.depth--
			defer func() { s.depth++ }()
			return s.scan(rv.Elem().Interface())
		}
	}
	return nil
}

// resolvePropsFor turns program inputs into property values, waiting for
// every Output and Handle they hold and collecting, per top-level
// property, the resources its value came from. of is the registration the
// inputs belong to: a failed dependency then fails it with a
// *DependencyError.
func (c *Context) resolvePropsFor(props Props, of *Resource) (resource.PropertyMap, map[resource.PropertyKey][]resource.URN, error) {
	out := make(resource.PropertyMap, len(props))
	var deps map[resource.PropertyKey][]resource.URN
	for k, v := range props {
		var from []*Resource
		pv, err := c.resolveValue(v, of, &from)
		if err != nil {
			return nil, nil, inputError(of, k, err)
		}
		key := resource.PropertyKey(k)
		out[key] = pv
		if len(from) > 0 {
			if deps == nil {
				deps = map[resource.PropertyKey][]resource.URN{}
			}
			urns := make([]resource.URN, 0, len(from))
			for _, r := range from {
				urns = append(urns, r.urn)
			}
			slices.Sort(urns)
			deps[key] = slices.Compact(urns)
		}
	}
	// What the values resolved to (a secret adds a level) must be as
	// readable as the state: nothing is recorded that cannot be loaded.
	if err := out.CheckDepth(); err != nil {
		de := (*resource.DepthError)(nil)
		if !errors.As(err, &de) {
			return nil, nil, err
		}
		reason := tooDeep().reason
		if of == nil {
			return nil, nil, fmt.Errorf("input %q %s", de.Key, reason)
		}
		return nil, nil, &ArgumentError{Type: of.typ, Name: of.name, Argument: fmt.Sprintf("input %q", de.Key), Reason: reason}
	}
	return out, deps, nil
}

// inputError names the input an error is about, unless the error is a
// dependency's (which names the dependency).
func inputError(of *Resource, key string, err error) error {
	var dep *DependencyError
	if errors.As(err, &dep) {
		return err
	}
	if of == nil {
		return fmt.Errorf("input %q: %w", key, err)
	}
	return fmt.Errorf("%s: input %q: %w", of.describe(), key, err)
}

func (c *Context) resolveValue(v any, of *Resource, from *[]*Resource) (resource.PropertyValue, error) {
	if isLeaf(v) {
		return resource.NewPropertyValue(v)
	}
	switch x := v.(type) {
	case output:
		return c.resolveOutput(x.future(), of, from)
	case Handle:
		r := handleOf(x)
		if r == nil {
			return resource.PropertyValue{}, errors.New("the resource handle is nil")
		}
		if err := c.awaitFor(r, of); err != nil {
			return resource.PropertyValue{}, err
		}
		*from = append(*from, r)
		ref := resource.ResourceReference{URN: r.urn}
		if r.custom {
			ref.ID = r.id
			ref.IDUnknown = r.id == ""
		}
		return resource.NewResourceReference(ref), nil
	case secretInput:
		pv, err := c.resolveValue(x.v, of, from)
		if err != nil || pv.IsSecret() || pv.IsNull() {
			return pv, err
		}
		return resource.NewSecret(pv), nil
	}
	return c.resolveContainer(v, of, from)
}

// resolveOutput waits for an Output and returns its value as an input.
func (c *Context) resolveOutput(f *future, of *Resource, from *[]*Resource) (resource.PropertyValue, error) {
	if f == nil {
		return resource.PropertyValue{}, errZeroOutput
	}
	w := f.waitable()
	if err := c.awaitFor(w, of); err != nil {
		return resource.PropertyValue{}, err
	}
	oc := f.outcome()
	if oc.err != nil {
		// An error is reported where it arose: by the operation of the
		// cell that failed, or by the registration whose output failed.
		// A cell made of constants alone (Val) belongs to no operation:
		// the registration that takes it reports its error.
		if (f.cell != nil && f.cell.c != nil) || (f.cell == nil && !oc.own) {
			return resource.PropertyValue{}, dependencyError(of, w.describe(), oc.err)
		}
		return resource.PropertyValue{}, oc.err
	}
	*from = append(*from, oc.deps...)
	var pv resource.PropertyValue
	switch {
	case !oc.fromGo:
		pv = oc.pv
	case !oc.known:
		pv = resource.NewUnknown()
	default:
		var err error
		if pv, err = c.resolveValue(oc.value, of, from); err != nil {
			return pv, err
		}
	}
	if oc.secret && !pv.IsSecret() {
		pv = resource.NewSecret(pv)
	}
	return pv, nil
}

// awaitFor waits for w, watching the operation's context; when w is a
// resource that failed, the error is a dependency's of of.
func (c *Context) awaitFor(w waitable, of *Resource) error {
	if r, ok := w.(*Resource); ok {
		if of != nil {
			return r.awaitDep(c.ctx, of)
		}
		return r.await(c.ctx)
	}
	if w.finished() {
		return nil
	}
	done := make(chan struct{})
	w.onFinish(func() { close(done) })
	select {
	case <-done:
		return nil
	case <-c.ctx.Done():
		return context.Cause(c.ctx)
	}
}

// resolveContainer resolves the elements of slices, maps, structs and
// pointers that may hold Outputs; anything else is a plain value.
func (c *Context) resolveContainer(v any, of *Resource, from *[]*Resource) (resource.PropertyValue, error) {
	switch x := v.(type) {
	case Props:
		return c.resolveMap(x, of, from)
	case map[string]any:
		return c.resolveMap(x, of, from)
	}
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Slice, reflect.Array:
		if rv.Kind() == reflect.Slice && rv.IsNil() {
			return resource.NewNull(), nil
		}
		a := make([]resource.PropertyValue, rv.Len())
		for i := range a {
			pv, err := c.resolveValue(rv.Index(i).Interface(), of, from)
			if err != nil {
				return resource.PropertyValue{}, fmt.Errorf("[%d]: %w", i, err)
			}
			a[i] = pv
		}
		return resource.NewArray(a...), nil
	case reflect.Map:
		if rv.Type().Key().Kind() != reflect.String || rv.IsNil() {
			return resource.NewPropertyValue(v)
		}
		m := make(map[string]any, rv.Len())
		iter := rv.MapRange()
		for iter.Next() {
			m[iter.Key().String()] = iter.Value().Interface()
		}
		return c.resolveMap(m, of, from)
	case reflect.Struct:
		p, err := structProps(rv)
		if err != nil {
			return resource.PropertyValue{}, err
		}
		return c.resolveMap(p, of, from)
	case reflect.Pointer, reflect.Interface:
		if rv.IsNil() {
			return resource.NewNull(), nil
		}
		return c.resolveValue(rv.Elem().Interface(), of, from)
	}
	return resource.NewPropertyValue(v)
}

func (c *Context) resolveMap(x map[string]any, of *Resource, from *[]*Resource) (resource.PropertyValue, error) {
	m := make(resource.PropertyMap, len(x))
	for k, e := range x {
		pv, err := c.resolveValue(e, of, from)
		if err != nil {
			return resource.PropertyValue{}, fmt.Errorf("%s: %w", k, err)
		}
		m[resource.PropertyKey(k)] = pv
	}
	return resource.NewObject(m), nil
}
