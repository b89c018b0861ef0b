package engine

import (
	"fmt"
	"slices"

	"github.com/groundwork-iac/groundwork/resource"
)

// resolveProps turns program inputs into property values, waiting for every
// Output and *Resource they hold and collecting, per top-level property,
// the resources its value came from.
func (c *Context) resolveProps(props Props) (resource.PropertyMap, map[resource.PropertyKey][]resource.URN, error) {
	return c.resolvePropsFor(props, nil)
}

func (c *Context) resolvePropsFor(props Props, of *Resource) (resource.PropertyMap, map[resource.PropertyKey][]resource.URN, error) {
	out := make(resource.PropertyMap, len(props))
	var deps map[resource.PropertyKey][]resource.URN
	for k, v := range props {
		var urns []resource.URN
		pv, err := c.resolveValue(v, of, &urns)
		if err != nil {
			return nil, nil, fmt.Errorf("input %q: %w", k, err)
		}
		key := resource.PropertyKey(k)
		out[key] = pv
		if len(urns) > 0 {
			if deps == nil {
				deps = map[resource.PropertyKey][]resource.URN{}
			}
			slices.Sort(urns)
			deps[key] = slices.Compact(urns)
		}
	}
	return out, deps, nil
}

func (c *Context) resolveValue(v any, of *Resource, urns *[]resource.URN) (resource.PropertyValue, error) {
	wait := func(r *Resource) error {
		if of != nil {
			return r.awaitDep(c.ctx, of)
		}
		return r.await(c.ctx)
	}
	switch x := v.(type) {
	case Output:
		if err := wait(x.res); err != nil {
			return resource.PropertyValue{}, err
		}
		*urns = append(*urns, x.res.urn)
		return x.resolved()
	case *Resource:
		if err := wait(x); err != nil {
			return resource.PropertyValue{}, err
		}
		*urns = append(*urns, x.urn)
		ref := resource.ResourceReference{URN: x.urn}
		if x.custom {
			ref.ID = x.id
			ref.IDUnknown = x.id == ""
		}
		return resource.NewResourceReference(ref), nil
	case map[string]any:
		m := make(resource.PropertyMap, len(x))
		for k, e := range x {
			pv, err := c.resolveValue(e, of, urns)
			if err != nil {
				return resource.PropertyValue{}, fmt.Errorf("%s: %w", k, err)
			}
			m[resource.PropertyKey(k)] = pv
		}
		return resource.NewObject(m), nil
	case Props:
		return c.resolveValue(map[string]any(x), of, urns)
	case []any:
		a := make([]resource.PropertyValue, len(x))
		for i, e := range x {
			pv, err := c.resolveValue(e, of, urns)
			if err != nil {
				return resource.PropertyValue{}, fmt.Errorf("[%d]: %w", i, err)
			}
			a[i] = pv
		}
		return resource.NewArray(a...), nil
	}
	return resource.NewPropertyValue(v)
}
