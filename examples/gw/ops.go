package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"

	"github.com/groundwork-iac/groundwork/display"
	"github.com/groundwork-iac/groundwork/engine"
	"github.com/groundwork-iac/groundwork/langhost"
	"github.com/groundwork-iac/groundwork/monitor"
	"github.com/groundwork-iac/groundwork/monitor/grpcserver"
	"github.com/groundwork-iac/groundwork/plugin"
	"github.com/groundwork-iac/groundwork/providers"
	"github.com/groundwork-iac/groundwork/providers/command"
	"github.com/groundwork-iac/groundwork/providers/local"
	"github.com/groundwork-iac/groundwork/providers/random"
	"github.com/groundwork-iac/groundwork/resource"
	"github.com/groundwork-iac/groundwork/state"
	"github.com/groundwork-iac/groundwork/state/storeurl"
)

// execute runs the operation the command line asks for.
func (c *cli) execute(ctx context.Context, stdin io.Reader, stdout, stderr io.Writer) error {
	proj, err := readProject(".")
	if err != nil {
		return err
	}
	if c.project == "" {
		c.project = proj.Name
	}
	if c.project == "" {
		return usagef("no project: pass --project or run gw where a Pulumi.yaml names one")
	}
	config, err := c.stackConfig()
	if err != nil {
		return err
	}
	var storeOpts []state.Option
	if pass := os.Getenv("GW_PASSPHRASE"); pass != "" {
		storeOpts = append(storeOpts, state.WithSecrets(state.PassphraseSecrets(pass)))
	}
	store, err := storeurl.Open(ctx, c.stateURL, storeOpts...)
	if err != nil {
		return err
	}
	defer store.Close()
	errw := &lockedWriter{w: stderr}
	// Plugins built with Pulumi's SDKs log through the engine service, so
	// they are given the address of one for the whole run.
	logs, err := grpcserver.Start(ctx, grpcserver.Config{Monitor: logsOnly{}, Log: func(m grpcserver.LogMessage) {
		fmt.Fprintf(errw, "plugin %s: %s\n", m.Severity, m.Message)
	}})
	if err != nil {
		return err
	}
	defer logs.Stop()
	pluginOpts := plugin.Options{Dirs: c.pluginDirs, EngineAddress: logs.Addr(), Diagnostics: func(line string) {
		fmt.Fprintln(errw, "plugin:", line)
	}}

	mode := display.ModeAuto
	if c.json {
		mode = display.ModeJSON
	}
	r := display.New(stdout, display.Options{Mode: mode})
	defer r.Close()
	eng, err := engine.New(engine.Config{
		Project: c.project, Stack: c.stack, Store: store, Config: config, OnEvent: r.Event,
		Providers: func() *providers.Registry { return registry(pluginOpts) },
	})
	if err != nil {
		return err
	}
	res, err := c.operate(ctx, eng, proj, stdin, stdout)
	r.Close()
	if err != nil {
		return err
	}
	return c.printOutputs(stdout, res)
}

// registry holds the built-in providers and finds every other package's
// plugin on demand.
func registry(opts plugin.Options) *providers.Registry {
	r := providers.NewRegistry(providers.WithResolver(plugin.Resolver(opts)))
	for _, register := range []func(*providers.Registry) error{local.Register, random.Register, command.Register} {
		if err := register(r); err != nil {
			panic(err) // the built-in providers' versions are constants: this cannot fail
		}
	}
	return r
}

// stackConfig collects --config and --secret-config.
func (c *cli) stackConfig() (map[string]resource.PropertyValue, error) {
	config := map[string]resource.PropertyValue{}
	for _, kv := range c.config {
		k, v, err := setting(c.project, kv)
		if err != nil {
			return nil, err
		}
		config[k] = resource.NewString(v)
	}
	for _, kv := range c.secrets {
		k, v, err := setting(c.project, kv)
		if err != nil {
			return nil, err
		}
		config[k] = resource.NewSecret(resource.NewString(v))
	}
	return config, nil
}

// options are the engine options of the command line.
func (c *cli) options() []engine.Option {
	var opts []engine.Option
	if c.parallel > 0 {
		opts = append(opts, engine.Parallelism(c.parallel))
	}
	if len(c.targets) > 0 {
		urns := make([]resource.URN, len(c.targets))
		for i, t := range c.targets {
			urns[i] = resource.URN(t)
		}
		opts = append(opts, engine.Targets(urns...))
	}
	return opts
}

// operate runs the operation, asking first (after a preview) unless --yes.
func (c *cli) operate(ctx context.Context, eng *engine.Engine, proj project, stdin io.Reader, stdout io.Writer) (*engine.Result, error) {
	opts := c.options()
	var prog engine.Program
	if c.op == "preview" || c.op == "up" {
		p, err := c.programOf(proj)
		if err != nil {
			return nil, err
		}
		prog = p.Run
	}
	if c.op == "preview" {
		if c.refresh {
			if _, err := eng.PreviewRefresh(ctx, opts...); err != nil {
				return nil, err
			}
		}
		return eng.Preview(ctx, prog, opts...)
	}
	if !c.yes {
		if err := c.confirm(ctx, eng, prog, opts, stdin, stdout); err != nil {
			return nil, err
		}
	}
	if c.refresh && c.op != "refresh" {
		if _, err := eng.Refresh(ctx, opts...); err != nil {
			return nil, err
		}
	}
	switch c.op {
	case "up":
		return eng.Up(ctx, prog, opts...)
	case "refresh":
		return eng.Refresh(ctx, opts...)
	case "destroy":
		return eng.Destroy(ctx, opts...)
	}
	specs, err := c.importSpecs()
	if err != nil {
		return nil, err
	}
	return eng.Import(ctx, specs, opts...)
}

// confirm previews the operation and asks whether to go ahead. Without a
// terminal to ask on, it fails: --yes is then required.
func (c *cli) confirm(ctx context.Context, eng *engine.Engine, prog engine.Program, opts []engine.Option, stdin io.Reader, stdout io.Writer) error {
	if !isTerminal(stdin) {
		return usagef("gw %s changes the stack: pass --yes to go ahead without a prompt", c.op)
	}
	var err error
	switch c.op {
	case "up":
		_, err = eng.Preview(ctx, prog, opts...)
	case "refresh":
		_, err = eng.PreviewRefresh(ctx, opts...)
	case "destroy":
		_, err = eng.PreviewDestroy(ctx, opts...)
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "\nDo you want to perform this %s on stack %s? [y/N] ", c.op, c.stack)
	answer, _ := bufio.NewReader(stdin).ReadString('\n')
	if a := strings.ToLower(strings.TrimSpace(answer)); a != "y" && a != "yes" {
		return errors.New("cancelled: nothing was changed")
	}
	return nil
}

func isTerminal(r io.Reader) bool {
	f, ok := r.(*os.File)
	if !ok {
		return false
	}
	info, err := f.Stat()
	return err == nil && info.Mode()&os.ModeCharDevice != 0
}

// programOf returns the program to run: the command after "--", or the
// project runtime's default.
func (c *cli) programOf(proj project) (*langhost.Program, error) {
	dir, err := programDir(proj)
	if err != nil {
		return nil, err
	}
	var p *langhost.Program
	switch {
	case proj.Runtime == "nodejs" && len(c.program) > 0:
		p = langhost.Node(c.program[0], c.program[1:]...)
	case proj.Runtime == "nodejs":
		p = langhost.Node(".")
	case len(c.program) > 0:
		p = langhost.Command(c.program[0], c.program[1:]...)
	case proj.Runtime == "go":
		p = langhost.Command("go", "run", ".")
	default:
		return nil, usagef("gw %s needs the program: give its command after --", c.op)
	}
	p.Dir = dir
	return p, nil
}

// importFile is the format of --file.
type importFile struct {
	Resources []struct {
		Type     string `json:"type"`
		Name     string `json:"name"`
		ID       string `json:"id"`
		Provider string `json:"provider"`
		Parent   string `json:"parent"`
		Version  string `json:"version"`
	} `json:"resources"`
}

func (c *cli) importSpecs() ([]engine.ImportSpec, error) {
	if c.importFile == "" {
		return []engine.ImportSpec{{
			Type: c.positionals[0], Name: c.positionals[1], ID: resource.ID(c.positionals[2]),
			Provider: c.provider, Parent: resource.URN(c.parent), Version: c.version,
		}}, nil
	}
	b, err := os.ReadFile(c.importFile)
	if err != nil {
		return nil, err
	}
	var f importFile
	if err := json.Unmarshal(b, &f); err != nil {
		return nil, fmt.Errorf("%s: %w", c.importFile, err)
	}
	specs := make([]engine.ImportSpec, len(f.Resources))
	for i, r := range f.Resources {
		specs[i] = engine.ImportSpec{Type: r.Type, Name: r.Name, ID: resource.ID(r.ID),
			Provider: r.Provider, Parent: resource.URN(r.Parent), Version: r.Version}
	}
	return specs, nil
}

// printOutputs shows the stack outputs after an update, secrets masked: as
// one JSON line ({"type": "outputs", ...}) in JSON mode.
func (c *cli) printOutputs(w io.Writer, res *engine.Result) error {
	if res == nil || len(res.Outputs) == 0 || c.op != "up" {
		return nil
	}
	masked := make(map[string]any, len(res.Outputs))
	for _, k := range res.Outputs.StableKeys() {
		v := res.Outputs[k]
		if v.ContainsSecrets() {
			masked[string(k)] = "[secret]"
			continue
		}
		masked[string(k)] = v.Mappable()
	}
	if c.json {
		return json.NewEncoder(w).Encode(map[string]any{"type": "outputs", "outputs": masked})
	}
	fmt.Fprintln(w, "\nOutputs:")
	for _, k := range res.Outputs.StableKeys() {
		v := masked[string(k)]
		if s, ok := v.(string); ok {
			fmt.Fprintf(w, "    %s: %s\n", k, s)
			continue
		}
		b, err := json.Marshal(v)
		if err != nil {
			b = []byte(fmt.Sprint(v))
		}
		fmt.Fprintf(w, "    %s: %s\n", k, b)
	}
	return nil
}

// lockedWriter serializes writes from plugin goroutines.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// logsOnly is the monitor of the server that plugins log to: it takes no
// resource requests.
type logsOnly struct{}

var errLogsOnly = errors.New("this address serves the engine's log only")

func (logsOnly) RegisterResource(context.Context, resource.Goal) (providers.RegisterResult, error) {
	return providers.RegisterResult{}, errLogsOnly
}

func (logsOnly) RegisterResourceOutputs(context.Context, resource.URN, resource.PropertyMap) error {
	return errLogsOnly
}

func (logsOnly) ReadResource(context.Context, resource.Goal, resource.ID) (providers.RegisterResult, error) {
	return providers.RegisterResult{}, errLogsOnly
}

func (logsOnly) Invoke(context.Context, monitor.InvokeRequest) (providers.InvokeResponse, error) {
	return providers.InvokeResponse{}, errLogsOnly
}

func (logsOnly) Call(context.Context, monitor.CallRequest) (providers.CallResponse, error) {
	return providers.CallResponse{}, errLogsOnly
}
