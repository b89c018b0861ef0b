package random

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/groundwork-iac/groundwork/providers"
)

// schemaProp is one property of a resource type in the schema.
type schemaProp struct {
	name, typ, desc string
	secret          bool
}

// schemaType is one resource type in the schema: its inputs (required
// lists those a program must give), the outputs it adds to them, and the
// inputs whose defaults make them always set in the outputs.
type schemaType struct {
	token, desc      string
	inputs, outputs  []schemaProp
	required         []string
	requiredDefaults []string
}

var (
	keepersProp = schemaProp{"keepers", "object", "Any values; a change to them replaces the resource, and so makes a new value.", false}
	// stringKeepers are pulumi-random's keepers, a map of strings.
	stringKeepers = schemaProp{"keepers", "map", "Strings whose change replaces the resource, and so makes a new value.", false}
	stringProps   = []schemaProp{
		stringKeepers,
		{"length", "integer", "How many characters; at least the sum of the min* inputs.", false},
		{"lower", "boolean", "Whether to use lower-case letters (default true).", false},
		{"minLower", "integer", "At least this many lower-case letters (default 0).", false},
		{"minNumeric", "integer", "At least this many digits (default 0).", false},
		{"minSpecial", "integer", "At least this many special characters (default 0).", false},
		{"minUpper", "integer", "At least this many upper-case letters (default 0).", false},
		{"number", "boolean", "Deprecated name of numeric.", false},
		{"numeric", "boolean", "Whether to use digits (default true).", false},
		{"overrideSpecial", "string", "The special characters to use instead of !@#$%&*()-_=+[]{}<>:?.", false},
		{"special", "boolean", "Whether to use special characters (default true).", false},
		{"upper", "boolean", "Whether to use upper-case letters (default true).", false},
	}
	stringDefaults = []string{"length", "lower", "minLower", "minNumeric", "minSpecial", "minUpper", "number", "numeric", "special", "upper"}
)

// schemaTypes are the types the schema describes: pulumi-random's, then
// groundwork's own.
var schemaTypes = []schemaType{
	{token: RandomPetType, desc: "A random pet name, such as brave-otter; the name is the resource's ID.",
		inputs: []schemaProp{stringKeepers,
			{"length", "integer", "How many words (default 2).", false},
			{"prefix", "string", "A first word.", false},
			{"separator", "string", "What goes between the words (default \"-\").", false}},
		requiredDefaults: []string{"length", "separator"}},
	{token: RandomStringType, desc: "A random string; it is the resource's ID. For a secret, use RandomPassword.",
		inputs: stringProps, required: []string{"length"},
		outputs:          []schemaProp{{"result", "string", "The string.", false}},
		requiredDefaults: stringDefaults},
	{token: RandomPasswordType, desc: "A random string kept secret, with its bcrypt hash; the resource's ID is \"none\".",
		inputs: stringProps, required: []string{"length"},
		outputs: []schemaProp{
			{"bcryptHash", "string", "A bcrypt hash of the first 72 bytes of result.", true},
			{"result", "string", "The password.", true}},
		requiredDefaults: stringDefaults},
	{token: RandomIntegerType, desc: "A random whole number from min to max; the number is the resource's ID.",
		inputs: []schemaProp{stringKeepers,
			{"max", "integer", "The largest number it may be.", false},
			{"min", "integer", "The smallest number it may be.", false},
			{"seed", "string", "The same seed and range always give the same number.", false}},
		required: []string{"max", "min"},
		outputs:  []schemaProp{{"result", "integer", "The number.", false}}},
	{token: RandomIDType, desc: "Random bytes written four ways, each after the prefix; b64Url is the resource's ID.",
		inputs: []schemaProp{
			{"byteLength", "integer", "How many random bytes.", false}, stringKeepers,
			{"prefix", "string", "Text put before each rendering, as it is.", false}},
		required: []string{"byteLength"},
		outputs: []schemaProp{
			{"b64Std", "string", "The bytes in padded standard base64.", false},
			{"b64Url", "string", "The bytes in unpadded URL-safe base64.", false},
			{"dec", "string", "The bytes as a big-endian number in decimal.", false},
			{"hex", "string", "The bytes in lower-case hexadecimal.", false}}},
	{token: RandomUUIDType, desc: "A random UUID; it is the resource's ID.",
		inputs:  []schemaProp{stringKeepers},
		outputs: []schemaProp{{"result", "string", "The UUID.", false}}},
	{token: RandomUUID4Type, desc: "A random version 4 UUID; it is the resource's ID.",
		inputs:  []schemaProp{stringKeepers},
		outputs: []schemaProp{{"result", "string", "The UUID.", false}}},
	{token: RandomUUID7Type, desc: "A version 7 UUID (the time it was made, then random bits); it is the resource's ID.",
		inputs:  []schemaProp{stringKeepers},
		outputs: []schemaProp{{"result", "string", "The UUID.", false}}},
	{token: RandomShuffleType, desc: "The inputs in a random order; the resource's ID is \"-\".",
		inputs: []schemaProp{
			{"inputs", "array", "The strings to shuffle.", false}, stringKeepers,
			{"resultCount", "integer", "How many results (default: as many as inputs; more repeat them).", false},
			{"seed", "string", "The same seed and inputs always give the same order.", false}},
		required: []string{"inputs"},
		outputs:  []schemaProp{{"results", "array", "The shuffled strings.", false}}},
	{token: RandomBytesType, desc: "Random bytes kept secret; the resource's ID is \"none\".",
		inputs:   []schemaProp{stringKeepers, {"length", "integer", "How many bytes.", false}},
		required: []string{"length"},
		outputs: []schemaProp{
			{"base64", "string", "The bytes in padded standard base64.", true},
			{"hex", "string", "The bytes in lower-case hexadecimal.", true}}},
	{token: StringType, desc: "groundwork's random string; result is always secret.",
		inputs: []schemaProp{keepersProp,
			{"length", "integer", "How many characters, 1 to 4096.", false},
			{"lower", "boolean", "Whether to use lower-case letters (default true).", false},
			{"minLower", "integer", "At least this many lower-case letters (default 0).", false},
			{"minNumeric", "integer", "At least this many digits (default 0).", false},
			{"minSpecial", "integer", "At least this many special characters (default 0).", false},
			{"minUpper", "integer", "At least this many upper-case letters (default 0).", false},
			{"numeric", "boolean", "Whether to use digits (default true).", false},
			{"overrideSpecial", "string", "The special characters to use instead of !#%&*()-_=+[]{}<>:?.", false},
			{"special", "boolean", "Whether to use special characters (default true).", false},
			{"upper", "boolean", "Whether to use upper-case letters (default true).", false}},
		required: []string{"length"},
		outputs:  []schemaProp{{"result", "string", "The string.", true}}},
	{token: IntegerType, desc: "groundwork's random whole number from min to max.",
		inputs: []schemaProp{keepersProp,
			{"max", "integer", "The largest number it may be.", false},
			{"min", "integer", "The smallest number it may be.", false},
			{"seed", "string", "The same seed and range always give the same number.", false}},
		required: []string{"max", "min"},
		outputs:  []schemaProp{{"result", "integer", "The number.", false}}},
	{token: UUIDType, desc: "groundwork's random (version 4) UUID.",
		inputs:  []schemaProp{keepersProp},
		outputs: []schemaProp{{"result", "string", "The UUID.", false}}},
	{token: PetType, desc: "groundwork's random pet name, such as brave-otter.",
		inputs: []schemaProp{keepersProp,
			{"length", "integer", "How many words (default 2).", false},
			{"prefix", "string", "A first word.", false},
			{"separator", "string", "What goes between the words (default \"-\").", false}},
		outputs:          []schemaProp{{"result", "string", "The name.", false}},
		requiredDefaults: []string{"length", "separator"}},
}

// GetSchema answers the package schema of the types the provider serves:
// package random at PulumiVersion, so that SDK generators and tools see
// pulumi-random's types (and groundwork's own) with their properties.
func (p *provider) GetSchema(ctx context.Context, req providers.GetSchemaRequest) (providers.GetSchemaResponse, error) {
	if req.Version > 0 && req.Version != 1 {
		return providers.GetSchemaResponse{}, fmt.Errorf("the %s provider writes schema format 1, not %d", Package, req.Version)
	}
	b, err := json.Marshal(schema())
	if err != nil {
		return providers.GetSchemaResponse{}, fmt.Errorf("encode the %s schema: %w", Package, err)
	}
	return providers.GetSchemaResponse{Schema: b}, nil
}

// schema builds the package schema as JSON values.
func schema() map[string]any {
	resources := map[string]any{}
	for _, t := range schemaTypes {
		inputs := map[string]any{}
		props := map[string]any{}
		for _, sp := range t.inputs {
			inputs[sp.name] = sp.spec()
			props[sp.name] = sp.spec()
		}
		for _, sp := range t.outputs {
			props[sp.name] = sp.spec()
		}
		required := append([]string{}, t.requiredDefaults...)
		for _, sp := range t.outputs {
			required = append(required, sp.name)
		}
		for _, r := range t.required {
			if !slices.Contains(required, r) {
				required = append(required, r)
			}
		}
		spec := map[string]any{
			"description":     t.desc,
			"inputProperties": inputs,
			"properties":      props,
			"type":            "object",
		}
		if len(t.required) > 0 {
			spec["requiredInputs"] = t.required
		}
		if len(required) > 0 {
			slices.Sort(required)
			spec["required"] = required
		}
		resources[t.token] = spec
	}
	return map[string]any{
		"name":        Package,
		"displayName": "random",
		"version":     PulumiVersion,
		"description": "Random values (strings, passwords, numbers, IDs, UUIDs, pet names, shuffles, bytes), served by groundwork's built-in provider.",
		"meta":        map[string]any{"moduleFormat": "(.*)(?:/[^/]*)"},
		"language": map[string]any{
			"go":     map[string]any{"importBasePath": "github.com/pulumi/pulumi-random/sdk/v4/go/random"},
			"nodejs": map[string]any{"packageName": "@pulumi/random"},
		},
		"config":    map[string]any{},
		"provider":  map[string]any{"description": "The random provider takes no configuration.", "type": "object"},
		"resources": resources,
	}
}

// spec is the property's schema.
func (sp schemaProp) spec() map[string]any {
	s := map[string]any{"type": sp.typ, "description": sp.desc}
	switch sp.typ {
	case "object":
		s["additionalProperties"] = map[string]any{"$ref": "pulumi.json#/Any"}
	case "map":
		s["type"] = "object"
		s["additionalProperties"] = map[string]any{"type": "string"}
	case "array":
		s["items"] = map[string]any{"type": "string"}
	}
	if sp.secret {
		s["secret"] = true
	}
	return s
}
