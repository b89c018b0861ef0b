package providers

import (
	"context"

	"github.com/groundwork-iac/groundwork/resource"
)

// Configurer is implemented by providers that take configuration. A
// provider without it is configured trivially: its configuration is accepted
// as given, never differs in a way that forces replacement, and Configure is
// a no-op.
type Configurer interface {
	// CheckConfig validates a provider resource's inputs (its
	// configuration).
	CheckConfig(ctx context.Context, req CheckRequest) (CheckResponse, error)
	// DiffConfig compares old and new configuration. A replacement means
	// every resource the provider manages must be replaced.
	DiffConfig(ctx context.Context, req DiffRequest) (DiffResponse, error)
	// Configure applies checked configuration. It is called once, before
	// any lifecycle method.
	Configure(ctx context.Context, req ConfigureRequest) (ConfigureResponse, error)
}

// ConfigureRequest carries a provider's checked configuration.
type ConfigureRequest struct {
	// URN and ID name the provider resource being configured.
	URN    resource.URN
	ID     resource.ID
	Inputs resource.PropertyMap
	// AcceptSecrets and AcceptResources tell the provider that the engine
	// understands secret values and resource references in responses.
	AcceptSecrets   bool
	AcceptResources bool
}

// ConfigureResponse says what the configured provider supports.
type ConfigureResponse struct {
	AcceptSecrets   bool
	AcceptResources bool
	AcceptOutputs   bool
	SupportsPreview bool
}

// Parameterizer is implemented by providers that can be parameterized to
// serve a package of another name (e.g. a generic bridge that becomes
// "mycloud" given a schema). Without it, parameterizing the provider is an
// error wrapping ErrNotImplemented.
type Parameterizer interface {
	Parameterize(ctx context.Context, req ParameterizeRequest) (ParameterizeResponse, error)
}

// ParameterizeRequest is either the args form (Args, as a user would type
// them) or the value form (Value, the package name and version with an
// opaque blob recorded from an earlier args-form call).
type ParameterizeRequest struct {
	Args  []string
	Value *ParameterizeValue
}

// ParameterizeValue is the value form of a parameterization.
type ParameterizeValue struct {
	Name    string
	Version string
	Value   []byte
}

// ParameterizeResponse names the package the parameterization produced.
type ParameterizeResponse struct {
	Name    string
	Version string
}

// SchemaProvider is implemented by providers that publish a package schema.
// Without it, the schema is unavailable (ErrNotImplemented).
type SchemaProvider interface {
	GetSchema(ctx context.Context, req GetSchemaRequest) (GetSchemaResponse, error)
}

// GetSchemaRequest asks for a schema of a version of the schema format.
type GetSchemaRequest struct {
	Version           int
	SubpackageName    string
	SubpackageVersion string
}

// GetSchemaResponse is a JSON package schema.
type GetSchemaResponse struct {
	Schema []byte
}

// Host is what a provider's Construct and Call use to register the
// resources they create: the engine's resource monitor, seen from inside a
// provider.
type Host interface {
	// RegisterResource registers a child resource and waits for its step.
	RegisterResource(ctx context.Context, goal resource.Goal) (RegisterResult, error)
	// RegisterResourceOutputs records a component's outputs.
	RegisterResourceOutputs(ctx context.Context, urn resource.URN, outputs resource.PropertyMap) error
}

// RegisterResult is the outcome of a registration made through a Host.
type RegisterResult struct {
	URN     resource.URN
	ID      resource.ID
	Outputs resource.PropertyMap
	// Stable is set when the resource's step left it unchanged.
	Stable bool
	// OutputDependencies are, for a remote component, the resources each
	// of its outputs depends on, as its provider's Construct answered (the
	// children an output came from): a program that passes the output on
	// makes its consumer depend on them too.
	OutputDependencies map[resource.PropertyKey][]resource.URN
}

// Constructor is implemented by providers of remote (multi-language)
// components. Without it, registering a remote component of the provider's
// package fails with ErrNotImplemented.
type Constructor interface {
	Construct(ctx context.Context, req ConstructRequest) (ConstructResponse, error)
}

// ConstructRequest asks a provider to build a component and its children.
type ConstructRequest struct {
	URN               resource.URN
	Type              string
	Name              string
	Parent            resource.URN
	Inputs            resource.PropertyMap
	InputDependencies map[resource.PropertyKey][]resource.URN
	// Options are the component's resource options (dependencies, protect,
	// aliases, ...), to be applied to the component and inherited by its
	// children as the language SDKs do.
	Options resource.Goal
	// Providers maps package names to provider references children should
	// use.
	Providers map[string]string
	Host      Host
	Preview   bool
	// Config is the stack's configuration, keyed "<namespace>:<key>",
	// secret values secret. Over the wire each value arrives as a string
	// (anything but a string as its JSON), as Pulumi's SDKs read it.
	Config map[string]resource.PropertyValue
}

// ConstructResponse is the component's URN, outputs, and the dependencies of
// each output.
type ConstructResponse struct {
	URN                resource.URN
	Outputs            resource.PropertyMap
	OutputDependencies map[resource.PropertyKey][]resource.URN
}

// Invoker is implemented by providers that offer functions (data sources).
// Without it, invoking one of the provider's functions fails with
// ErrNotImplemented.
type Invoker interface {
	Invoke(ctx context.Context, req InvokeRequest) (InvokeResponse, error)
}

// InvokeRequest calls the function named by Token. Args hold no unknowns or
// secrets (the engine rejects those before calling).
type InvokeRequest struct {
	Token string
	Args  resource.PropertyMap
}

// InvokeResponse is a function's result, or the failures that stopped it.
type InvokeResponse struct {
	Return   resource.PropertyMap
	Failures []CheckFailure
}

// StreamInvoker is implemented by providers whose functions return a stream
// of results. Without it, a streaming invoke falls back to Invoke and yields
// its single result.
type StreamInvoker interface {
	// StreamInvoke calls emit for each result until the stream ends or emit
	// returns an error.
	StreamInvoke(ctx context.Context, req InvokeRequest, emit func(resource.PropertyMap) error) error
}

// Caller is implemented by providers whose components have methods.
// Without it, a call fails with ErrNotImplemented.
type Caller interface {
	Call(ctx context.Context, req CallRequest) (CallResponse, error)
}

// CallRequest calls the method named by Token; Args["__self__"] is a
// resource reference to the component.
type CallRequest struct {
	Token           string
	Args            resource.PropertyMap
	ArgDependencies map[resource.PropertyKey][]resource.URN
	Host            Host
	Preview         bool
	// Config is the stack's configuration, keyed "<namespace>:<key>",
	// secret values secret. Over the wire each value arrives as a string
	// (anything but a string as its JSON), as Pulumi's SDKs read it.
	Config map[string]resource.PropertyValue
}

// CallResponse is a method's result.
type CallResponse struct {
	Return             resource.PropertyMap
	ReturnDependencies map[resource.PropertyKey][]resource.URN
	Failures           []CheckFailure
}

// Canceler is implemented by providers that can be asked to wind down
// in-flight work early. Without it, cancellation is not signalled and
// in-flight calls run to completion.
type Canceler interface {
	// SignalCancellation is advisory and must not block.
	SignalCancellation(ctx context.Context) error
}

// Closer is implemented by providers that hold resources (a process, a
// connection). Without it, closing is a no-op. After Close no other method is
// called.
type Closer interface {
	Close(ctx context.Context) error
}
