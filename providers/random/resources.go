package random

import "github.com/groundwork-iac/groundwork/engine"

// The program side: typed constructors that declare the provider's
// resources in an engine program, with Go structs for their inputs and
// outputs (the property names are those the package documentation lists).
// A zero Output in the arguments leaves the input out; engine.Val gives a
// constant.

// Keepers is what every type takes as keepers: any values whose change
// makes a new random value.
type Keepers = engine.Output[map[string]any]

// StringArgs are the inputs of a String.
type StringArgs struct {
	Length          engine.Output[int]    `prop:"length"`
	Upper           engine.Output[bool]   `prop:"upper"`
	Lower           engine.Output[bool]   `prop:"lower"`
	Numeric         engine.Output[bool]   `prop:"numeric"`
	Special         engine.Output[bool]   `prop:"special"`
	MinUpper        engine.Output[int]    `prop:"minUpper"`
	MinLower        engine.Output[int]    `prop:"minLower"`
	MinNumeric      engine.Output[int]    `prop:"minNumeric"`
	MinSpecial      engine.Output[int]    `prop:"minSpecial"`
	OverrideSpecial engine.Output[string] `prop:"overrideSpecial"`
	Keepers         Keepers               `prop:"keepers"`
}

// String is a random:index:String. Result is always secret.
type String struct {
	*engine.Resource
	Length engine.Output[int]    `prop:"length"`
	Result engine.Output[string] `prop:"result"`
}

// NewString declares a String.
func NewString(ctx *engine.Context, name string, args StringArgs, opts ...engine.ResourceOption) *String {
	return engine.NewResource[String](ctx, StringType, name, args, opts...)
}

// IntegerArgs are the inputs of an Integer.
type IntegerArgs struct {
	Min     engine.Output[int]    `prop:"min"`
	Max     engine.Output[int]    `prop:"max"`
	Seed    engine.Output[string] `prop:"seed"`
	Keepers Keepers               `prop:"keepers"`
}

// Integer is a random:index:Integer.
type Integer struct {
	*engine.Resource
	Min    engine.Output[int] `prop:"min"`
	Max    engine.Output[int] `prop:"max"`
	Result engine.Output[int] `prop:"result"`
}

// NewInteger declares an Integer.
func NewInteger(ctx *engine.Context, name string, args IntegerArgs, opts ...engine.ResourceOption) *Integer {
	return engine.NewResource[Integer](ctx, IntegerType, name, args, opts...)
}

// UUIDArgs are the inputs of a UUID.
type UUIDArgs struct {
	Keepers Keepers `prop:"keepers"`
}

// UUID is a random:index:UUID.
type UUID struct {
	*engine.Resource
	Result engine.Output[string] `prop:"result"`
}

// NewUUID declares a UUID.
func NewUUID(ctx *engine.Context, name string, args UUIDArgs, opts ...engine.ResourceOption) *UUID {
	return engine.NewResource[UUID](ctx, UUIDType, name, args, opts...)
}

// PetArgs are the inputs of a Pet.
type PetArgs struct {
	// Length is how many words (default 2).
	Length engine.Output[int] `prop:"length"`
	// Separator goes between the words (default "-").
	Separator engine.Output[string] `prop:"separator"`
	// Prefix is an optional first word.
	Prefix  engine.Output[string] `prop:"prefix"`
	Keepers Keepers               `prop:"keepers"`
}

// Pet is a random:index:Pet.
type Pet struct {
	*engine.Resource
	Length    engine.Output[int]    `prop:"length"`
	Separator engine.Output[string] `prop:"separator"`
	// Result is the name, such as "brave-otter".
	Result engine.Output[string] `prop:"result"`
}

// NewPet declares a Pet.
func NewPet(ctx *engine.Context, name string, args PetArgs, opts ...engine.ResourceOption) *Pet {
	return engine.NewResource[Pet](ctx, PetType, name, args, opts...)
}
