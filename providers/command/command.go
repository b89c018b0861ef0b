package command

import (
	"context"

	"github.com/groundwork-iac/groundwork/providers"
	"github.com/groundwork-iac/groundwork/providers/internal/props"
	"github.com/groundwork-iac/groundwork/resource"
)

// inputKeys are the inputs of a Command.
var inputKeys = []string{"create", "update", "delete", "dir", "environment", "stdin", "shell", "triggers"}

// runKeys are the inputs whose change makes Update run a command. A change
// of delete alone is only recorded; a change of triggers replaces.
var runKeys = []string{"create", "update", "dir", "environment", "stdin", "shell"}

// The environment variables through which update and delete commands see
// the outputs of the command that ran before them.
const (
	StdoutEnv = "GROUNDWORK_STDOUT"
	StderrEnv = "GROUNDWORK_STDERR"
)

// spec is a Command's inputs, read and defaulted.
type spec struct {
	create, update, delete props.Field[string]
	dir, stdin             props.Field[string]
	env                    props.Field[map[string]string]
	shell                  props.Field[bool]
	// secret is set if any input is secret; secrets holds their
	// plaintexts, masked in errors.
	secret  bool
	secrets *resource.SecretFilter
	// checked are the inputs with defaults filled in.
	checked resource.PropertyMap
}

func readSpec(m resource.PropertyMap) (spec, []providers.CheckFailure) {
	r := reader{props.NewReader(m)}
	r.Only(inputKeys...)
	s := spec{
		create: r.RequiredStr("create"),
		update: r.Str("update"),
		delete: r.Str("delete"),
		dir:    r.Str("dir"),
		stdin:  r.Str("stdin"),
		env:    r.env("environment"),
		shell:  r.Bool("shell", false),
		secret: m.ContainsSecrets(),
	}
	if s.secret {
		s.secrets = &resource.SecretFilter{}
		s.secrets.AddMap(m)
	}
	if s.create.Set && !s.create.Unknown && s.create.Value == "" {
		r.Fail("create", "must not be empty")
	}
	if v, set, unknown := r.Value("triggers"); set && !unknown && !v.IsArray() {
		r.Fail("triggers", "must be an array, not %s", v.Kind())
	}
	if !s.shell.Unknown && !s.shell.Value {
		// Without a shell, the command lines must split into words.
		for _, c := range []struct {
			key string
			f   props.Field[string]
		}{{"create", s.create}, {"update", s.update}, {"delete", s.delete}} {
			if c.f.Set && !c.f.Unknown && c.f.Value != "" {
				if _, err := splitArgs(c.f.Value); err != nil {
					r.Fail(c.key, "%v (or set shell to true to run it with /bin/sh)", err)
				}
			}
		}
	}
	s.checked = r.Out()
	return s, r.Failures()
}

// known reports whether every input that running a command needs is known.
func (s spec) known() bool {
	for _, u := range []bool{s.create.Unknown, s.update.Unknown, s.delete.Unknown, s.dir.Unknown, s.stdin.Unknown, s.env.Unknown, s.shell.Unknown} {
		if u {
			return false
		}
	}
	return true
}

// invocation is how to run line in the spec's directory (see workDir) and
// environment.
func (s spec) invocation(wd, op, line string, prev resource.PropertyMap) invocation {
	inv := invocation{op: op, line: line, shell: s.shell.Value, dir: workDir(wd, s.dir.Value), env: s.env.Value, stdin: s.stdin.Value, secret: s.secret, secrets: s.secrets}
	for _, e := range [][2]string{{"stdout", StdoutEnv}, {"stderr", StderrEnv}} {
		if pv := prev[resource.PropertyKey(e[0])]; pv.ContainsSecrets() {
			// A secret earlier output the command sees is masked too.
			if inv.secrets == nil {
				inv.secrets = &resource.SecretFilter{}
			}
			inv.secrets.Add(pv)
		}
		if v := prev[resource.PropertyKey(e[0])].Unwrap(); v.IsString() && len(v.StringValue()) <= maxEnvOutput {
			inv.extraEnv = append(inv.extraEnv, e[1]+"="+v.StringValue())
		}
	}
	return inv
}

// outputs are the checked inputs plus what the command wrote, secret if any
// input is.
func (s spec) outputs(stdout, stderr resource.PropertyValue) resource.PropertyMap {
	out := s.checked.Copy()
	if s.secret {
		stdout, stderr = resource.NewSecret(stdout), resource.NewSecret(stderr)
	}
	out["stdout"], out["stderr"] = stdout, stderr
	return out
}

// indexCommand implements groundwork's own command:index:Command. wd is the
// provider's working folder (see WorkDir).
type indexCommand struct{ wd string }

func (indexCommand) check(ctx context.Context, req providers.CheckRequest) (providers.CheckResponse, error) {
	s, failures := readSpec(req.News)
	if len(failures) > 0 {
		return providers.CheckResponse{Inputs: req.News, Failures: failures}, nil
	}
	return providers.CheckResponse{Inputs: s.checked}, nil
}

func (indexCommand) diff(ctx context.Context, req providers.DiffRequest) (providers.DiffResponse, error) {
	olds := req.OldInputs
	if len(olds) == 0 {
		olds = req.OldOutputs
	}
	return props.Diff(olds, req.NewInputs, inputKeys, "triggers"), nil
}

func (c indexCommand) create(ctx context.Context, req providers.CreateRequest) (providers.CreateResponse, error) {
	s, failures := readSpec(req.Inputs)
	if len(failures) > 0 {
		return providers.CreateResponse{}, props.FailuresError(req.URN, failures)
	}
	if req.Preview {
		return providers.CreateResponse{Outputs: s.outputs(resource.NewUnknown(), resource.NewUnknown())}, nil
	}
	if !s.known() {
		return providers.CreateResponse{}, props.ErrUnknownInputs
	}
	ctx, cancel := withTimeout(ctx, req.Timeout)
	defer cancel()
	stdout, stderr, err := run(ctx, s.invocation(c.wd, "create", s.create.Value, nil))
	if err != nil {
		return providers.CreateResponse{}, err
	}
	return providers.CreateResponse{ID: newID(), Outputs: s.outputs(resource.NewString(stdout), resource.NewString(stderr))}, nil
}

// update runs the update command, or the create command if there is none,
// when an input it depends on changed; otherwise it records the new inputs
// and keeps the old outputs.
func (c indexCommand) update(ctx context.Context, req providers.UpdateRequest) (providers.UpdateResponse, error) {
	s, failures := readSpec(req.NewInputs)
	if len(failures) > 0 {
		return providers.UpdateResponse{}, props.FailuresError(req.URN, failures)
	}
	olds := req.OldInputs
	if len(olds) == 0 {
		olds = req.OldOutputs
	}
	if !props.Pick(olds, runKeys).Diff(props.Pick(s.checked, runKeys)).AnyChanges() {
		return providers.UpdateResponse{Outputs: s.outputs(req.OldOutputs["stdout"], req.OldOutputs["stderr"])}, nil
	}
	if req.Preview {
		return providers.UpdateResponse{Outputs: s.outputs(resource.NewUnknown(), resource.NewUnknown())}, nil
	}
	if !s.known() {
		return providers.UpdateResponse{}, props.ErrUnknownInputs
	}
	op, line := "update", s.update.Value
	if !s.update.Set || line == "" {
		op, line = "create", s.create.Value
	}
	ctx, cancel := withTimeout(ctx, req.Timeout)
	defer cancel()
	stdout, stderr, err := run(ctx, s.invocation(c.wd, op, line, req.OldOutputs))
	if err != nil {
		return providers.UpdateResponse{}, err
	}
	return providers.UpdateResponse{Outputs: s.outputs(resource.NewString(stdout), resource.NewString(stderr))}, nil
}

// delete runs the delete command, if there is one.
func (c indexCommand) delete(ctx context.Context, req providers.DeleteRequest) (providers.DeleteResponse, error) {
	inputs := req.Inputs
	if len(inputs) == 0 {
		inputs = props.Pick(req.Outputs, inputKeys)
	}
	s, failures := readSpec(inputs)
	if len(failures) > 0 {
		return providers.DeleteResponse{}, props.FailuresError(req.URN, failures)
	}
	if s.delete.Set && s.delete.Value != "" {
		ctx, cancel := withTimeout(ctx, req.Timeout)
		defer cancel()
		if _, _, err := run(ctx, s.invocation(c.wd, "delete", s.delete.Value, req.Outputs)); err != nil {
			return providers.DeleteResponse{}, err
		}
	}
	return providers.DeleteResponse{}, nil
}
