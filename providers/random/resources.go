package random

import "github.com/groundwork-iac/groundwork/program"

// The program side: typed constructors that declare the provider's
// resources in an in-process program (package program), with Go structs
// for their inputs and outputs (the property names are those the package
// documentation lists). A zero Output in the arguments leaves the input
// out; program.Val gives a constant.

// Keepers is what every type takes as keepers: any values whose change
// makes a new random value.
type Keepers = program.Output[map[string]any]

// StringArgs are the inputs of a String.
type StringArgs struct {
	Length          program.Output[int]    `prop:"length"`
	Upper           program.Output[bool]   `prop:"upper"`
	Lower           program.Output[bool]   `prop:"lower"`
	Numeric         program.Output[bool]   `prop:"numeric"`
	Special         program.Output[bool]   `prop:"special"`
	MinUpper        program.Output[int]    `prop:"minUpper"`
	MinLower        program.Output[int]    `prop:"minLower"`
	MinNumeric      program.Output[int]    `prop:"minNumeric"`
	MinSpecial      program.Output[int]    `prop:"minSpecial"`
	OverrideSpecial program.Output[string] `prop:"overrideSpecial"`
	Keepers         Keepers                `prop:"keepers"`
}

// String is a random:index:String. Result is always secret.
type String struct {
	*program.Resource
	Length program.Output[int]    `prop:"length"`
	Result program.Output[string] `prop:"result"`
}

// NewString declares a String.
func NewString(ctx *program.Context, name string, args StringArgs, opts ...program.ResourceOption) *String {
	return program.NewResource[String](ctx, StringType, name, args, opts...)
}

// IntegerArgs are the inputs of an Integer.
type IntegerArgs struct {
	Min     program.Output[int]    `prop:"min"`
	Max     program.Output[int]    `prop:"max"`
	Seed    program.Output[string] `prop:"seed"`
	Keepers Keepers                `prop:"keepers"`
}

// Integer is a random:index:Integer.
type Integer struct {
	*program.Resource
	Min    program.Output[int] `prop:"min"`
	Max    program.Output[int] `prop:"max"`
	Result program.Output[int] `prop:"result"`
}

// NewInteger declares an Integer.
func NewInteger(ctx *program.Context, name string, args IntegerArgs, opts ...program.ResourceOption) *Integer {
	return program.NewResource[Integer](ctx, IntegerType, name, args, opts...)
}

// UUIDArgs are the inputs of a UUID.
type UUIDArgs struct {
	Keepers Keepers `prop:"keepers"`
}

// UUID is a random:index:UUID.
type UUID struct {
	*program.Resource
	Result program.Output[string] `prop:"result"`
}

// NewUUID declares a UUID.
func NewUUID(ctx *program.Context, name string, args UUIDArgs, opts ...program.ResourceOption) *UUID {
	return program.NewResource[UUID](ctx, UUIDType, name, args, opts...)
}

// PetArgs are the inputs of a Pet.
type PetArgs struct {
	// Length is how many words (default 2).
	Length program.Output[int] `prop:"length"`
	// Separator goes between the words (default "-").
	Separator program.Output[string] `prop:"separator"`
	// Prefix is an optional first word.
	Prefix  program.Output[string] `prop:"prefix"`
	Keepers Keepers                `prop:"keepers"`
}

// Pet is a random:index:Pet.
type Pet struct {
	*program.Resource
	Length    program.Output[int]    `prop:"length"`
	Separator program.Output[string] `prop:"separator"`
	// Result is the name, such as "brave-otter".
	Result program.Output[string] `prop:"result"`
}

// NewPet declares a Pet.
func NewPet(ctx *program.Context, name string, args PetArgs, opts ...program.ResourceOption) *Pet {
	return program.NewResource[Pet](ctx, PetType, name, args, opts...)
}
