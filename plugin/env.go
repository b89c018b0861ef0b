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
// Options.Env (or this process's), then what the stack tells plugins, as
// Pulumi's engine starts them:
//
//	PULUMI_PROJECT, PULUMI_STACK    Options.Project and Options.Stack
//	PULUMI_ORGANIZATION             Options.Organization
//	PULUMI_CONFIG                   the package's configuration, keys without
//	                                their "<pkg>:" (a dynamic provider's: the
//	                                whole stack's, keys with namespaces, and
//	                                PULUMI_CONFIG_SECRET_KEYS naming secrets)
//	PULUMI_RUNTIME_<NAME>           each of Options.RuntimeOptions
//
// and, for the Node.js dynamic provider, whose SDK reads its own names,
// PULUMI_NODEJS_PROJECT, PULUMI_NODEJS_STACK and
// PULUMI_NODEJS_ORGANIZATION. Values are strings; non-strings are JSON.
// Nothing is added when Options names no project and holds no
// configuration.
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
	set("PULUMI_STACK", o.Stack)
	set("PULUMI_ORGANIZATION", o.Organization)
	if pkg == providers.DynamicNodeJS {
		set("PULUMI_NODEJS_PROJECT", o.Project)
		set("PULUMI_NODEJS_STACK", o.Stack)
		set("PULUMI_NODEJS_ORGANIZATION", o.Organization)
	}
	for _, name := range slices.Sorted(maps.Keys(o.RuntimeOptions)) {
		set("PULUMI_RUNTIME_"+strings.ToUpper(name), o.RuntimeOptions[name])
	}
	config, secretKeys, err := o.packageConfig(pkg)
	if err != nil {
		return nil, err
	}
	env = append(env, "PULUMI_CONFIG="+config)
	if secretKeys != "" {
		env = append(env, "PULUMI_CONFIG_SECRET_KEYS="+secretKeys)
	}
	return env, nil
}

// packageConfig renders PULUMI_CONFIG (and, for a dynamic provider,
// PULUMI_CONFIG_SECRET_KEYS) for the plugin of pkg.
func (o Options) packageConfig(pkg string) (config, secretKeys string, err error) {
	values, secrets, err := wire.StackConfig(o.Config)
	if err != nil {
		return "", "", fmt.Errorf("start plugin %s: %w", pkg, err)
	}
	if !providers.IsDynamic(pkg) {
		own := map[string]string{}
		for k, v := range values {
			if name, ok := strings.CutPrefix(k, pkg+":"); ok && name != "" {
				own[name] = v
			}
		}
		values, secrets = own, nil
	}
	b, err := json.Marshal(values)
	if err != nil {
		return "", "", err
	}
	if secrets == nil {
		return string(b), "", nil
	}
	s, err := json.Marshal(secrets)
	if err != nil {
		return "", "", err
	}
	return string(b), string(s), nil
}
