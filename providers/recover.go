package providers

import (
	"context"
	"fmt"
	"runtime/debug"

	"github.com/groundwork-iac/groundwork/resource"
)

// PanicError is a panic in a provider method, recovered and turned into
// that call's error. It names the provider, the method, and the resource (or
// function) the call was about.
type PanicError struct {
	Provider string
	Method   string
	// URN is the resource the call was about, if any.
	URN resource.URN
	// Token is the function or method invoked, for Invoke and Call.
	Token string
	// Value is what the provider panicked with; Stack is where.
	Value any
	Stack []byte
}

// Error names the provider, the method, the resource and the panic value.
func (e *PanicError) Error() string {
	about := ""
	switch {
	case e.URN != "":
		about = " of " + string(e.URN)
	case e.Token != "":
		about = " of " + e.Token
	}
	return fmt.Sprintf("provider %s panicked in %s%s: %v (this is a bug in the provider; report it to its authors with the stack in PanicError.Stack)",
		e.Provider, e.Method, about, e.Value)
}

// Unwrap returns the panic value if it was an error.
func (e *PanicError) Unwrap() error {
	err, _ := e.Value.(error)
	return err
}

// Recover wraps p so that a panic in any of its methods becomes a
// *PanicError returned by that call, naming the provider (name), the method
// and the URN. The wrapper implements Provider and every optional
// interface of this package: where p lacks an ability it answers an error
// wrapping ErrNotImplemented, so callers detect abilities by calling (see
// the package functions CheckConfig, Invoke, Close, ...), never by type
// assertions on the wrapper. Unwrap returns p.
func Recover(name string, p Provider) Provider { return recoverFull(name, p) }

func recoverFull(name string, p Provider) full {
	if r, ok := p.(*recovered); ok && r.name == name {
		return r
	}
	return &recovered{name: name, p: p}
}

type recovered struct {
	name string
	p    Provider
}

// Unwrap returns the wrapped provider.
func (r *recovered) Unwrap() Provider { return r.p }

// catch turns a panic of the wrapped method into *errp. It must be
// deferred directly by the wrapping method, so that its recover sees the
// panic.
func (r *recovered) catch(errp *error, method string, urn resource.URN, token string) {
	if v := recover(); v != nil {
		*errp = &PanicError{Provider: r.name, Method: method, URN: urn, Token: token, Value: v, Stack: debug.Stack()}
	}
}

func (r *recovered) Check(ctx context.Context, req CheckRequest) (_ CheckResponse, err error) {
	defer r.catch(&err, "Check", req.URN, "")
	return r.p.Check(ctx, req)
}

func (r *recovered) Diff(ctx context.Context, req DiffRequest) (_ DiffResponse, err error) {
	defer r.catch(&err, "Diff", req.URN, "")
	return r.p.Diff(ctx, req)
}

func (r *recovered) Create(ctx context.Context, req CreateRequest) (_ CreateResponse, err error) {
	defer r.catch(&err, "Create", req.URN, "")
	return r.p.Create(ctx, req)
}

func (r *recovered) Read(ctx context.Context, req ReadRequest) (_ ReadResponse, err error) {
	defer r.catch(&err, "Read", req.URN, "")
	return r.p.Read(ctx, req)
}

func (r *recovered) Update(ctx context.Context, req UpdateRequest) (_ UpdateResponse, err error) {
	defer r.catch(&err, "Update", req.URN, "")
	return r.p.Update(ctx, req)
}

func (r *recovered) Delete(ctx context.Context, req DeleteRequest) (_ DeleteResponse, err error) {
	defer r.catch(&err, "Delete", req.URN, "")
	return r.p.Delete(ctx, req)
}

func (r *recovered) CheckConfig(ctx context.Context, req CheckRequest) (_ CheckResponse, err error) {
	defer r.catch(&err, "CheckConfig", req.URN, "")
	c, ok := r.p.(Configurer)
	if !ok {
		return CheckResponse{}, notImplemented(r.name, "CheckConfig")
	}
	return c.CheckConfig(ctx, req)
}

func (r *recovered) DiffConfig(ctx context.Context, req DiffRequest) (_ DiffResponse, err error) {
	defer r.catch(&err, "DiffConfig", req.URN, "")
	c, ok := r.p.(Configurer)
	if !ok {
		return DiffResponse{}, notImplemented(r.name, "DiffConfig")
	}
	return c.DiffConfig(ctx, req)
}

func (r *recovered) Configure(ctx context.Context, req ConfigureRequest) (_ ConfigureResponse, err error) {
	defer r.catch(&err, "Configure", req.URN, "")
	c, ok := r.p.(Configurer)
	if !ok {
		return ConfigureResponse{}, notImplemented(r.name, "Configure")
	}
	return c.Configure(ctx, req)
}

func (r *recovered) Parameterize(ctx context.Context, req ParameterizeRequest) (_ ParameterizeResponse, err error) {
	defer r.catch(&err, "Parameterize", "", "")
	c, ok := r.p.(Parameterizer)
	if !ok {
		return ParameterizeResponse{}, notImplemented(r.name, "Parameterize")
	}
	return c.Parameterize(ctx, req)
}

func (r *recovered) GetSchema(ctx context.Context, req GetSchemaRequest) (_ GetSchemaResponse, err error) {
	defer r.catch(&err, "GetSchema", "", "")
	c, ok := r.p.(SchemaProvider)
	if !ok {
		return GetSchemaResponse{}, notImplemented(r.name, "GetSchema")
	}
	return c.GetSchema(ctx, req)
}

func (r *recovered) Construct(ctx context.Context, req ConstructRequest) (_ ConstructResponse, err error) {
	defer r.catch(&err, "Construct", req.URN, "")
	c, ok := r.p.(Constructor)
	if !ok {
		return ConstructResponse{}, notImplemented(r.name, "Construct")
	}
	return c.Construct(ctx, req)
}

func (r *recovered) Invoke(ctx context.Context, req InvokeRequest) (_ InvokeResponse, err error) {
	defer r.catch(&err, "Invoke", "", req.Token)
	c, ok := r.p.(Invoker)
	if !ok {
		return InvokeResponse{}, notImplemented(r.name, "Invoke")
	}
	return c.Invoke(ctx, req)
}

func (r *recovered) StreamInvoke(ctx context.Context, req InvokeRequest, emit func(resource.PropertyMap) error) (err error) {
	defer r.catch(&err, "StreamInvoke", "", req.Token)
	c, ok := r.p.(StreamInvoker)
	if !ok {
		return notImplemented(r.name, "StreamInvoke")
	}
	return c.StreamInvoke(ctx, req, emit)
}

func (r *recovered) Call(ctx context.Context, req CallRequest) (_ CallResponse, err error) {
	defer r.catch(&err, "Call", "", req.Token)
	c, ok := r.p.(Caller)
	if !ok {
		return CallResponse{}, notImplemented(r.name, "Call")
	}
	return c.Call(ctx, req)
}

func (r *recovered) SignalCancellation(ctx context.Context) (err error) {
	defer r.catch(&err, "SignalCancellation", "", "")
	c, ok := r.p.(Canceler)
	if !ok {
		return notImplemented(r.name, "SignalCancellation")
	}
	return c.SignalCancellation(ctx)
}

func (r *recovered) Close(ctx context.Context) (err error) {
	defer r.catch(&err, "Close", "", "")
	c, ok := r.p.(Closer)
	if !ok {
		return notImplemented(r.name, "Close")
	}
	return c.Close(ctx)
}

// full is a provider with every optional ability; each wrapper in this
// package is one, so that wrapping never hides an ability.
type full interface {
	Provider
	Configurer
	Parameterizer
	SchemaProvider
	Constructor
	Invoker
	StreamInvoker
	Caller
	Canceler
	Closer
}

var _ full = (*recovered)(nil)
