package plugin

import (
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"

	"github.com/groundwork-iac/groundwork/plugin/wire"
	"github.com/groundwork-iac/groundwork/providers"
)

// environment is the environment the plugin of package pkg starts with:
// Options.Env (or this process's), then what Pulumi's engine tells every
// provider plugin it starts:
//
//	PULUMI_PROJECT          Options.Project, if set
//	PULUMI_CONFIG           the package's own configuration as a JSON
//	                        object: the keys of namespace "<pkg>" without
//	                        it, values as strings (non-strings as JSON,
//	                        secrets in plaintext); "{}" when it has none
//	PULUMI_RUNTIME_<NAME>   each of Options.RuntimeOptions
//
// and, for the Node.js dynamic provider, whose SDK reads its own name,
// PULUMI_NODEJS_PROJECT. A dynamic provider's PULUMI_CONFIG holds the keys
// of its own namespace ("pulumi-nodejs:id" is "id"), as under Pulumi; the
// stack's whole configuration reaches it through Configure. Nothing is
// added when Options names no project and holds no configuration.
func (o Options) environment(pkg string) ([]string, error) {
	if o.Project == "" && o.Config == nil && len(o.RuntimeOptions) == 0 {
		return o.Env, nil
	}
	env := o.Env
	if env == nil {
		env = os.Environ()
	}
	env = slices.Clip(env)
	set := func(k, v string) {
		if v != "" {
			env = append(env, k+"="+v)
		}
	}
	set("PULUMI_PROJECT", o.Project)
	if pkg == providers.DynamicNodeJS {
		set("PULUMI_NODEJS_PROJECT", o.Project)
	}
	for _, name := range slices.Sorted(maps.Keys(o.RuntimeOptions)) {
		set("PULUMI_RUNTIME_"+strings.ToUpper(name), o.RuntimeOptions[name])
	}
	config, err := o.packageConfig(pkg)
	if err != nil {
		return nil, err
	}
	return append(env, "PULUMI_CONFIG="+config), nil
}

// packageConfig renders PULUMI_CONFIG for the plugin of pkg: its
// namespace's keys, without the namespace.
func (o Options) packageConfig(pkg string) (string, error) {
	values, _, err := wire.StackConfig(o.Config)
	if err != nil {
		return "", fmt.Errorf("start plugin %s: %w", pkg, err)
	}
	own := map[string]string{}
	for k, v := range values {
		if name, ok := strings.CutPrefix(k, pkg+":"); ok && name != "" {
			own[name] = v
		}
	}
	b, err := json.Marshal(own)
	if err != nil {
		return "", fmt.Errorf("start plugin %s: %w", pkg, err)
	}
	return string(b), nil
}
