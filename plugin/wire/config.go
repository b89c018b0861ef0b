package wire

import (
	"encoding/json"
	"fmt"
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
