package main

import (
	"flag"
	"os"
)

// options are the values of every flag gw knows; each command binds the
// ones it takes (see command.flags).
type options struct {
	project    string
	stack      string
	stateURL   string
	pluginDirs listFlag
	config     listFlag
	secrets    listFlag
	targets    listFlag
	parallel   int
	refresh    bool
	json       bool
	yes        bool
	showSames  bool
	debug      bool
	// continueOnError: up and destroy --continue-on-error
	continueOnError bool
	// discardPending: refresh --discard-pending-creates
	discardPending bool

	importFile string
	provider   string
	parent     string
	version    string

	secret      bool // config set --secret
	showSecrets bool // config, config get, stack output --show-secrets
	force       bool // unlock --force, stack import --force

	savePlan string // preview --save-plan
	planFile string // up --plan
	file     string // stack export/import --file

	// program is the command line after "--".
	program []string
}

// rootCommand is the tree of gw's commands.
func rootCommand() *command {
	return &command{
		name: "gw",
		help: `gw deploys Pulumi SDK programs (Go or Node.js) with groundwork's engine.
Run it in a project folder (one with a Pulumi.yaml). Each stack keeps its
configuration in Pulumi.<stack>.yaml and its state in .groundwork/ (see
--state). Secrets are encrypted with the passphrase in GW_PASSPHRASE (or
PULUMI_CONFIG_PASSPHRASE).`,
		subs: []*command{
			{name: "preview", summary: "show what an update would change", program: true, flags: previewFlags, run: runPreview,
				help: `Preview runs the program and shows what "gw up" would create, update,
replace and delete, changing nothing. With --refresh it first reads every
resource from its provider and previews against what it found. With
--save-plan it saves what it decided (secrets encrypted), for "gw up --plan".`},
			{name: "up", summary: "create or update the stack's resources", program: true, flags: updateFlags, run: runUp,
				help: `Up runs the program and changes the stack's resources to match it. Without
--yes it shows a preview first and asks; without a terminal to ask on, pass
--yes. The stack's outputs are printed at the end. With --plan it applies
exactly the plan a preview saved: a step, an option or an input the plan
does not allow fails its resource, naming the resource and the property.`},
			{name: "refresh", summary: "read the resources and record any drift", flags: refreshFlags, run: runRefresh,
				help: `Refresh reads every resource of the stack from its provider and records what
it finds: drift is taken into the state, and resources that no longer exist
leave it. It also resolves operations an interrupted run left pending, except
a create interrupted before its provider returned an ID: that one stays, and
every operation warns of it with its type and inputs, until it is found and
imported, or known not to exist, and --discard-pending-creates drops it.`},
			{name: "destroy", summary: "delete every resource of the stack", flags: destroyFlags, run: runDestroy},
			{name: "import", args: "TYPE NAME ID", summary: "adopt existing resources into the stack", flags: importFlags, run: runImport,
				help: `Import adopts an existing resource (or, with --file, several) into the stack
without changing it. Add the resource to the program afterwards so that the
next update keeps it.`},
			configCommand(),
			stackCommand(),
			{name: "unlock", summary: "remove the stack's lock left by a process that is gone", flags: unlockFlags, run: runUnlock,
				help: `Unlock removes the stack's lock when its holder is gone. gw breaks the lock of
a process on this machine that no longer runs by itself (with a warning);
unlock is for a holder it cannot check, such as a process on another
machine: make sure it is no longer running, then pass --force.`},
		},
	}
}

// projectFlags are the flags of every command that works on a stack.
func projectFlags(fs *flag.FlagSet, o *options) {
	fs.StringVar(&o.project, "project", "", "the project `name` (default: the name in ./Pulumi.yaml)")
	fs.StringVar(&o.stack, "stack", stackDefault(), "the stack `name`; $GW_STACK sets the default")
	shorthand(fs, "s", "stack")
}

// stackDefault is the stack a command works on without --stack.
func stackDefault() string {
	if s := os.Getenv("GW_STACK"); s != "" {
		return s
	}
	return "dev"
}

// stateFlags are the flags of every command that reads the state.
func stateFlags(fs *flag.FlagSet, o *options) {
	projectFlags(fs, o)
	fs.StringVar(&o.stateURL, "state", ".groundwork", "where the state is kept: a folder, file://DIR, postgres://... or memory:// (the `URL`)")
}

// operationFlags are the flags of every engine operation.
func operationFlags(fs *flag.FlagSet, o *options) {
	stateFlags(fs, o)
	fs.Var(&o.pluginDirs, "plugin-dir", "a `folder` of pulumi-resource-<name> plugins (repeatable; PATH is searched after)")
	fs.Var(&o.targets, "target", "only the resource with this `URN` (repeatable)")
	fs.IntVar(&o.parallel, "parallel", 0, "at most `N` steps at once (0: no bound)")
	fs.BoolVar(&o.json, "json", false, "write the events as JSON lines")
	shorthand(fs, "j", "json")
	fs.BoolVar(&o.showSames, "show-sames", false, "list the resources that do not change")
	fs.BoolVar(&o.debug, "debug", false, "show debug messages (such as a program's stack trace)")
}

// refreshFlags are the flags of refresh.
func refreshFlags(fs *flag.FlagSet, o *options) {
	changeFlags(fs, o)
	fs.BoolVar(&o.discardPending, "discard-pending-creates", false,
		"drop the pending creates a refresh cannot resolve (interrupted before their provider returned an ID)")
}

// changeFlags are the flags of the operations that change the stack.
func changeFlags(fs *flag.FlagSet, o *options) {
	operationFlags(fs, o)
	fs.BoolVar(&o.yes, "yes", false, "go ahead without a preview and a prompt")
	shorthand(fs, "y", "yes")
}

// programFlags are the flags of the operations that run the program.
func programFlags(fs *flag.FlagSet, o *options) {
	fs.Var(&o.config, "config", "set config `KEY=VALUE` in the stack's config file first (repeatable)")
	shorthand(fs, "c", "config")
	fs.Var(&o.secrets, "secret-config", "set `KEY=VALUE` as a secret, encrypted (repeatable)")
	fs.BoolVar(&o.refresh, "refresh", false, "refresh the stack first")
	shorthand(fs, "r", "refresh")
}

func previewFlags(fs *flag.FlagSet, o *options) {
	operationFlags(fs, o)
	programFlags(fs, o)
	fs.StringVar(&o.savePlan, "save-plan", "", "save what the preview decided to `FILE`, for gw up --plan")
}

func updateFlags(fs *flag.FlagSet, o *options) {
	changeFlags(fs, o)
	programFlags(fs, o)
	continueFlag(fs, o)
	fs.StringVar(&o.planFile, "plan", "", "apply exactly the plan gw preview --save-plan saved in `FILE`")
}

func destroyFlags(fs *flag.FlagSet, o *options) {
	changeFlags(fs, o)
	continueFlag(fs, o)
}

// continueFlag is the flag of up and destroy that keeps them going after a
// resource fails, as pulumi's --continue-on-error does.
func continueFlag(fs *flag.FlagSet, o *options) {
	fs.BoolVar(&o.continueOnError, "continue-on-error", false,
		"go on after a resource fails: only what needs it is skipped (the operation still fails)")
}

func importFlags(fs *flag.FlagSet, o *options) {
	changeFlags(fs, o)
	fs.StringVar(&o.importFile, "file", "", `a JSON file {"resources": [{"type", "name", "id", "provider", "parent", "version"}]}`)
	fs.StringVar(&o.provider, "provider", "", "the provider `reference` of the imported resource")
	fs.StringVar(&o.parent, "parent", "", "the parent `URN` of the imported resource")
	fs.StringVar(&o.version, "version", "", "the provider version of the imported resource")
}

func unlockFlags(fs *flag.FlagSet, o *options) {
	stateFlags(fs, o)
	fs.BoolVar(&o.force, "force", false, "remove the lock even if gw cannot tell that its holder is gone")
}
