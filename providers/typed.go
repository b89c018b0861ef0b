package providers

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/groundwork-iac/groundwork/resource"
)

// Typed is a provider of one resource type written over Go structs: In
// holds the resource's inputs and Out its outputs, their fields named as
// resource.StructFields describes (a `prop:"name"` tag, or the field's
// name with its leading capitals lowered). It does the map handling: it
// decodes requests into In and Out, encodes the answers, and keeps
// secrets secret (an output named like a secret input is secret, and so
// is every field tagged `prop:",secret"`).
//
// The inputs' schema is In. Check refuses, property by property, inputs
// In does not have, values that do not decode into their field, and
// missing fields that are not tagged optional. Fields tagged
// `prop:",replace"` replace the resource when they change.
//
// Set the functions for what the resource does; a nil one has a default:
//
//   - CheckF: the inputs, once they match the schema, are accepted as
//     they are.
//   - DiffF: the changed inputs (as DiffInputs finds them) are updates in
//     place, or replacements for fields tagged replace, or for every
//     field when UpdateF is nil.
//   - CreateF: none; Create fails with an error wrapping
//     ErrNotImplemented.
//   - ReadF: the resource still exists as recorded.
//   - UpdateF: none (every change is a replacement, see DiffF).
//   - DeleteF: deleting succeeds.
//
// In a preview, inputs that are not known yet are zero in In and listed in
// the request's Unknown; Create and Update are not called (their outputs
// are the known inputs, the rest unknown). Serve one or more Typed
// resources as a provider with ByType. Typed is safe for concurrent use if
// its functions are.
type Typed[In, Out any] struct {
	CheckF  func(ctx context.Context, req TypedCheck[In]) (In, []CheckFailure, error)
	DiffF   func(ctx context.Context, req TypedDiff[In, Out]) (DiffResponse, error)
	CreateF func(ctx context.Context, req TypedCreate[In]) (resource.ID, Out, error)
	ReadF   func(ctx context.Context, req TypedRead[In, Out]) (TypedState[In, Out], error)
	UpdateF func(ctx context.Context, req TypedUpdate[In, Out]) (Out, error)
	DeleteF func(ctx context.Context, req TypedDelete[In, Out]) error
}

// TypedCheck asks a Typed provider to validate new inputs.
type TypedCheck[In any] struct {
	URN resource.URN
	// Olds are the inputs last recorded (zero for a new resource).
	Olds In
	News In
	// Unknown lists the inputs whose values are not known yet (in a
	// preview); their fields are zero in News, and stay unknown whatever
	// Check returns for them.
	Unknown []resource.PropertyKey
	// RandomSeed is stable for the resource across runs (see AutoName).
	RandomSeed []byte
}

// TypedDiff asks a Typed provider what changed.
type TypedDiff[In, Out any] struct {
	URN        resource.URN
	ID         resource.ID
	OldInputs  In
	OldOutputs Out
	NewInputs  In
	// Unknown lists the new inputs not known yet (zero in NewInputs).
	Unknown []resource.PropertyKey
	// Changed is DiffInputs' verdict on the inputs, a starting point.
	Changed resource.DiffResult
}

// TypedCreate asks a Typed provider to create a resource.
type TypedCreate[In any] struct {
	URN    resource.URN
	Inputs In
}

// TypedRead asks a Typed provider for a resource's current state. Inputs
// and Outputs are what was recorded; they are zero for an import.
type TypedRead[In, Out any] struct {
	URN     resource.URN
	ID      resource.ID
	Inputs  In
	Outputs Out
}

// TypedState is a resource's state as a Typed provider reads it. An empty
// ID means the resource no longer exists.
type TypedState[In, Out any] struct {
	ID      resource.ID
	Inputs  In
	Outputs Out
}

// TypedUpdate asks a Typed provider to update a resource in place.
type TypedUpdate[In, Out any] struct {
	URN        resource.URN
	ID         resource.ID
	OldInputs  In
	OldOutputs Out
	NewInputs  In
}

// TypedDelete asks a Typed provider to delete a resource.
type TypedDelete[In, Out any] struct {
	URN     resource.URN
	ID      resource.ID
	Inputs  In
	Outputs Out
}

var _ Provider = (*Typed[struct{}, struct{}])(nil)

// Check validates the new inputs against In, then calls CheckF.
func (t *Typed[In, Out]) Check(ctx context.Context, req CheckRequest) (CheckResponse, error) {
	fields, err := resource.StructFields(reflect.TypeFor[In]())
	if err != nil {
		return CheckResponse{}, fmt.Errorf("the inputs type: %w", err)
	}
	news, unknown, failures := decodeInputs[In](fields, req.News, true)
	if len(failures) > 0 || t.CheckF == nil {
		return CheckResponse{Inputs: req.News, Failures: failures}, nil
	}
	olds, _, _ := decodeInputs[In](fields, req.Olds, false)
	checked, failures, err := t.CheckF(ctx, TypedCheck[In]{URN: req.URN, Olds: olds, News: news, Unknown: unknown, RandomSeed: req.RandomSeed})
	if err != nil || len(failures) > 0 {
		return CheckResponse{Inputs: req.News, Failures: failures}, err
	}
	inputs, err := encode(checked, req.News)
	if err != nil {
		return CheckResponse{}, fmt.Errorf("encoding the checked inputs: %w", err)
	}
	for _, k := range unknown {
		inputs[k] = req.News[k]
	}
	return CheckResponse{Inputs: inputs}, nil
}

// Diff calls DiffF, or compares the inputs (see Typed).
func (t *Typed[In, Out]) Diff(ctx context.Context, req DiffRequest) (DiffResponse, error) {
	changed := DiffInputs(req.OldInputs, req.NewInputs)
	if t.DiffF != nil {
		fields, err := resource.StructFields(reflect.TypeFor[In]())
		if err != nil {
			return DiffResponse{}, err
		}
		olds, _, _ := decodeInputs[In](fields, req.OldInputs, false)
		news, unknown, failures := decodeInputs[In](fields, req.NewInputs, false)
		if len(failures) > 0 {
			return DiffResponse{}, fmt.Errorf("the new inputs: %s", failures[0])
		}
		return t.DiffF(ctx, TypedDiff[In, Out]{URN: req.URN, ID: req.ID, OldInputs: olds,
			OldOutputs: decodeLenient[Out](req.OldOutputs), NewInputs: news, Unknown: unknown, Changed: changed})
	}
	if changed.Changes != resource.DiffSome {
		return changed, nil
	}
	fields, err := resource.StructFields(reflect.TypeFor[In]())
	if err != nil {
		return DiffResponse{}, err
	}
	for _, k := range changed.ChangedKeys {
		replace := t.UpdateF == nil
		for _, f := range fields {
			replace = replace || (f.Name == k && f.Replace)
		}
		if !replace {
			continue
		}
		changed.ReplaceKeys = append(changed.ReplaceKeys, k)
		path := keyPath(k)
		if d, ok := changed.DetailedDiff[path]; ok {
			d.Kind = d.Kind.AsReplace()
			changed.DetailedDiff[path] = d
		}
	}
	return changed, nil
}

// Create calls CreateF; in a preview it does not (see Typed).
func (t *Typed[In, Out]) Create(ctx context.Context, req CreateRequest) (CreateResponse, error) {
	if req.Preview {
		return CreateResponse{Outputs: previewOutputs[Out](req.Inputs)}, nil
	}
	if t.CreateF == nil {
		return CreateResponse{}, notImplemented("", "Create of "+string(req.URN)+" (set Typed.CreateF)")
	}
	in, err := decodeKnown[In](req.URN, req.Inputs)
	if err != nil {
		return CreateResponse{}, err
	}
	id, out, err := t.CreateF(ctx, TypedCreate[In]{URN: req.URN, Inputs: in})
	if err != nil {
		return CreateResponse{}, err
	}
	if id == "" {
		return CreateResponse{}, fmt.Errorf("create %s: CreateF returned an empty ID", req.URN)
	}
	outs, err := encode(out, req.Inputs)
	if err != nil {
		return CreateResponse{}, fmt.Errorf("create %s: encoding the outputs: %w", req.URN, err)
	}
	return CreateResponse{ID: id, Outputs: outs}, nil
}

// Read calls ReadF, or reports the resource as recorded.
func (t *Typed[In, Out]) Read(ctx context.Context, req ReadRequest) (ReadResponse, error) {
	if t.ReadF == nil {
		return ReadResponse{ID: req.ID, Inputs: req.Inputs, Outputs: req.State}, nil
	}
	st, err := t.ReadF(ctx, TypedRead[In, Out]{URN: req.URN, ID: req.ID,
		Inputs: decodeLenient[In](req.Inputs), Outputs: decodeLenient[Out](req.State)})
	if err != nil || st.ID == "" {
		return ReadResponse{}, err
	}
	inputs, err := encode(st.Inputs, req.Inputs)
	if err != nil {
		return ReadResponse{}, fmt.Errorf("read %s: encoding the inputs: %w", req.URN, err)
	}
	outputs, err := encode(st.Outputs, inputs)
	if err != nil {
		return ReadResponse{}, fmt.Errorf("read %s: encoding the outputs: %w", req.URN, err)
	}
	return ReadResponse{ID: st.ID, Inputs: inputs, Outputs: outputs}, nil
}

// Update calls UpdateF; in a preview it does not (see Typed).
func (t *Typed[In, Out]) Update(ctx context.Context, req UpdateRequest) (UpdateResponse, error) {
	if req.Preview {
		return UpdateResponse{Outputs: previewOutputs[Out](req.NewInputs)}, nil
	}
	if t.UpdateF == nil {
		return UpdateResponse{}, fmt.Errorf("update %s: the provider cannot update in place (Typed.UpdateF is nil), so its Diff asks for a replacement; this update was not expected", req.URN)
	}
	news, err := decodeKnown[In](req.URN, req.NewInputs)
	if err != nil {
		return UpdateResponse{}, err
	}
	out, err := t.UpdateF(ctx, TypedUpdate[In, Out]{URN: req.URN, ID: req.ID,
		OldInputs: decodeLenient[In](req.OldInputs), OldOutputs: decodeLenient[Out](req.OldOutputs), NewInputs: news})
	if err != nil {
		return UpdateResponse{}, err
	}
	outs, err := encode(out, req.NewInputs)
	if err != nil {
		return UpdateResponse{}, fmt.Errorf("update %s: encoding the outputs: %w", req.URN, err)
	}
	return UpdateResponse{Outputs: outs}, nil
}

// Delete calls DeleteF, or succeeds.
func (t *Typed[In, Out]) Delete(ctx context.Context, req DeleteRequest) (DeleteResponse, error) {
	if t.DeleteF == nil {
		return DeleteResponse{}, nil
	}
	err := t.DeleteF(ctx, TypedDelete[In, Out]{URN: req.URN, ID: req.ID,
		Inputs: decodeLenient[In](req.Inputs), Outputs: decodeLenient[Out](req.Outputs)})
	return DeleteResponse{}, err
}

// decodeInputs decodes inputs into In, leaving out (and listing) those
// not known yet. With strict set it checks them against In's fields:
// every property must be a field, decode into it, and every field that is
// not optional must be present.
func decodeInputs[In any](fields []resource.StructField, m resource.PropertyMap, strict bool) (In, []resource.PropertyKey, []CheckFailure) {
	var in In
	var unknown []resource.PropertyKey
	var failures []CheckFailure
	known := make(resource.PropertyMap, len(m))
	for _, k := range m.StableKeys() {
		v := m[k]
		if v.ContainsUnknowns() {
			unknown = append(unknown, k)
			continue
		}
		if strict && !slices.ContainsFunc(fields, func(f resource.StructField) bool { return f.Name == k }) {
			failures = append(failures, CheckFailure{Property: string(k), Reason: "is not an input of this resource (its inputs: " + fieldNames(fields) + ")"})
			continue
		}
		known[k] = v
	}
	if strict {
		for _, f := range fields {
			if v, ok := m[f.Name]; !f.Optional && (!ok || v.IsNull()) {
				failures = append(failures, CheckFailure{Property: string(f.Name), Reason: "is required"})
			}
		}
	}
	for _, k := range known.StableKeys() {
		var one resource.PropertyMap = resource.PropertyMap{k: known[k]}
		if err := one.Decode(&in); err != nil {
			failures = append(failures, decodeFailure(k, err))
		}
	}
	return in, unknown, failures
}

func decodeFailure(k resource.PropertyKey, err error) CheckFailure {
	var de *resource.DecodeError
	if errors.As(err, &de) && len(de.Path) > 0 {
		return CheckFailure{Property: de.Path.String(), Reason: de.Reason}
	}
	return CheckFailure{Property: string(k), Reason: err.Error()}
}

func fieldNames(fields []resource.StructField) string {
	names := make([]string, len(fields))
	for i, f := range fields {
		names[i] = string(f.Name)
	}
	return strings.Join(names, ", ")
}

// decodeKnown decodes inputs that must all be known (outside a preview).
func decodeKnown[In any](urn resource.URN, m resource.PropertyMap) (In, error) {
	var in In
	if err := m.Decode(&in); err != nil {
		return in, fmt.Errorf("the inputs: %w", err)
	}
	return in, nil
}

// decodeLenient decodes recorded state, keeping what decodes: state
// written by an older version of the provider may not match In or Out.
func decodeLenient[T any](m resource.PropertyMap) T {
	var v T
	for _, k := range m.StableKeys() {
		_ = resource.PropertyMap{k: m[k]}.Decode(&v)
	}
	return v
}

// encode encodes v (an In or an Out), making secret every property whose
// input of the same name in like is secret.
func encode(v any, like resource.PropertyMap) (resource.PropertyMap, error) {
	pv, err := resource.NewPropertyValue(v)
	if err != nil {
		return nil, err
	}
	out := pv.ObjectValue()
	if out == nil {
		out = resource.PropertyMap{}
	}
	for k, e := range out {
		if like[k].ContainsSecrets() && !e.IsSecret() {
			out[k] = resource.NewSecret(e)
		}
	}
	return out, nil
}

// previewOutputs are the outputs a preview shows: the inputs, and every
// other output unknown.
func previewOutputs[Out any](inputs resource.PropertyMap) resource.PropertyMap {
	out := inputs.Copy()
	if out == nil {
		out = resource.PropertyMap{}
	}
	fields, err := resource.StructFields(reflect.TypeFor[Out]())
	if err != nil {
		return out
	}
	for _, f := range fields {
		if _, ok := out[f.Name]; !ok {
			out[f.Name] = resource.NewUnknown()
		}
	}
	return out
}

// ByType serves several resource types as one provider: each request goes
// to the provider of the type in its URN. A request for another type fails
// with an error listing the types served. Abilities beyond the resource
// lifecycle (configuration, functions) are not served: the package
// functions' fallbacks apply.
func ByType(types map[string]Provider) Provider {
	return byType(types)
}

type byType map[string]Provider

func (b byType) lookup(urn resource.URN) (Provider, error) {
	if p, ok := b[urn.Type()]; ok {
		return p, nil
	}
	known := make([]string, 0, len(b))
	for k := range b {
		known = append(known, k)
	}
	slices.Sort(known)
	return nil, fmt.Errorf("the provider has no resource type %q (it serves %s)", urn.Type(), strings.Join(known, ", "))
}

func (b byType) Check(ctx context.Context, req CheckRequest) (CheckResponse, error) {
	p, err := b.lookup(req.URN)
	if err != nil {
		return CheckResponse{}, err
	}
	return p.Check(ctx, req)
}

func (b byType) Diff(ctx context.Context, req DiffRequest) (DiffResponse, error) {
	p, err := b.lookup(req.URN)
	if err != nil {
		return DiffResponse{}, err
	}
	return p.Diff(ctx, req)
}

func (b byType) Create(ctx context.Context, req CreateRequest) (CreateResponse, error) {
	p, err := b.lookup(req.URN)
	if err != nil {
		return CreateResponse{}, err
	}
	return p.Create(ctx, req)
}

func (b byType) Read(ctx context.Context, req ReadRequest) (ReadResponse, error) {
	p, err := b.lookup(req.URN)
	if err != nil {
		return ReadResponse{}, err
	}
	return p.Read(ctx, req)
}

func (b byType) Update(ctx context.Context, req UpdateRequest) (UpdateResponse, error) {
	p, err := b.lookup(req.URN)
	if err != nil {
		return UpdateResponse{}, err
	}
	return p.Update(ctx, req)
}

func (b byType) Delete(ctx context.Context, req DeleteRequest) (DeleteResponse, error) {
	p, err := b.lookup(req.URN)
	if err != nil {
		return DeleteResponse{}, err
	}
	return p.Delete(ctx, req)
}
