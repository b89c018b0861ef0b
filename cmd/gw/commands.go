package main

import (
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// options are the values of every flag gw knows; each command binds the
// ones it takes (see invocation.leaf). One invocation runs one command, so
// the commands share the fields; a flag has the same default wherever it
// is bound.
type options struct {
	project    string
	stack      string
	stateURL   string
	pluginDirs []string
	// preferPlugins: --prefer-plugin, else $GW_PREFER_PLUGINS
	preferPlugins []string
	config        []string
	secrets       []string
	targets       []string
	parallel      int
	refresh       bool
	json          bool
	yes           bool
	showSames     bool
	debug         bool
	// continueOnError: up and destroy --continue-on-error
	continueOnError bool
	// discardPending: refresh --discard-pending-creates
	discardPending bool

	importFile string
	provider   string
	parent     string
	version    string

	secret bool // config set --secret
	path   bool // config set, get, rm --path

	newPassphraseFile string // stack change-secrets-provider --new-passphrase-file
	showURNs          bool   // stack --show-urns
	create            bool   // stack select --create
	preserveConfig    bool   // stack rm --preserve-config
	targetDependents  bool   // state delete, up, destroy --target-dependents
	all               bool   // state unprotect --all
	move              moveOptions

	excludes         []string // --exclude
	replaces         []string // --replace
	expectNoChanges  bool
	diff             bool
	color            string
	nonInteractive   bool
	skipPreview      bool
	suppressOutputs  bool
	excludeProtected bool // destroy --exclude-protected
	showSecrets      bool // config, config get, stack output --show-secrets
	force            bool // unlock --force, stack import --force

	savePlan string // preview --save-plan
	planFile string // up --plan
	file     string // stack export/import --file

	message string         // up, refresh, destroy, import --message
	history historyOptions // stack history

	// program is the command line after "--".
	program []string
}

// rootCommand is the tree of gw's commands, bound to inv.
func rootCommand(inv *invocation) *cobra.Command {
	root := inv.group(&cobra.Command{
		Use:     "gw <command>",
		Version: version(),
		Long: `gw deploys Pulumi SDK programs (Go or Node.js) with groundwork's engine.
Run it in a project folder (one with a Pulumi.yaml). Each stack keeps its
configuration in Pulumi.<stack>.yaml and its state in .groundwork/ (see
--state). Secrets are encrypted with the passphrase in GW_PASSPHRASE (or
PULUMI_CONFIG_PASSPHRASE).`,
		SilenceErrors: true,
		SilenceUsage:  true,
	}, nil, nil,
		inv.leaf(&cobra.Command{Use: "preview [flags] [-- program [args...]]", Short: "show what an update would change",
			Long: `Preview runs the program and shows what "gw up" would create, update,
replace and delete, changing nothing. With --refresh it first reads every
resource from its provider and previews against what it found. With
--save-plan it saves what it decided (secrets encrypted), for "gw up --plan".`,
		}, previewFlags, runPreview, program),
		inv.leaf(&cobra.Command{Use: "up [flags] [-- program [args...]]", Short: "create or update the stack's resources",
			Long: `Up runs the program and changes the stack's resources to match it. Without
--yes it shows a preview first and asks; without a terminal to ask on, pass
--yes. The stack's outputs are printed at the end. With --plan it applies
exactly the plan a preview saved: a step, an option or an input the plan
does not allow fails its resource, naming the resource and the property.`,
		}, updateFlags, runUp, program),
		inv.leaf(&cobra.Command{Use: "refresh", Short: "read the resources and record any drift",
			Long: `Refresh reads every resource of the stack from its provider and records what
it finds: drift is taken into the state, and resources that no longer exist
leave it. It also resolves operations an interrupted run left pending, except
a create interrupted before its provider returned an ID: that one stays, and
every operation warns of it with its type and inputs, until it is found and
imported, or known not to exist, and --discard-pending-creates drops it.`,
		}, refreshFlags, runRefresh, noProgram),
		inv.leaf(&cobra.Command{Use: "destroy", Short: "delete every resource of the stack"}, destroyFlags, runDestroy, noProgram),
		inv.leaf(&cobra.Command{Use: "import [flags] TYPE NAME ID", Short: "adopt existing resources into the stack",
			Long: `Import adopts an existing resource (or, with --file, several) into the stack
without changing it. Add the resource to the program afterwards so that the
next update keeps it.`,
		}, importFlags, runImport, noProgram),
		configCommand(inv),
		stackCommand(inv),
		stateCommand(inv),
		inv.leaf(&cobra.Command{Use: "unlock", Short: "remove the stack's lock left by a process that is gone",
			Long: `Unlock removes the stack's lock when its holder is gone. gw breaks the lock of
a process on this machine that no longer runs by itself (with a warning);
unlock is for a holder it cannot check, such as a process on another
machine: make sure it is no longer running, then pass --force.`,
		}, unlockFlags, runUnlock, noProgram),
	)
	root.SetHelpCommand(helpCommand())
	root.SetHelpFunc(func(c *cobra.Command, _ []string) { writeHelp(c) })
	root.SetFlagErrorFunc(flagError)
	root.SetVersionTemplate("{{.Version}}\n")
	root.SetIn(inv.stdin)
	root.SetOut(inv.stdout)
	root.SetErr(inv.stderr)
	// In the tree from the start, for the help and the reference; after
	// SetOut, since the completion commands keep the writer they find.
	root.InitDefaultCompletionCmd()
	if c := subcommand(root, "completion"); c != nil {
		c.Short = "print the script that completes gw's commands and flags in bash, zsh, fish or powershell"
		asGroup(c)
	}
	return root
}

// projectFlags are the flags of every command that works on a stack.
func projectFlags(fs *pflag.FlagSet, o *options) {
	fs.StringVar(&o.project, "project", "", "the project `name` (default: the name in the Pulumi.yaml of this folder or the nearest above)")
	fs.StringVarP(&o.stack, "stack", "s", "", "the stack `name` (default: $GW_STACK, else the stack gw stack select chose, else dev)")
}

// stateFlags are the flags of every command that reads the state.
func stateFlags(fs *pflag.FlagSet, o *options) {
	projectFlags(fs, o)
	fs.StringVar(&o.stateURL, "state", defaultState, "where the state is kept: a folder, file://DIR, postgres://... or memory:// (the `URL`)")
}

// operationFlags are the flags of every engine operation.
func operationFlags(fs *pflag.FlagSet, o *options) {
	stateFlags(fs, o)
	fs.StringArrayVar(&o.pluginDirs, "plugin-dir", nil, "a `folder` of pulumi-resource-<name> plugins (repeatable; Pulumi's plugin cache and PATH are searched after)")
	fs.StringArrayVar(&o.preferPlugins, "prefer-plugin", nil, "serve this `package` (random, command) with its plugin, never gw's built-in provider (repeatable; default: $GW_PREFER_PLUGINS, comma-separated)")
	fs.StringArrayVar(&o.targets, "target", nil, "only the resource with this `URN` (repeatable)")
	fs.StringArrayVar(&o.excludes, "exclude", nil, "leave the resource with this `URN` alone (repeatable)")
	fs.BoolVar(&o.targetDependents, "target-dependents", false, "extend --target and --exclude to the resources that depend on those named")
	fs.BoolVar(&o.expectNoChanges, "expect-no-changes", false, "fail, changing nothing, if any resource would change")
	fs.BoolVar(&o.diff, "diff", false, "show the detailed property changes of every resource (for refresh, what drifted)")
	fs.StringVar(&o.color, "color", "auto", "color the output: `WHEN` is auto, always, never or raw")
	fs.BoolVar(&o.nonInteractive, "non-interactive", false, "write plain lines, not a live display, and never prompt")
	fs.IntVar(&o.parallel, "parallel", 0, "at most `N` steps at once (0: no bound)")
	fs.BoolVarP(&o.json, "json", "j", false, "write the events as JSON lines")
	fs.BoolVar(&o.showSames, "show-sames", false, "list the resources that do not change")
	fs.BoolVar(&o.debug, "debug", false, "show debug messages (such as a program's stack trace)")
}

// refreshFlags are the flags of refresh.
func refreshFlags(fs *pflag.FlagSet, o *options) {
	changeFlags(fs, o)
	fs.BoolVar(&o.discardPending, "discard-pending-creates", false,
		"drop the pending creates a refresh cannot resolve (interrupted before their provider returned an ID)")
}

// changeFlags are the flags of the operations that change the stack.
func changeFlags(fs *pflag.FlagSet, o *options) {
	operationFlags(fs, o)
	fs.BoolVarP(&o.yes, "yes", "y", false, "go ahead without a preview and a prompt")
	fs.BoolVarP(&o.skipPreview, "skip-preview", "f", false, "go ahead without a preview (and so without a prompt)")
	messageFlag(fs, o)
}

// programFlags are the flags of the operations that run the program.
func programFlags(fs *pflag.FlagSet, o *options) {
	fs.StringArrayVarP(&o.config, "config", "c", nil, "set config `KEY=VALUE` in the stack's config file first (repeatable)")
	fs.StringArrayVar(&o.secrets, "secret-config", nil, "set `KEY=VALUE` as a secret, encrypted (repeatable)")
	fs.BoolVarP(&o.refresh, "refresh", "r", false, "refresh the stack first")
	fs.StringArrayVar(&o.replaces, "replace", nil, "replace the resource with this `URN` whatever its diff says (repeatable)")
	fs.BoolVar(&o.suppressOutputs, "suppress-outputs", false, "do not print the stack's outputs")
}

func previewFlags(fs *pflag.FlagSet, o *options) {
	operationFlags(fs, o)
	programFlags(fs, o)
	fs.StringVar(&o.savePlan, "save-plan", "", "save what the preview decided to `FILE`, for gw up --plan")
}

func updateFlags(fs *pflag.FlagSet, o *options) {
	changeFlags(fs, o)
	programFlags(fs, o)
	continueFlag(fs, o)
	fs.StringVar(&o.planFile, "plan", "", "apply exactly the plan gw preview --save-plan saved in `FILE`")
}

func destroyFlags(fs *pflag.FlagSet, o *options) {
	changeFlags(fs, o)
	continueFlag(fs, o)
	fs.BoolVarP(&o.refresh, "refresh", "r", false, "refresh the stack first")
	fs.BoolVar(&o.excludeProtected, "exclude-protected", false, "destroy everything but the protected resources (and what they need)")
}

// continueFlag is the flag of up and destroy that keeps them going after a
// resource fails, as pulumi's --continue-on-error does.
func continueFlag(fs *pflag.FlagSet, o *options) {
	fs.BoolVar(&o.continueOnError, "continue-on-error", false,
		"go on after a resource fails: only what needs it is skipped (the operation still fails)")
}

func importFlags(fs *pflag.FlagSet, o *options) {
	changeFlags(fs, o)
	fs.StringVar(&o.importFile, "file", "", `a JSON file {"resources": [{"type", "name", "id", "provider", "parent", "version"}]}`)
	fs.StringVar(&o.provider, "provider", "", "the provider `reference` of the imported resource")
	fs.StringVar(&o.parent, "parent", "", "the parent `URN` of the imported resource")
	fs.StringVar(&o.version, "version", "", "the provider version of the imported resource")
}

func unlockFlags(fs *pflag.FlagSet, o *options) {
	stateFlags(fs, o)
	fs.BoolVar(&o.force, "force", false, "remove the lock even if gw cannot tell that its holder is gone")
}
