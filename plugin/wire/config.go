package wire

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"google.golang.org/protobuf/types/known/structpb"

	"github.com/groundwork-iac/groundwork/resource"
)

// ConfigVariables renders a provider's configuration in the legacy form
// that older plugins read from Configure: a map from "<pkg>:config:<key>"
// to a string. A string value is itself; an unknown is UnknownStringValue;
// anything else is JSON, with secrets revealed, resource references as
// their ID or URN and nested unknowns as sentinels.
func ConfigVariables(pkg string, config resource.PropertyMap) (map[string]string, error) {
	plain := Options{KeepUnknowns: true}
	vars := make(map[string]string, len(config))
	for _, k := range config.StableKeys() {
		v := config[k].Unwrap()
		var s string
		switch {
		case v.IsString():
			s = v.StringValue()
		case v.IsUnknown():
			s = UnknownStringValue
		default:
			w, err := MarshalValue(v, plain)
			if err != nil {
				return nil, atKey(string(k), err)
			}
			b, err := json.Marshal(w.AsInterface())
			if err != nil {
				return nil, &Error{Path: string(k), Reason: "cannot render as JSON: " + err.Error()}
			}
			s = string(b)
		}
		vars[pkg+":config:"+string(k)] = s
	}
	return vars, nil
}

// ParseConfigVariables reads the legacy form of a provider's
// configuration (see ConfigVariables). Keys are "<pkg>:config:<key>" or
// "<pkg>:<key>". A value that parses as JSON is that JSON value, otherwise
// it is the string itself; unknown sentinels are unknowns.
func ParseConfigVariables(vars map[string]string) (resource.PropertyMap, error) {
	out := make(resource.PropertyMap, len(vars))
	for key, raw := range vars {
		name, err := configKeyName(key)
		if err != nil {
			return nil, err
		}
		w := structpb.NewStringValue(raw)
		var decoded any
		if json.Unmarshal([]byte(raw), &decoded) == nil {
			if jw, err := structpb.NewValue(decoded); err == nil {
				w = jw
			}
		}
		v, err := UnmarshalValue(w, Options{KeepUnknowns: true, KeepSecrets: true, KeepResources: true, KeepOutputValues: true})
		if err != nil {
			return nil, atKey(name, err)
		}
		out[resource.PropertyKey(name)] = v
	}
	return out, nil
}

// configKeyName returns the key name of a configuration key in either
// spelling.
func configKeyName(key string) (string, error) {
	parts := strings.Split(key, ":")
	switch {
	case len(parts) == 2 && parts[0] != "" && parts[1] != "":
		return parts[1], nil
	case len(parts) == 3 && parts[0] != "" && parts[1] == "config" && parts[2] != "":
		return parts[2], nil
	}
	return "", fmt.Errorf("wire: configuration key %q is malformed; want <package>:config:<key> or <package>:<key>", key)
}

// StackConfig renders stack configuration as the protocol carries it to
// programs and components (PULUMI_CONFIG, and the config of a
// ConstructRequest or CallRequest): a map from "<namespace>:<key>" to a
// string — a string value is itself, anything else its JSON with secrets
// revealed — and the keys whose values are or hold secrets, sorted. An
// unknown value is an error: configuration is known before a deployment
// starts.
func StackConfig(config map[string]resource.PropertyValue) (values map[string]string, secretKeys []string, err error) {
	values = make(map[string]string, len(config))
	secretKeys = []string{}
	for _, k := range slices.Sorted(maps.Keys(config)) {
		v := config[k]
		if v.ContainsUnknowns() {
			return nil, nil, fmt.Errorf("config %s is unknown", k)
		}
		if v.ContainsSecrets() {
			secretKeys = append(secretKeys, k)
		}
		plain := v.Unwrap()
		if plain.IsString() {
			values[k] = plain.StringValue()
			continue
		}
		b, err := json.Marshal(plain.Mappable())
		if err != nil {
			return nil, nil, fmt.Errorf("config %s cannot be rendered as JSON: %w", k, err)
		}
		values[k] = string(b)
	}
	return values, secretKeys, nil
}

// ParseStackConfig reads stack configuration as the protocol carries it
// (see StackConfig): each value is a string, made secret when its key is
// among secretKeys.
func ParseStackConfig(values map[string]string, secretKeys []string) map[string]resource.PropertyValue {
	out := make(map[string]resource.PropertyValue, len(values))
	for k, s := range values {
		out[k] = resource.NewString(s)
	}
	for _, k := range secretKeys {
		if v, ok := out[k]; ok {
			out[k] = resource.NewSecret(v)
		}
	}
	return out
}
