package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/groundwork-iac/groundwork/display"
	"github.com/groundwork-iac/groundwork/engine"
	"github.com/groundwork-iac/groundwork/langhost"
	"github.com/groundwork-iac/groundwork/monitor"
	"github.com/groundwork-iac/groundwork/monitor/grpcserver"
	"github.com/groundwork-iac/groundwork/plugin"
	"github.com/groundwork-iac/groundwork/providers"
	commandprovider "github.com/groundwork-iac/groundwork/providers/command"
	"github.com/groundwork-iac/groundwork/providers/local"
	"github.com/groundwork-iac/groundwork/providers/random"
	"github.com/groundwork-iac/groundwork/resource"
	"github.com/groundwork-iac/groundwork/state"
	"github.com/groundwork-iac/groundwork/state/storeurl"
	"golang.org/x/term"
)

// session is what an operation needs: the project, its stack's
// configuration, the state store, the display and the engine.
type session struct {
	inv     *invocation
	proj    project
	store   storeurl.Store
	display *display.Renderer
	eng     *engine.Engine
	// closers run in reverse order when the session ends.
	closers []func()
}

// close ends the session.
func (s *session) close() {
	for i := len(s.closers) - 1; i >= 0; i-- {
		s.closers[i]()
	}
}

// passphrase is the passphrase of the stack's secrets.
func passphrase() string {
	if p := os.Getenv("GW_PASSPHRASE"); p != "" {
		return p
	}
	return os.Getenv("PULUMI_CONFIG_PASSPHRASE")
}

// openProject reads ./Pulumi.yaml and settles the project's name.
func openProject(o *options) (project, error) {
	proj, err := readProject(".")
	if err != nil {
		return project{}, err
	}
	if o.project == "" {
		o.project = proj.Name
	}
	if o.project == "" {
		return project{}, usagef("no project: pass --project or run gw where a Pulumi.yaml names one")
	}
	return proj, nil
}

// openStore opens the state store of --state.
func openStore(ctx context.Context, o *options) (storeurl.Store, error) {
	storeOpts := []state.Option{state.WithUnlockHint(unlockHint(o))}
	if pass := passphrase(); pass != "" {
		storeOpts = append(storeOpts, state.WithSecrets(state.PassphraseSecrets(pass)))
	}
	return storeurl.Open(ctx, o.stateURL, storeOpts...)
}

// openSession prepares an operation: it saves --config and
// --secret-config in the stack's config file, reads the configuration,
// opens the store and starts the engine.
func openSession(ctx context.Context, inv *invocation) (_ *session, err error) {
	o := &inv.opts
	if o.parallel < 0 {
		return nil, usagef("--parallel must not be negative")
	}
	s := &session{inv: inv}
	defer func() {
		if err != nil {
			s.close()
		}
	}()
	if s.proj, err = openProject(o); err != nil {
		return nil, err
	}
	config, err := stackConfigValues(ctx, o)
	if err != nil {
		return nil, err
	}
	if s.store, err = openStore(ctx, o); err != nil {
		return nil, err
	}
	s.closers = append(s.closers, func() { s.store.Close() })
	errw := &lockedWriter{w: inv.stderr}
	// Plugins built with Pulumi's SDKs log through the engine service, so
	// they are given the address of one for the whole run.
	logs, err := grpcserver.Start(ctx, grpcserver.Config{Monitor: logsOnly{}, Log: func(m grpcserver.LogMessage) {
		fmt.Fprintf(errw, "plugin %s: %s\n", m.Severity, m.Message)
	}})
	if err != nil {
		return nil, err
	}
	s.closers = append(s.closers, func() { logs.Stop() })
	pluginOpts, err := pluginOptions(o, s.proj, config, logs.Addr(), func(line string) { fmt.Fprintln(errw, "plugin:", line) })
	if err != nil {
		return nil, err
	}
	mode := display.ModeAuto
	if o.json {
		mode = display.ModeJSON
	}
	s.display = display.New(inv.stdout, display.Options{Mode: mode, ShowSames: o.showSames, ShowDebug: o.debug})
	s.closers = append(s.closers, func() { s.display.Close() })
	onEvent := func(e engine.Event) {
		if sum, ok := e.(engine.SummaryEvent); ok && sum.Error != "" && !o.json {
			inv.shownError = sum.Error
		}
		s.display.Event(e)
	}
	s.eng, err = engine.New(engine.Config{
		Project: o.project, Stack: o.stack, Store: s.store, Config: config, OnEvent: onEvent,
		Providers: func() *providers.Registry { return registry(pluginOpts) },
	})
	return s, err
}

// stackConfigValues saves --config and --secret-config in the stack's
// config file (as the Pulumi CLI does) and returns its values.
func stackConfigValues(ctx context.Context, o *options) (map[string]resource.PropertyValue, error) {
	cfg, err := loadStackConfig(".", o.stack, passphrase)
	if err != nil {
		return nil, err
	}
	for i, list := range []listFlag{o.config, o.secrets} {
		for _, kv := range list {
			k, v, ok := strings.Cut(kv, "=")
			if !ok || k == "" {
				return nil, usagef("config %q is not KEY=VALUE", kv)
			}
			if err := cfg.set(ctx, fullKey(o.project, k), v, i == 1); err != nil {
				return nil, err
			}
		}
	}
	if len(o.config)+len(o.secrets) > 0 {
		if err := cfg.save(); err != nil {
			return nil, err
		}
	}
	return cfg.values(ctx)
}

// pluginOptions says how plugins are found and started: in the
// --plugin-dir folders, then (for a Node.js project) in the program's own
// @pulumi/pulumi package, which holds the Node.js dynamic provider's
// plugin, then on PATH; in the program's folder, with the stack's
// settings in their environment.
func pluginOptions(o *options, proj project, config map[string]resource.PropertyValue, engineAddr string, diag func(string)) (plugin.Options, error) {
	dir, _, err := programDir(proj)
	if err != nil {
		return plugin.Options{}, err
	}
	dirs := slices.Clone([]string(o.pluginDirs))
	if proj.Runtime == "nodejs" {
		dirs = append(dirs, filepath.Join(dir, "node_modules", "@pulumi", "pulumi"))
	}
	return plugin.Options{
		Dirs: dirs, EngineAddress: engineAddr, Diagnostics: diag, Dir: dir,
		Project: o.project, Config: config, RuntimeOptions: proj.Options,
	}, nil
}

// registry holds the built-in providers and finds every other package's
// plugin on demand.
func registry(opts plugin.Options) *providers.Registry {
	r := providers.NewRegistry(providers.WithResolver(plugin.Resolver(opts)))
	for _, register := range []func(*providers.Registry) error{local.Register, random.Register, commandprovider.Register} {
		if err := register(r); err != nil {
			panic(err) // the built-in providers' versions are constants: this cannot fail
		}
	}
	return r
}

// engineOptions are the engine options of the command line.
func engineOptions(o *options) []engine.Option {
	var opts []engine.Option
	if o.parallel > 0 {
		opts = append(opts, engine.Parallelism(o.parallel))
	}
	if len(o.targets) > 0 {
		urns := make([]resource.URN, len(o.targets))
		for i, t := range o.targets {
			urns[i] = resource.URN(t)
		}
		opts = append(opts, engine.Targets(urns...))
	}
	if o.refresh {
		opts = append(opts, engine.RefreshFirst())
	}
	if o.continueOnError {
		opts = append(opts, engine.ContinueOnError())
	}
	return opts
}

// operation is what one of preview, up, refresh, destroy and import
// does with the engine.
type operation struct {
	name string
	// program says the operation runs the project's program.
	program bool
	// preview shows what the operation would do, for the prompt; nil for
	// preview itself.
	preview func(ctx context.Context, eng *engine.Engine, prog engine.Program, opts []engine.Option) (*engine.Result, error)
	do      func(ctx context.Context, eng *engine.Engine, prog engine.Program, opts []engine.Option) (*engine.Result, error)
}

// runOperation runs an operation, asking first (after a preview) unless
// --yes.
func runOperation(ctx context.Context, inv *invocation, op operation) error {
	s, err := openSession(ctx, inv)
	if err != nil {
		return err
	}
	defer s.close()
	var prog engine.Program
	if op.program {
		p, err := programOf(s.proj, inv)
		if err != nil {
			return err
		}
		prog = p.Run
	}
	opts := engineOptions(&inv.opts)
	if op.preview != nil && !inv.opts.yes {
		if err := s.confirm(ctx, op, prog, opts); err != nil {
			return err
		}
	}
	_, err = op.do(ctx, s.eng, prog, opts)
	return err
}

func runPreview(ctx context.Context, inv *invocation, args []string) error {
	if len(args) > 0 {
		return usagef("unexpected argument %q: put the program and its arguments after --", args[0])
	}
	return runOperation(ctx, inv, operation{name: "preview", program: true,
		do: func(ctx context.Context, eng *engine.Engine, prog engine.Program, opts []engine.Option) (*engine.Result, error) {
			return previewPlanned(ctx, eng, prog, opts, inv.opts.savePlan)
		}})
}

func runUp(ctx context.Context, inv *invocation, args []string) error {
	if len(args) > 0 {
		return usagef("unexpected argument %q: put the program and its arguments after --", args[0])
	}
	return runOperation(ctx, inv, operation{name: "up", program: true,
		preview: func(ctx context.Context, eng *engine.Engine, prog engine.Program, opts []engine.Option) (*engine.Result, error) {
			opts, err := withPlan(ctx, eng, opts, inv.opts.planFile)
			if err != nil {
				return nil, err
			}
			return eng.Preview(ctx, prog, opts...)
		},
		do: func(ctx context.Context, eng *engine.Engine, prog engine.Program, opts []engine.Option) (*engine.Result, error) {
			opts, err := withPlan(ctx, eng, opts, inv.opts.planFile)
			if err != nil {
				return nil, err
			}
			return eng.Up(ctx, prog, opts...)
		}})
}

func runRefresh(ctx context.Context, inv *invocation, args []string) error {
	if len(args) > 0 {
		return usagef("gw refresh takes no arguments")
	}
	return runOperation(ctx, inv, operation{name: "refresh",
		preview: func(ctx context.Context, eng *engine.Engine, _ engine.Program, opts []engine.Option) (*engine.Result, error) {
			return eng.PreviewRefresh(ctx, opts...)
		},
		do: func(ctx context.Context, eng *engine.Engine, _ engine.Program, opts []engine.Option) (*engine.Result, error) {
			return eng.Refresh(ctx, opts...)
		}})
}

func runDestroy(ctx context.Context, inv *invocation, args []string) error {
	if len(args) > 0 {
		return usagef("gw destroy takes no arguments")
	}
	return runOperation(ctx, inv, operation{name: "destroy",
		preview: func(ctx context.Context, eng *engine.Engine, _ engine.Program, opts []engine.Option) (*engine.Result, error) {
			return eng.PreviewDestroy(ctx, opts...)
		},
		do: func(ctx context.Context, eng *engine.Engine, _ engine.Program, opts []engine.Option) (*engine.Result, error) {
			res, err := eng.Destroy(ctx, opts...)
			if unknown := (*engine.UnknownHookError)(nil); errors.As(err, &unknown) {
				fmt.Fprintf(inv.stderr, "hint: gw destroy runs no program, so it cannot run the hook %q that the program registers "+
					"(the Pulumi CLI runs the program for its hooks with \"destroy --run-program\"). To delete these resources "+
					"and run their hooks, run \"gw up\" with the program still registering its hooks but declaring none of the "+
					"resources: it serves the hooks while they are deleted.\n", unknown.Name)
			}
			return res, err
		}})
}

func runImport(ctx context.Context, inv *invocation, args []string) error {
	o := &inv.opts
	switch {
	case o.importFile == "" && len(args) != 3:
		return usagef("gw import takes TYPE NAME ID (or --file)")
	case o.importFile != "" && len(args) > 0:
		return usagef("gw import takes either TYPE NAME ID or --file, not both")
	}
	specs, err := importSpecs(o, args)
	if err != nil {
		return err
	}
	// An import changes nothing but the state, so it asks nothing.
	return runOperation(ctx, inv, operation{name: "import",
		do: func(ctx context.Context, eng *engine.Engine, _ engine.Program, opts []engine.Option) (*engine.Result, error) {
			return eng.Import(ctx, specs, opts...)
		}})
}

// confirm previews the operation and asks whether to go ahead. Without a
// terminal to ask on, it fails: --yes is then required.
func (s *session) confirm(ctx context.Context, op operation, prog engine.Program, opts []engine.Option) error {
	if !isTerminal(s.inv.stdin) {
		return usagef("gw %s changes the stack, and there is no terminal to confirm on: pass --yes to go ahead (gw preview shows what would change)", op.name)
	}
	if _, err := op.preview(ctx, s.eng, prog, opts); err != nil {
		return err
	}
	fmt.Fprintf(s.inv.stdout, "\nDo you want to perform this %s on stack %s? [y/N] ", op.name, s.inv.opts.stack)
	answer, _ := bufio.NewReader(s.inv.stdin).ReadString('\n')
	if a := strings.ToLower(strings.TrimSpace(answer)); a != "y" && a != "yes" {
		return errors.New("cancelled: nothing was changed")
	}
	return nil
}

// isTerminal reports whether r is a terminal ("/dev/null" is a
// character device, but no terminal).
func isTerminal(r io.Reader) bool {
	f, ok := r.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// programOf returns the program to run: the command after "--", or the
// project runtime's default.
func programOf(proj project, inv *invocation) (*langhost.Program, error) {
	program := inv.opts.program
	dir, entry, err := programDir(proj)
	if err != nil {
		return nil, err
	}
	root, err := os.Getwd()
	if err != nil {
		return nil, err
	}
	var p *langhost.Program
	switch {
	case proj.Runtime == "nodejs" && len(program) > 0:
		p = langhost.Node(program[0], program[1:]...)
	case proj.Runtime == "nodejs":
		p = langhost.Node(entry)
	case len(program) > 0:
		p = langhost.Command(program[0], program[1:]...)
	case proj.Runtime == "go":
		p = langhost.Command("go", "run", ".")
	default:
		return nil, usagef("%s needs the program: give its command after --", inv.path)
	}
	p.Dir, p.RootDirectory = dir, root
	// As under Pulumi's Node.js language host, TypeScript is on unless
	// the project turns it off.
	p.NoTypeScript = proj.Options["typescript"] == "false"
	p.ConfigCommand = "gw config set"
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

func importSpecs(o *options, args []string) ([]engine.ImportSpec, error) {
	if o.importFile == "" {
		return []engine.ImportSpec{{
			Type: args[0], Name: args[1], ID: resource.ID(args[2]),
			Provider: o.provider, Parent: resource.URN(o.parent), Version: o.version,
		}}, nil
	}
	b, err := os.ReadFile(o.importFile)
	if err != nil {
		return nil, err
	}
	var f importFile
	if err := json.Unmarshal(b, &f); err != nil {
		return nil, fmt.Errorf("%s: %w", o.importFile, err)
	}
	specs := make([]engine.ImportSpec, len(f.Resources))
	for i, r := range f.Resources {
		specs[i] = engine.ImportSpec{Type: r.Type, Name: r.Name, ID: resource.ID(r.ID),
			Provider: r.Provider, Parent: resource.URN(r.Parent), Version: r.Version}
	}
	return specs, nil
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
