package resource

// maxArrayGrowth bounds how far Set may grow an array past its end, so that
// a path such as "a[9999999999]" from untrusted input cannot exhaust memory.
const maxArrayGrowth = 1 << 16

// Get returns the value at path p inside v and whether it exists. The empty
// path addresses v itself.
//
// Get steps through secrets and known outputs transparently; if it passed
// through a secret (or an output marked secret) the result is wrapped with
// NewSecret, so a caller never receives plaintext it did not ask for.
// Stepping into an unknown value yields an unknown, since whatever lies
// beneath an unknown is unknown too. A wildcard element matches nothing
// here (use Contains to test paths against wildcards): Get reports false.
func (p PropertyPath) Get(v PropertyValue) (PropertyValue, bool) {
	secret := false
	for _, e := range p {
		v, secret = peel(v, secret)
		if v.IsUnknown() {
			return wrapSecret(NewUnknown(), secret), true
		}
		switch {
		case e.IsWildcard:
			return PropertyValue{}, false
		case e.IsIndex:
			a := v.ArrayValue()
			if v.Kind() != KindArray || e.Index < 0 || e.Index >= len(a) {
				return PropertyValue{}, false
			}
			v = a[e.Index]
		default:
			if v.Kind() != KindObject {
				return PropertyValue{}, false
			}
			w, ok := v.ObjectValue()[PropertyKey(e.Key)]
			if !ok {
				return PropertyValue{}, false
			}
			v = w
		}
	}
	return wrapSecret(v, secret), true
}

// peel strips secrets and known outputs from v, reporting whether any of
// them made the value secret.
func peel(v PropertyValue, secret bool) (PropertyValue, bool) {
	for {
		switch v.Kind() {
		case KindSecret:
			v, secret = v.SecretElement(), true
		case KindOutput:
			o := v.ref.(*Output)
			if !o.Known {
				if o.Secret {
					secret = true
				}
				return NewUnknown(), secret
			}
			v, secret = o.Element, secret || o.Secret
		default:
			return v, secret
		}
	}
}

func wrapSecret(v PropertyValue, secret bool) PropertyValue {
	if secret {
		return NewSecret(v)
	}
	return v
}

// Set returns a copy of dest with v placed at path p, and whether that was
// possible. dest itself is never modified: the objects and arrays along the
// path are copied. Missing or null intermediate values are created (an
// object for a key step, an array for an index step); an array is grown
// with nulls when the index is past its end, by at most 65,536 elements.
// Set steps through secrets and known outputs and keeps them wrapped
// around the changed value. The empty path replaces dest with v. Set fails
// (returning dest, false) on a wildcard, and when a step meets a value of
// the wrong kind (a key into an array, an index into a string) or an
// unknown.
func (p PropertyPath) Set(dest, v PropertyValue) (PropertyValue, bool) {
	out, ok := setAt(dest, p, v)
	if !ok {
		return dest, false
	}
	return out, true
}

func setAt(cur PropertyValue, p PropertyPath, v PropertyValue) (PropertyValue, bool) {
	if len(p) == 0 {
		return v, true
	}
	if inner, rewrap, ok := unwrapContainer(cur); ok {
		changed, ok := setAt(inner, p, v)
		if !ok {
			return cur, false
		}
		return rewrap(changed), true
	}
	e := p[0]
	switch {
	case e.IsWildcard:
		return cur, false
	case e.IsIndex:
		if (cur.Kind() != KindNull && cur.Kind() != KindArray) || e.Index < 0 {
			return cur, false
		}
		a := cur.ArrayValue()
		if e.Index >= len(a)+maxArrayGrowth {
			return cur, false
		}
		out := make([]PropertyValue, max(len(a), e.Index+1))
		copy(out, a)
		elem, ok := setAt(out[e.Index], p[1:], v)
		if !ok {
			return cur, false
		}
		out[e.Index] = elem
		return NewArray(out...), true
	default:
		if cur.Kind() != KindNull && cur.Kind() != KindObject {
			return cur, false
		}
		m := cur.ObjectValue()
		elem, ok := setAt(m[PropertyKey(e.Key)], p[1:], v)
		if !ok {
			return cur, false
		}
		out := make(PropertyMap, len(m)+1)
		for k, w := range m {
			out[k] = w
		}
		out[PropertyKey(e.Key)] = elem
		return NewObject(out), true
	}
}

// unwrapContainer strips one secret or known output from v, returning the
// wrapped value and how to wrap a changed value the same way.
func unwrapContainer(v PropertyValue) (PropertyValue, func(PropertyValue) PropertyValue, bool) {
	switch v.Kind() {
	case KindSecret:
		return v.SecretElement(), NewSecret, true
	case KindOutput:
		o := v.OutputValue()
		if !o.Known {
			return v, nil, false
		}
		return o.Element, func(e PropertyValue) PropertyValue {
			o.Element = e
			return NewOutput(o)
		}, true
	}
	return v, nil, false
}

// Delete returns a copy of dest with the value at path p removed, and
// whether there was such a value. Removing an object key drops the key;
// removing an array element shortens the array, shifting later elements
// down by one. dest itself is never modified. Like Set, Delete steps
// through secrets and known outputs; it reports false for the empty path
// and for wildcards.
func (p PropertyPath) Delete(dest PropertyValue) (PropertyValue, bool) {
	if len(p) == 0 {
		return dest, false
	}
	out, ok := deleteAt(dest, p)
	if !ok {
		return dest, false
	}
	return out, true
}

func deleteAt(cur PropertyValue, p PropertyPath) (PropertyValue, bool) {
	if inner, rewrap, ok := unwrapContainer(cur); ok {
		changed, ok := deleteAt(inner, p)
		if !ok {
			return cur, false
		}
		return rewrap(changed), true
	}
	e := p[0]
	switch {
	case e.IsWildcard:
		return cur, false
	case e.IsIndex:
		a := cur.ArrayValue()
		if cur.Kind() != KindArray || e.Index < 0 || e.Index >= len(a) {
			return cur, false
		}
		out := make([]PropertyValue, 0, len(a))
		out = append(out, a[:e.Index]...)
		if len(p) == 1 {
			return NewArray(append(out, a[e.Index+1:]...)...), true
		}
		elem, ok := deleteAt(a[e.Index], p[1:])
		if !ok {
			return cur, false
		}
		out = append(out, elem)
		return NewArray(append(out, a[e.Index+1:]...)...), true
	default:
		m := cur.ObjectValue()
		old, found := m[PropertyKey(e.Key)]
		if cur.Kind() != KindObject || !found {
			return cur, false
		}
		var elem PropertyValue
		if len(p) > 1 {
			var ok bool
			if elem, ok = deleteAt(old, p[1:]); !ok {
				return cur, false
			}
		}
		out := make(PropertyMap, len(m))
		for k, w := range m {
			out[k] = w
		}
		if len(p) == 1 {
			delete(out, PropertyKey(e.Key))
		} else {
			out[PropertyKey(e.Key)] = elem
		}
		return NewObject(out), true
	}
}

// GetPath returns the value at path p inside m (see PropertyPath.Get). The
// path must begin with a key.
func (m PropertyMap) GetPath(p PropertyPath) (PropertyValue, bool) {
	if len(p) == 0 || p[0].IsIndex {
		return PropertyValue{}, false
	}
	return p.Get(PropertyValue{ref: m})
}

// SetPath returns a copy of m with v placed at path p (see
// PropertyPath.Set); m itself is not modified. The path must begin with a
// key.
func (m PropertyMap) SetPath(p PropertyPath, v PropertyValue) (PropertyMap, bool) {
	if len(p) == 0 || p[0].IsIndex {
		return m, false
	}
	out, ok := p.Set(NewObject(m), v)
	if !ok {
		return m, false
	}
	return out.ObjectValue(), true
}

// DeletePath returns a copy of m without the value at path p (see
// PropertyPath.Delete); m itself is not modified. The path must begin with
// a key.
func (m PropertyMap) DeletePath(p PropertyPath) (PropertyMap, bool) {
	if len(p) == 0 || p[0].IsIndex {
		return m, false
	}
	out, ok := p.Delete(NewObject(m))
	if !ok {
		return m, false
	}
	return out.ObjectValue(), true
}
