package providers

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"

	"github.com/groundwork-iac/groundwork/resource"
)

// The functions in this file call one optional ability of a provider and
// apply its documented fallback when the provider lacks it. A provider
// lacks an ability when it does not implement the interface, or when it
// implements it and answers an error wrapping ErrNotImplemented: wrappers
// (Recover, the Registry's instances, Func, and later gRPC plugins) implement
// every optional interface and can only tell by answering. Engine code calls
// these functions instead of asserting types, so the same rule holds for a
// bare provider and a wrapped one.

// notImplemented returns an error wrapping ErrNotImplemented that names what
// is missing.
func notImplemented(provider, method string) error {
	if provider == "" {
		return fmt.Errorf("%s: %w", method, ErrNotImplemented)
	}
	return fmt.Errorf("provider %s: %s: %w", provider, method, ErrNotImplemented)
}

// lacks reports whether err says the ability is missing.
func lacks(err error) bool { return errors.Is(err, ErrNotImplemented) }

// CheckConfig validates a provider's configuration with p's CheckConfig.
// Without one, the configuration is accepted as given.
func CheckConfig(ctx context.Context, p Provider, req CheckRequest) (CheckResponse, error) {
	if c, ok := p.(Configurer); ok {
		resp, err := c.CheckConfig(ctx, req)
		if !lacks(err) {
			return resp, err
		}
	}
	return CheckResponse{Inputs: req.News}, nil
}

// DiffConfig compares a provider's old and new configuration with p's
// DiffConfig. Without one, changed top-level keys are reported as in-place
// updates: a provider that cannot tell never forces its resources to be
// replaced.
func DiffConfig(ctx context.Context, p Provider, req DiffRequest) (DiffResponse, error) {
	if c, ok := p.(Configurer); ok {
		resp, err := c.DiffConfig(ctx, req)
		if !lacks(err) {
			return resp, err
		}
	}
	return DiffInputs(req.OldInputs, req.NewInputs), nil
}

// inProcessConfigured is what a provider without Configure is taken to
// support: it runs in-process and is handed Go values, so every kind of
// value reaches it intact.
var inProcessConfigured = ConfigureResponse{
	AcceptSecrets:   true,
	AcceptResources: true,
	AcceptOutputs:   true,
	SupportsPreview: true,
}

// Configure configures p. Without a Configure method, nothing needs doing
// and p is taken to accept secrets, resource references and outputs and to
// support previews.
func Configure(ctx context.Context, p Provider, req ConfigureRequest) (ConfigureResponse, error) {
	if c, ok := p.(Configurer); ok {
		resp, err := c.Configure(ctx, req)
		if !lacks(err) {
			return resp, err
		}
	}
	return inProcessConfigured, nil
}

// Parameterize parameterizes p. Without the ability it is an error wrapping
// ErrNotImplemented.
func Parameterize(ctx context.Context, p Provider, req ParameterizeRequest) (ParameterizeResponse, error) {
	if c, ok := p.(Parameterizer); ok {
		return c.Parameterize(ctx, req)
	}
	return ParameterizeResponse{}, notImplemented("", "Parameterize")
}

// GetSchema returns p's schema. Without the ability it is an error wrapping
// ErrNotImplemented.
func GetSchema(ctx context.Context, p Provider, req GetSchemaRequest) (GetSchemaResponse, error) {
	if c, ok := p.(SchemaProvider); ok {
		return c.GetSchema(ctx, req)
	}
	return GetSchemaResponse{}, notImplemented("", "GetSchema")
}

// Construct asks p to construct a component. Without the ability it is an
// error wrapping ErrNotImplemented.
func Construct(ctx context.Context, p Provider, req ConstructRequest) (ConstructResponse, error) {
	if c, ok := p.(Constructor); ok {
		return c.Construct(ctx, req)
	}
	return ConstructResponse{}, notImplemented("", "Construct of "+string(req.URN))
}

// Invoke calls one of p's functions. Without the ability it is an error
// wrapping ErrNotImplemented.
func Invoke(ctx context.Context, p Provider, req InvokeRequest) (InvokeResponse, error) {
	if c, ok := p.(Invoker); ok {
		return c.Invoke(ctx, req)
	}
	return InvokeResponse{}, notImplemented("", "Invoke of "+req.Token)
}

// StreamInvoke calls one of p's streaming functions, passing each result to
// emit. Without the ability it falls back to Invoke and emits its single
// result (failures make it an error).
func StreamInvoke(ctx context.Context, p Provider, req InvokeRequest, emit func(resource.PropertyMap) error) error {
	if c, ok := p.(StreamInvoker); ok {
		if err := c.StreamInvoke(ctx, req, emit); !lacks(err) {
			return err
		}
	}
	resp, err := Invoke(ctx, p, req)
	if err != nil {
		return err
	}
	if len(resp.Failures) > 0 {
		return &InvokeFailedError{Token: req.Token, Failures: resp.Failures}
	}
	return emit(resp.Return)
}

// InvokeFailedError reports a function call that the provider rejected
// with failures (e.g. invalid arguments).
type InvokeFailedError struct {
	Token    string
	Failures []CheckFailure
}

// Error lists the failures.
func (e *InvokeFailedError) Error() string {
	msg := "invoke of " + e.Token + " failed"
	for i, f := range e.Failures {
		if i == 0 {
			msg += ": "
		} else {
			msg += "; "
		}
		msg += f.String()
	}
	return msg + " (fix the function's arguments)"
}

// Call calls a component method. Without the ability it is an error wrapping
// ErrNotImplemented.
func Call(ctx context.Context, p Provider, req CallRequest) (CallResponse, error) {
	if c, ok := p.(Caller); ok {
		return c.Call(ctx, req)
	}
	return CallResponse{}, notImplemented("", "Call of "+req.Token)
}

// SignalCancellation asks p to wind down in-flight work. Without the
// ability it does nothing.
func SignalCancellation(ctx context.Context, p Provider) error {
	if c, ok := p.(Canceler); ok {
		if err := c.SignalCancellation(ctx); !lacks(err) {
			return err
		}
	}
	return nil
}

// Close releases what p holds. Without the ability it does nothing.
func Close(ctx context.Context, p Provider) error {
	if c, ok := p.(Closer); ok {
		if err := c.Close(ctx); !lacks(err) {
			return err
		}
	}
	return nil
}

// DiffInputs is the diff a provider that cannot tell better gives: every
// top-level key whose value differs between olds and news (deeply; an
// unknown differs from anything known) is an in-place change, and no change
// forces a replacement. The detailed diff marks each key added, deleted or
// updated, as an input diff. Equal maps give DiffNone.
func DiffInputs(olds, news resource.PropertyMap) resource.DiffResult {
	var changed []resource.PropertyKey
	detail := map[string]resource.PropertyDiff{}
	for _, k := range olds.StableKeys() {
		nv, ok := news[k]
		switch {
		case !ok:
			if olds[k].IsNull() {
				continue // a null and an absent key are the same
			}
			detail[keyPath(k)] = resource.PropertyDiff{Kind: resource.DiffDelete, InputDiff: true}
		case !olds[k].DeepEquals(nv):
			detail[keyPath(k)] = resource.PropertyDiff{Kind: resource.DiffUpdate, InputDiff: true}
		default:
			continue
		}
		changed = append(changed, k)
	}
	for _, k := range news.StableKeys() {
		if _, ok := olds[k]; ok || news[k].IsNull() {
			continue
		}
		detail[keyPath(k)] = resource.PropertyDiff{Kind: resource.DiffAdd, InputDiff: true}
		changed = append(changed, k)
	}
	if len(changed) == 0 {
		return resource.DiffResult{Changes: resource.DiffNone}
	}
	slices.Sort(changed)
	return resource.DiffResult{Changes: resource.DiffSome, ChangedKeys: changed, DetailedDiff: detail}
}

// keyPath renders a top-level key as a property path: bare when it is a
// simple name, otherwise quoted in brackets (["a.b"]).
func keyPath(k resource.PropertyKey) string {
	s := string(k)
	simple := s != ""
	for i, r := range s {
		letter := r == '_' || r == '$' || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z')
		if !letter && (i == 0 || r < '0' || r > '9') {
			simple = false
			break
		}
	}
	if simple {
		return s
	}
	return "[" + strconv.Quote(s) + "]"
}
