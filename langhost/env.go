package langhost

import (
	"encoding/json"
	"math"
	"os"
	"strconv"

	"github.com/groundwork-iac/groundwork/engine"
	"github.com/groundwork-iac/groundwork/plugin/wire"
	"github.com/groundwork-iac/groundwork/resource"
)

// The variables the Pulumi SDKs read to find the engine and the stack.
const (
	EnvMonitor          = "PULUMI_MONITOR"
	EnvEngine           = "PULUMI_ENGINE"
	EnvProject          = "PULUMI_PROJECT"
	EnvStack            = "PULUMI_STACK"
	EnvOrganization     = "PULUMI_ORGANIZATION"
	EnvRootDirectory    = "PULUMI_ROOT_DIRECTORY"
	EnvConfig           = "PULUMI_CONFIG"
	EnvConfigSecretKeys = "PULUMI_CONFIG_SECRET_KEYS"
	EnvDryRun           = "PULUMI_DRY_RUN"
	EnvParallel         = "PULUMI_PARALLEL"
)

// environment is the program's environment: this process's, the
// program's extra variables, then the stack's settings.
func environment(c *engine.Context, p *Program, addr string) ([]string, error) {
	config, secretKeys, err := ConfigJSON(c.Config())
	if err != nil {
		return nil, err
	}
	org := p.Organization
	if org == "" {
		org = DefaultOrganization
	}
	root := p.RootDirectory
	if root == "" {
		root = p.Dir
	}
	if root == "" {
		if root, err = os.Getwd(); err != nil {
			return nil, err
		}
	}
	env := append(os.Environ(), p.Env...)
	if p.Language == NodeJS && !p.NoTypeScript {
		env = append(env, "PULUMI_NODEJS_TYPESCRIPT=true")
	}
	return append(env,
		EnvMonitor+"="+addr,
		EnvEngine+"="+addr,
		EnvProject+"="+c.Project(),
		EnvStack+"="+c.Stack(),
		EnvOrganization+"="+org,
		EnvRootDirectory+"="+root,
		EnvConfig+"="+config,
		EnvConfigSecretKeys+"="+secretKeys,
		EnvDryRun+"="+strconv.FormatBool(c.Preview()),
		EnvParallel+"="+strconv.Itoa(parallel(c)),
	), nil
}

// parallel is the parallelism told to the program: the operation's bound,
// or the largest the SDKs read when there is none.
func parallel(c *engine.Context) int {
	if n := c.Parallelism(); n > 0 {
		return n
	}
	return math.MaxInt32
}

// ConfigJSON renders stack configuration as the SDKs read it: PULUMI_CONFIG
// is a JSON object of "<namespace>:<key>" to string (a string as it is,
// anything else as JSON), and PULUMI_CONFIG_SECRET_KEYS a JSON array of
// the keys whose values are secret, sorted. Secret values are in
// plaintext: the environment is the program's alone.
func ConfigJSON(config map[string]resource.PropertyValue) (configJSON, secretKeysJSON string, err error) {
	values, secret, err := wire.StackConfig(config)
	if err != nil {
		return "", "", err
	}
	cb, err := json.Marshal(values)
	if err != nil {
		return "", "", err
	}
	sb, err := json.Marshal(secret)
	if err != nil {
		return "", "", err
	}
	return string(cb), string(sb), nil
}
