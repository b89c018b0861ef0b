// Package random is a built-in provider of random values: strings,
// integers, UUIDs and pet names, and pulumi-random's types (below). It
// takes no configuration. Register it in
// a providers.Registry with Register, or use New directly. In a program,
// declare its resources with the typed constructors NewString, NewInteger,
// NewUUID and NewPet, whose arguments and outputs are Go structs naming the
// properties below.
//
// A value is generated once, when the resource is created (from
// crypto/rand), and then never changes: every input change, including a
// change of keepers, replaces the resource and so generates a new value.
// keepers (an object of any values, on every type) exists for exactly that:
// put in it whatever should cause a new value when it changes. During a
// preview the result is unknown.
//
// A random value exists only in the deployment's state, so Read returns the
// recorded state unchanged (except for resources this provider instance has
// deleted, which it reports gone). Created resources get opaque random IDs.
// To import an existing value, use the value as the ID, written as each
// type describes below; the imported resource keeps that ID, except a
// String, whose ID would reveal the secret.
//
// # random:index:String
//
// Inputs: length (number, required, 1 to 4096); upper, lower, numeric,
// special (bools, default true: which classes of characters to use, at
// least one); minUpper, minLower, minNumeric, minSpecial (numbers, default
// 0: at least that many characters of the class, which must then be
// enabled, together no more than length); overrideSpecial (string: the
// special characters to use instead of the default !#%&*()-_=+[]{}<>:?);
// keepers.
//
// Outputs: the inputs with defaults, and result, the string, always
// secret. Import ID: the string itself; the imported resource gets a fresh
// opaque ID so that the secret does not stay in it, and its inputs are its
// length with the other inputs at their defaults.
//
// # random:index:Integer
//
// Inputs: min and max (numbers, required, whole, min <= max, within
// ±2^53); seed (string, optional: the same seed and range always give the
// same number); keepers.
//
// Outputs: the inputs and result, a number from min to max inclusive.
// Import ID: the number ("7", meaning min and max are 7 too) or the number,
// min and max separated by commas ("7,1,10").
//
// # random:index:UUID
//
// Inputs: keepers. Outputs: keepers and result, a random (version 4) UUID
// in lower case. Import ID: the UUID.
//
// # random:index:Pet
//
// Inputs: length (number, default 2, 1 to 64: how many words, the last an
// animal and the others adjectives); separator (string, default "-");
// prefix (string, optional: a first word); keepers.
//
// Outputs: the inputs with defaults and result, the name, such as
// "brave-otter". Import ID: the name with its words separated by "-"; leading
// words that are not adjectives from the provider's list become the prefix.
//
// # pulumi-random's types
//
// The provider also serves the resource types of pulumi-random 4.x, so
// that programs written with its SDKs run unchanged: RandomPetType,
// RandomStringType, RandomPasswordType, RandomIntegerType, RandomIDType,
// RandomUUIDType, RandomUUID4Type, RandomUUID7Type, RandomShuffleType and
// RandomBytesType, with the inputs,
// outputs, defaults, secrets, IDs and import IDs pulumi-random documents
// (the repository's COMPATIBILITY.md says what differs). Their checked
// inputs are what the program gave; the defaults appear in the outputs.
// Register records the provider at PulumiVersion too, claiming every 4.x
// version, and GetSchema answers package random at that version.
package random
