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
	// secrets masks, with the secrets the operation has seen, the lines
	// plugins write beside the operation's events.
	secrets *resource.SecretFilter
	// closers run in reverse order when the session ends.
	closers []func()
}

// close ends the session.
func (s *session) close() {
	for i := len(s.closers) - 1; i >= 0; i-- {
		s.closers[i]()
	}
}

// openProject reads the project's Pulumi.yaml, in the working folder or
// the nearest one above it, and settles the project's name.
func openProject(o *options) (project, error) {
	wd, err := os.Getwd()
	if err != nil {
		return project{}, err
	}
	proj, err := findProject(wd)
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

// openStoreWith opens the state store of --state with opts alone.
func openStoreWith(ctx context.Context, o *options, opts ...state.Option) (storeurl.Store, error) {
	return storeurl.Open(ctx, stateLocation(o), append([]state.Option{state.WithUnlockHint(unlockHint(o))}, opts...)...)
}

// openStore opens the state store of --state.
func openStore(ctx context.Context, o *options) (storeurl.Store, error) {
	storeOpts := []state.Option{state.WithUnlockHint(unlockHint(o))}
	pass, err := passphrase()
	if err != nil {
		return nil, err
	}
	if pass != "" {
		storeOpts = append(storeOpts, state.WithSecrets(state.PassphraseSecrets(pass)))
	}
	return storeurl.Open(ctx, stateLocation(o), storeOpts...)
}

// defaultState is where the state is kept without --state: a folder in
// the project's folder.
const defaultState = ".groundwork"

// stateLocation is the URL of --state; the default folder is in the
// project's folder, wherever below it gw runs.
func stateLocation(o *options) string {
	if o.stateURL != defaultState {
		return o.stateURL
	}
	wd, err := os.Getwd()
	if err != nil {
		return o.stateURL
	}
	if proj, err := findProject(wd); err == nil {
		return filepath.Join(proj.Dir, defaultState)
	}
	return o.stateURL
}

// openSession prepares an operation: it saves --config and
// --secret-config in the stack's config file, reads the configuration,
// opens the store and starts the engine.
func openSession(ctx context.Context, inv *invocation) (_ *session, err error) {
	o := &inv.opts
	if err := o.checkOperationFlags(); err != nil {
		return nil, err
	}
	s := &session{inv: inv, secrets: &resource.SecretFilter{}}
	defer func() {
		if err != nil {
			s.close()
		}
	}()
	if s.proj, err = openProject(o); err != nil {
		return nil, err
	}
	config, err := stackConfigValues(ctx, o, s.proj.Dir)
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
		fmt.Fprintf(errw, "plugin %s: %s\n", m.Severity, s.secrets.Mask(m.Message))
	}})
	if err != nil {
		return nil, err
	}
	s.closers = append(s.closers, func() { logs.Stop() })
	pluginOpts, err := pluginOptions(o, s.proj, config, logs.Addr(), func(line string) { fmt.Fprintln(errw, "plugin:", line) })
	if err != nil {
		return nil, err
	}
	pluginOpts.Secrets = s.secrets
	dopts, err := displayOptions(o)
	if err != nil {
		return nil, err
	}
	s.display = display.New(inv.stdout, dopts)
	s.closers = append(s.closers, func() { s.display.Close() })
	if b, ok := inv.stderr.(*noticeBoard); ok {
		s.closers = append(s.closers, b.above(s.display))
	}
	onEvent := func(e engine.Event) {
		switch ev := e.(type) {
		case engine.SummaryEvent:
			ev.Error = forCLI(ev.Error)
			if o.suppressOutputs {
				ev.Outputs = nil
			}
			if ev.Error != "" && !o.json {
				inv.shownError = ev.Error
			}
			e = ev
		case engine.StepFailedEvent:
			ev.Message = forCLI(ev.Message)
			e = ev
		case engine.DiagnosticEvent:
			ev.Message = forCLI(ev.Message)
			e = ev
		}
		s.display.Event(e)
	}
	s.eng, err = engine.New(engine.Config{
		Project: o.project, Stack: o.stack, Store: s.store, Config: config, OnEvent: onEvent,
		Providers: func() *providers.Registry { return registry(pluginOpts, preferPlugins(o)) },
	})
	return s, err
}

// stackConfigValues saves --config and --secret-config in the stack's
// config file (as the Pulumi CLI does) and returns its values.
func stackConfigValues(ctx context.Context, o *options, dir string) (map[string]resource.PropertyValue, error) {
	if len(o.config)+len(o.secrets) > 0 {
		err := updateStackConfig(ctx, dir, o.stack, passphrase, func(cfg *stackConfig) error {
			for i, list := range [][]string{o.config, o.secrets} {
				for _, kv := range list {
					k, v, ok := strings.Cut(kv, "=")
					if !ok || k == "" {
						return usagef("config %q is not KEY=VALUE", kv)
					}
					if err := cfg.set(ctx, fullKey(o.project, k), v, i == 1); err != nil {
						return err
					}
				}
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	cfg, err := loadStackConfig(dir, o.stack, passphrase)
	if err != nil {
		return nil, err
	}
	return cfg.values(ctx)
}

// pluginOptions says how plugins are found and started: in the
// --plugin-dir folders, then (for a Node.js project) in the program's own
// @pulumi/pulumi package, which holds the Node.js dynamic provider's
// plugin, then in Pulumi's plugin cache (where `pulumi plugin install`
// puts them), then on PATH; in the program's folder, with the stack's
// settings in their environment.
func pluginOptions(o *options, proj project, config map[string]resource.PropertyValue, engineAddr string, diag func(string)) (plugin.Options, error) {
	dir, _, err := programDir(proj)
	if err != nil {
		return plugin.Options{}, err
	}
	dirs := slices.Clone(o.pluginDirs)
	if proj.Runtime == "nodejs" {
		dirs = append(dirs, filepath.Join(dir, "node_modules", "@pulumi", "pulumi"))
	}
	// Without a home folder (and PULUMI_HOME) there is no plugin cache to
	// search; the other folders still are.
	cache, _ := plugin.PulumiPluginCache()
	return plugin.Options{
		Dirs: dirs, PluginCache: cache, EngineAddress: engineAddr, Diagnostics: diag, Dir: dir,
		Project: o.project, Config: config, RuntimeOptions: proj.Options,
	}, nil
}

// registry holds the built-in providers and finds every other package's
// plugin on demand, and the plugins of the packages in prefer instead of
// their built-in providers. The built-in command and local providers work
// where the plugins run (opts.Dir, the program's folder), as Pulumi runs
// pulumi-command's commands and takes a local file's relative path.
func registry(opts plugin.Options, prefer []string) *providers.Registry {
	r := providers.NewRegistry(providers.WithResolver(plugin.Resolver(opts)), providers.PreferPlugins(prefer...))
	registerCommand := func(r *providers.Registry) error {
		return commandprovider.RegisterWith(r, commandprovider.WorkDir(opts.Dir))
	}
	registerLocal := func(r *providers.Registry) error {
		return local.RegisterWith(r, local.WorkDir(opts.Dir))
	}
	for _, register := range []func(*providers.Registry) error{registerLocal, random.Register, registerCommand} {
		if err := register(r); err != nil {
			panic(err) // the built-in providers' versions are constants: this cannot fail
		}
	}
	return r
}

// preferPlugins are the packages --prefer-plugin names, else those
// $GW_PREFER_PLUGINS lists, separated by commas.
func preferPlugins(o *options) []string {
	if len(o.preferPlugins) > 0 {
		return o.preferPlugins
	}
	var pkgs []string
	for p := range strings.SplitSeq(os.Getenv("GW_PREFER_PLUGINS"), ",") {
		if p = strings.TrimSpace(p); p != "" {
			pkgs = append(pkgs, p)
		}
	}
	return pkgs
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
	// prepare, if set, checks the stack before anything is previewed or
	// changed, and may add options.
	prepare func(ctx context.Context, s *session, opts []engine.Option) ([]engine.Option, error)
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
	opts, err := engineOptions(&inv.opts)
	if err != nil {
		return err
	}
	opts = append(opts, engine.MaskSecrets(s.secrets))
	if op.prepare != nil {
		if opts, err = op.prepare(ctx, s, opts); err != nil {
			return err
		}
	}
	if op.preview != nil && !inv.opts.yes && !inv.opts.skipPreview {
		if err := s.confirm(ctx, op, prog, opts); err != nil {
			return err
		}
	}
	if op.preview != nil || op.name == "import" {
		defer changingStack(inv.stderr)()
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
	// The engine refreshes first only for up and preview: destroy
	// --refresh refreshes as an operation of its own, then destroys.
	refresh := inv.opts.refresh
	inv.opts.refresh = false
	return runOperation(ctx, inv, operation{name: "destroy",
		prepare: func(ctx context.Context, s *session, opts []engine.Option) ([]engine.Option, error) {
			return refuseProtected(ctx, s, opts)
		},
		preview: func(ctx context.Context, eng *engine.Engine, _ engine.Program, opts []engine.Option) (*engine.Result, error) {
			return eng.PreviewDestroy(ctx, opts...)
		},
		do: func(ctx context.Context, eng *engine.Engine, _ engine.Program, opts []engine.Option) (*engine.Result, error) {
			if refresh {
				if _, err := eng.Refresh(ctx, opts...); err != nil {
					return nil, err
				}
			}
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
	if s.inv.opts.nonInteractive || !isTerminal(s.inv.stdin) {
		return usagef("gw %s changes the stack, and there is no terminal to confirm on: pass --yes to go ahead (gw preview shows what would change)", op.name)
	}
	if _, err := op.preview(ctx, s.eng, prog, opts); err != nil {
		return err
	}
	fmt.Fprintf(s.inv.stdout, "\nDo you want to perform this %s on stack %s? [y/N] ", op.name, s.inv.opts.stack)
	answer, err := askLine(ctx, s.inv.stdin)
	if a := strings.ToLower(answer); err != nil || a != "y" && a != "yes" {
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
// project's: for Go the binary its runtime options name, else "go run .";
// for Node.js its entry module.
func programOf(proj project, inv *invocation) (*langhost.Program, error) {
	program := inv.opts.program
	dir, entry, err := programDir(proj)
	if err != nil {
		return nil, err
	}
	root := proj.Dir
	var p *langhost.Program
	switch {
	case proj.Runtime == "nodejs" && len(program) > 0:
		p = langhost.Node(program[0], program[1:]...)
	case proj.Runtime == "nodejs":
		p = langhost.Node(entry)
	case len(program) > 0:
		p = langhost.Command(program[0], program[1:]...)
	case proj.Runtime == "go" && proj.Options["binary"] != "":
		// A built program, as the Pulumi CLI runs it: its path is
		// relative to the program's folder.
		bin := filepath.FromSlash(proj.Options["binary"])
		if !filepath.IsAbs(bin) {
			bin = filepath.Join(dir, bin)
		}
		p = langhost.Command(bin)
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

// askLine reads the line the user types on the terminal stdin (stdin must
// be one: see isTerminal), giving up with ctx's cause when ctx ends
// first, as an interrupt ends it.
func askLine(ctx context.Context, stdin io.Reader) (string, error) {
	if err := typed(ctx, stdin.(*os.File)); err != nil {
		return "", err
	}
	line, err := bufio.NewReader(stdin).ReadString('\n')
	if err != nil && line == "" {
		return "", err
	}
	return strings.TrimSpace(line), nil
}
