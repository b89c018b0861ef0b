package display

import (
	"encoding/json"
	"sort"

	"github.com/groundwork-iac/groundwork/resource"
)

// outputLines renders the stack's outputs for the summary: "Outputs:",
// then one indented "key: value" line each, sorted by key. A string shows
// as it is, a secret as [secret], a value not known yet as [unknown], and
// anything else as JSON. Nothing for a stack without outputs.
func outputLines(outputs resource.PropertyMap) []string {
	if len(outputs) == 0 {
		return nil
	}
	keys := make([]string, 0, len(outputs))
	for k := range outputs {
		keys = append(keys, string(k))
	}
	sort.Strings(keys)
	ls := []string{"Outputs:"}
	for _, k := range keys {
		ls = append(ls, "    "+k+": "+outputText(outputs[resource.PropertyKey(k)]))
	}
	return append(ls, "")
}

// outputText is one output's value on one line.
func outputText(v resource.PropertyValue) string {
	j := valueJSON(v)
	if s, ok := j.(string); ok {
		return s
	}
	b, err := json.Marshal(j)
	if err != nil {
		return "[unprintable]"
	}
	return string(b)
}

type jsonOutputs struct {
	Type    string         `json:"type"`
	Outputs map[string]any `json:"outputs"`
}
