package random

import "github.com/groundwork-iac/groundwork/resource"

// resultKind is one of groundwork's own types: its value is one output,
// result.
type resultKind interface {
	keys() []string
	// readResult validates the inputs r holds and fills in r.Out()'s
	// defaults. When no input is unknown it returns the function that
	// generates the result.
	readResult(r *reader) func() (resource.PropertyValue, error)
	// parseResult turns an import ID into the (unchecked) inputs and the
	// result it stands for.
	parseResult(id string) (resource.PropertyMap, resource.PropertyValue, error)
}

// own makes a resultKind a kind: its resources get opaque IDs, and its
// checked inputs carry their defaults.
type own struct{ resultKind }

func (o own) read(r *reader) func() (value, error) {
	generate := o.readResult(r)
	if generate == nil {
		return nil
	}
	return func() (value, error) {
		v, err := generate()
		return value{outputs: resource.PropertyMap{"result": v}}, err
	}
}

// parseID keeps the imported ID, unless the result is secret: the ID is
// recorded in plain text.
func (o own) parseID(id string) (resource.PropertyMap, value, error) {
	inputs, result, err := o.parseResult(id)
	if err != nil {
		return nil, value{}, err
	}
	v := value{outputs: resource.PropertyMap{"result": result}}
	if !result.IsSecret() {
		v.id = resource.ID(id)
	}
	return inputs, v, nil
}

func (own) computed() []string { return []string{"result"} }

func (own) inputDefaults() bool { return true }
