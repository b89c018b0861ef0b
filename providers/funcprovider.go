package providers

import (
	"context"

	"github.com/groundwork-iac/groundwork/resource"
)

// Func is a provider built from functions: set the fields for what the
// provider does and leave the rest nil. It is how tests, examples and
// in-process programs write providers:
//
//	p := &providers.Func{
//		CreateF: func(ctx context.Context, req providers.CreateRequest) (providers.CreateResponse, error) {
//			return providers.CreateResponse{ID: "id-1", Outputs: req.Inputs}, nil
//		},
//	}
//
// A nil field has a default:
//
//   - Check accepts the new inputs unchanged.
//   - Diff compares old and new inputs with DiffInputs: changed top-level
//     keys are in-place updates, never replacements; equal inputs are
//     DiffNone.
//   - Create fails with an error wrapping ErrNotImplemented: a provider that
//     cannot create cannot make up an ID either.
//   - Read reports the recorded state unchanged (the ID, inputs and state it
//     was given), i.e. the resource still exists as recorded.
//   - Update keeps the old outputs, drops those whose input was removed, and
//     sets each new input: outputs that echo inputs follow them and computed
//     outputs are kept.
//   - Delete succeeds.
//   - CheckConfig, DiffConfig and Configure behave as for a provider that
//     takes no configuration (see the package functions of those names).
//   - SignalCancellation and Close do nothing.
//   - Every other ability (Parameterize, GetSchema, Construct, Invoke,
//     StreamInvoke, Call) fails with an error wrapping ErrNotImplemented.
//
// Func is safe for concurrent use if its functions are.
type Func struct {
	CheckF  func(ctx context.Context, req CheckRequest) (CheckResponse, error)
	DiffF   func(ctx context.Context, req DiffRequest) (DiffResponse, error)
	CreateF func(ctx context.Context, req CreateRequest) (CreateResponse, error)
	ReadF   func(ctx context.Context, req ReadRequest) (ReadResponse, error)
	UpdateF func(ctx context.Context, req UpdateRequest) (UpdateResponse, error)
	DeleteF func(ctx context.Context, req DeleteRequest) (DeleteResponse, error)

	CheckConfigF func(ctx context.Context, req CheckRequest) (CheckResponse, error)
	DiffConfigF  func(ctx context.Context, req DiffRequest) (DiffResponse, error)
	ConfigureF   func(ctx context.Context, req ConfigureRequest) (ConfigureResponse, error)

	ParameterizeF func(ctx context.Context, req ParameterizeRequest) (ParameterizeResponse, error)
	GetSchemaF    func(ctx context.Context, req GetSchemaRequest) (GetSchemaResponse, error)
	ConstructF    func(ctx context.Context, req ConstructRequest) (ConstructResponse, error)
	InvokeF       func(ctx context.Context, req InvokeRequest) (InvokeResponse, error)
	StreamInvokeF func(ctx context.Context, req InvokeRequest, emit func(resource.PropertyMap) error) error
	CallF         func(ctx context.Context, req CallRequest) (CallResponse, error)

	SignalCancellationF func(ctx context.Context) error
	CloseF              func(ctx context.Context) error
}

var _ full = (*Func)(nil)

// Check calls CheckF, or accepts the new inputs.
func (f *Func) Check(ctx context.Context, req CheckRequest) (CheckResponse, error) {
	if f != nil && f.CheckF != nil {
		return f.CheckF(ctx, req)
	}
	return CheckResponse{Inputs: req.News}, nil
}

// Diff calls DiffF, or compares old and new inputs with DiffInputs.
func (f *Func) Diff(ctx context.Context, req DiffRequest) (DiffResponse, error) {
	if f != nil && f.DiffF != nil {
		return f.DiffF(ctx, req)
	}
	return DiffInputs(req.OldInputs, req.NewInputs), nil
}

// Create calls CreateF, or fails with an error wrapping ErrNotImplemented.
func (f *Func) Create(ctx context.Context, req CreateRequest) (CreateResponse, error) {
	if f != nil && f.CreateF != nil {
		return f.CreateF(ctx, req)
	}
	return CreateResponse{}, notImplemented("", "Create of "+string(req.URN)+" (set Func.CreateF)")
}

// Read calls ReadF, or reports the recorded state unchanged.
func (f *Func) Read(ctx context.Context, req ReadRequest) (ReadResponse, error) {
	if f != nil && f.ReadF != nil {
		return f.ReadF(ctx, req)
	}
	return ReadResponse{ID: req.ID, Inputs: req.Inputs, Outputs: req.State}, nil
}

// Update calls UpdateF, or merges the new inputs into the old outputs.
func (f *Func) Update(ctx context.Context, req UpdateRequest) (UpdateResponse, error) {
	if f != nil && f.UpdateF != nil {
		return f.UpdateF(ctx, req)
	}
	outs := req.OldOutputs.Copy()
	if outs == nil {
		outs = resource.PropertyMap{}
	}
	for k := range req.OldInputs {
		if _, ok := req.NewInputs[k]; !ok {
			delete(outs, k)
		}
	}
	for k, v := range req.NewInputs {
		outs[k] = v
	}
	return UpdateResponse{Outputs: outs}, nil
}

// Delete calls DeleteF, or succeeds.
func (f *Func) Delete(ctx context.Context, req DeleteRequest) (DeleteResponse, error) {
	if f != nil && f.DeleteF != nil {
		return f.DeleteF(ctx, req)
	}
	return DeleteResponse{}, nil
}

// CheckConfig calls CheckConfigF, or accepts the configuration as given.
func (f *Func) CheckConfig(ctx context.Context, req CheckRequest) (CheckResponse, error) {
	if f != nil && f.CheckConfigF != nil {
		return f.CheckConfigF(ctx, req)
	}
	return CheckResponse{Inputs: req.News}, nil
}

// DiffConfig calls DiffConfigF, or reports changed keys as updates.
func (f *Func) DiffConfig(ctx context.Context, req DiffRequest) (DiffResponse, error) {
	if f != nil && f.DiffConfigF != nil {
		return f.DiffConfigF(ctx, req)
	}
	return DiffInputs(req.OldInputs, req.NewInputs), nil
}

// Configure calls ConfigureF, or does nothing and reports that the provider
// accepts every kind of value and supports previews.
func (f *Func) Configure(ctx context.Context, req ConfigureRequest) (ConfigureResponse, error) {
	if f != nil && f.ConfigureF != nil {
		return f.ConfigureF(ctx, req)
	}
	return inProcessConfigured, nil
}

// Parameterize calls ParameterizeF, or fails with ErrNotImplemented.
func (f *Func) Parameterize(ctx context.Context, req ParameterizeRequest) (ParameterizeResponse, error) {
	if f != nil && f.ParameterizeF != nil {
		return f.ParameterizeF(ctx, req)
	}
	return ParameterizeResponse{}, notImplemented("", "Parameterize (set Func.ParameterizeF)")
}

// GetSchema calls GetSchemaF, or fails with ErrNotImplemented.
func (f *Func) GetSchema(ctx context.Context, req GetSchemaRequest) (GetSchemaResponse, error) {
	if f != nil && f.GetSchemaF != nil {
		return f.GetSchemaF(ctx, req)
	}
	return GetSchemaResponse{}, notImplemented("", "GetSchema (set Func.GetSchemaF)")
}

// Construct calls ConstructF, or fails with ErrNotImplemented.
func (f *Func) Construct(ctx context.Context, req ConstructRequest) (ConstructResponse, error) {
	if f != nil && f.ConstructF != nil {
		return f.ConstructF(ctx, req)
	}
	return ConstructResponse{}, notImplemented("", "Construct of "+string(req.URN)+" (set Func.ConstructF)")
}

// Invoke calls InvokeF, or fails with ErrNotImplemented.
func (f *Func) Invoke(ctx context.Context, req InvokeRequest) (InvokeResponse, error) {
	if f != nil && f.InvokeF != nil {
		return f.InvokeF(ctx, req)
	}
	return InvokeResponse{}, notImplemented("", "Invoke of "+req.Token+" (set Func.InvokeF)")
}

// StreamInvoke calls StreamInvokeF, or fails with ErrNotImplemented (the
// package function StreamInvoke then falls back to Invoke).
func (f *Func) StreamInvoke(ctx context.Context, req InvokeRequest, emit func(resource.PropertyMap) error) error {
	if f != nil && f.StreamInvokeF != nil {
		return f.StreamInvokeF(ctx, req, emit)
	}
	return notImplemented("", "StreamInvoke of "+req.Token+" (set Func.StreamInvokeF)")
}

// Call calls CallF, or fails with ErrNotImplemented.
func (f *Func) Call(ctx context.Context, req CallRequest) (CallResponse, error) {
	if f != nil && f.CallF != nil {
		return f.CallF(ctx, req)
	}
	return CallResponse{}, notImplemented("", "Call of "+req.Token+" (set Func.CallF)")
}

// SignalCancellation calls SignalCancellationF, or does nothing.
func (f *Func) SignalCancellation(ctx context.Context) error {
	if f != nil && f.SignalCancellationF != nil {
		return f.SignalCancellationF(ctx)
	}
	return nil
}

// Close calls CloseF, or does nothing.
func (f *Func) Close(ctx context.Context) error {
	if f != nil && f.CloseF != nil {
		return f.CloseF(ctx)
	}
	return nil
}
