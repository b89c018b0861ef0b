package command

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"slices"

	"github.com/groundwork-iac/groundwork/providers"
	"github.com/groundwork-iac/groundwork/providers/internal/props"
	"github.com/groundwork-iac/groundwork/resource"
)

// The environment variables through which the commands of pulumi-command's
// types see the outputs of the command that ran before them.
const (
	PulumiStdoutEnv = "PULUMI_COMMAND_STDOUT"
	PulumiStderrEnv = "PULUMI_COMMAND_STDERR"
)

// localBaseKeys are the inputs command:local:Command and command:local:run
// share.
var localBaseKeys = []string{"addPreviousOutputInEnv", "archivePaths", "assetPaths", "dir", "environment", "interpreter", "logging", "stdin"}

// localCommandKeys are the inputs of a command:local:Command; a change of
// triggers replaces it.
var localCommandKeys = append([]string{"create", "delete", "triggers", "update"}, localBaseKeys...)

// loggingModes are the values of the logging input.
var loggingModes = []string{"stdout", "stderr", "stdoutAndStderr", "none"}

// localBase is what a command:local:Command and a command:local:run are
// given besides their command lines, read as pulumi-command reads it.
type localBase struct {
	stdin, dir, logging                   props.Field[string]
	interpreter, assetPaths, archivePaths props.Field[[]string]
	env                                   props.Field[map[string]string]
	// addPrevious is true unless addPreviousOutputInEnv is false.
	addPrevious props.Field[bool]
	// secret is set if any input is secret; secrets holds their
	// plaintexts, masked in errors.
	secret  bool
	secrets *resource.SecretFilter
}

func readLocalBase(r reader, m resource.PropertyMap) localBase {
	b := localBase{
		stdin:        r.Str("stdin"),
		dir:          r.Str("dir"),
		logging:      r.Str("logging"),
		interpreter:  r.strs("interpreter"),
		assetPaths:   r.strs("assetPaths"),
		archivePaths: r.strs("archivePaths"),
		env:          r.env("environment"),
		addPrevious:  props.Field[bool]{Value: true},
		secret:       m.ContainsSecrets(),
	}
	// The default is not recorded: pulumi-command's schema gives none
	// (its SDKs before 1.2 send true themselves).
	switch v, set, unknown := r.Value("addPreviousOutputInEnv"); {
	case unknown:
		b.addPrevious = props.Field[bool]{Set: true, Unknown: true}
	case set && !v.IsBool():
		r.Fail("addPreviousOutputInEnv", "must be a bool, not %s", v.Kind())
	case set:
		b.addPrevious = props.Field[bool]{Value: v.BoolValue(), Set: true}
	}
	if l := b.logging; l.Set && !l.Unknown && !slices.Contains(loggingModes, l.Value) {
		r.Fail("logging", "must be one of %q, not %q", loggingModes, l.Value)
	}
	for _, g := range []struct {
		key string
		f   props.Field[[]string]
	}{{"assetPaths", b.assetPaths}, {"archivePaths", b.archivePaths}} {
		for i, pattern := range g.f.Value {
			if _, err := compileGlob(pattern); err != nil {
				r.Fail(fmt.Sprintf("%s[%d]", g.key, i), "%v", err)
			}
		}
	}
	if b.secret {
		b.secrets = &resource.SecretFilter{}
		b.secrets.AddMap(m)
	}
	return b
}

// known reports whether every input that running a command needs is known.
func (b localBase) known() bool {
	return !slices.Contains([]bool{b.stdin.Unknown, b.dir.Unknown, b.interpreter.Unknown, b.assetPaths.Unknown, b.archivePaths.Unknown, b.env.Unknown, b.addPrevious.Unknown}, true)
}

// invocation is how to run line, with prev the outputs of the command that
// ran before (nil for none): /bin/sh -c line unless an interpreter is
// given.
func (b localBase) invocation(wd, op, line string, prev resource.PropertyMap) invocation {
	inv := invocation{op: op, line: line, shell: true, interpreter: b.interpreter.Value, trimOne: true,
		dir: workDir(wd, b.dir.Value), env: b.env.Value, stdin: b.stdin.Value, secret: b.secret, secrets: b.secrets}
	if !b.addPrevious.Value {
		return inv
	}
	for _, e := range [][2]string{{"stdout", PulumiStdoutEnv}, {"stderr", PulumiStderrEnv}} {
		pv := prev[resource.PropertyKey(e[0])]
		v := pv.Unwrap()
		if !v.IsString() || v.StringValue() == "" || len(v.StringValue()) > maxEnvOutput {
			continue
		}
		if pv.ContainsSecrets() {
			// A secret earlier output the command sees is masked too.
			if inv.secrets == nil {
				inv.secrets = &resource.SecretFilter{}
			}
			inv.secrets.Add(pv)
		}
		inv.extraEnv = append(inv.extraEnv, e[1]+"="+v.StringValue())
	}
	return inv
}

// result is what a command of pulumi-command's types leaves: its outputs
// and the files its asset and archive paths found.
type result struct {
	stdout, stderr  resource.PropertyValue
	assets, archive resource.PropertyValue // null when not asked for
}

// unknownResult is the result of a command a preview does not run.
func (b localBase) unknownResult() result {
	r := result{stdout: resource.NewUnknown(), stderr: resource.NewUnknown()}
	if b.assetPaths.Set {
		r.assets = resource.NewUnknown()
	}
	if b.archivePaths.Set {
		r.archive = resource.NewUnknown()
	}
	return r
}

// recorded is the result recorded in a resource's outputs.
func recorded(outputs resource.PropertyMap) result {
	return result{stdout: outputs["stdout"], stderr: outputs["stderr"], assets: outputs["assets"], archive: outputs["archive"]}
}

// exec runs line in its folder (see workDir) and collects the files the
// asset and archive paths name there. Start from what was recorded before:
// an output the command does not produce again keeps its recorded value,
// as in pulumi-command.
func (b localBase) exec(ctx context.Context, wd, op, line string, prev resource.PropertyMap) (result, error) {
	inv := b.invocation(wd, op, line, prev)
	stdout, stderr, err := run(ctx, inv)
	if err != nil {
		return result{}, err
	}
	res := recorded(prev)
	res.stdout, res.stderr = resource.NewString(stdout), resource.NewString(stderr)
	if !b.assetPaths.Set && !b.archivePaths.Set {
		return res, nil
	}
	dir := inv.dir
	if dir == "" {
		if dir, err = os.Getwd(); err != nil {
			return result{}, fmt.Errorf("the %s command ran, but its working directory is unknown: %w", op, err)
		}
	}
	if b.assetPaths.Set {
		if res.assets, err = assetsValue(ctx, dir, b.assetPaths.Value); err != nil {
			return result{}, fmt.Errorf("the %s command ran, but its assetPaths could not be read: %w", op, err)
		}
	}
	if b.archivePaths.Set {
		if res.archive, err = archiveValue(ctx, dir, b.archivePaths.Value); err != nil {
			return result{}, fmt.Errorf("the %s command ran, but its archivePaths could not be read: %w", op, err)
		}
	}
	return res, nil
}

// outputs are the inputs as given plus the result, whose values are secret
// if any input is.
func (b localBase) outputs(inputs resource.PropertyMap, res result) resource.PropertyMap {
	out := inputs.Copy()
	if out == nil {
		out = resource.PropertyMap{}
	}
	set := func(k string, v resource.PropertyValue) {
		if b.secret && !v.IsSecret() && !v.IsUnknown() {
			v = resource.NewSecret(v)
		}
		out[resource.PropertyKey(k)] = v
	}
	set("stdout", res.stdout)
	set("stderr", res.stderr)
	for k, v := range map[string]resource.PropertyValue{"assets": res.assets, "archive": res.archive} {
		if !v.IsNull() {
			set(k, v)
		}
	}
	return out
}

// localSpec is a command:local:Command's inputs, read.
type localSpec struct {
	localBase
	create, update, delete props.Field[string]
	inputs                 resource.PropertyMap
}

func readLocalSpec(m resource.PropertyMap) (localSpec, []providers.CheckFailure) {
	r := reader{props.NewReader(m)}
	r.Only(localCommandKeys...)
	s := localSpec{
		localBase: readLocalBase(r, m),
		create:    r.Str("create"),
		update:    r.Str("update"),
		delete:    r.Str("delete"),
		inputs:    m,
	}
	if v, set, unknown := r.Value("triggers"); set && !unknown && !v.IsArray() {
		r.Fail("triggers", "must be an array, not %s", v.Kind())
	}
	return s, r.Failures()
}

func (s localSpec) known() bool {
	return s.localBase.known() && !s.create.Unknown && !s.update.Unknown && !s.delete.Unknown
}

// localCommand implements command:local:Command as pulumi-command v1 does.
// The inputs are recorded as given; every input may be left out. wd is the
// provider's working folder (see WorkDir).
type localCommand struct{ wd string }

func (localCommand) check(ctx context.Context, req providers.CheckRequest) (providers.CheckResponse, error) {
	if _, failures := readLocalSpec(req.News); len(failures) > 0 {
		return providers.CheckResponse{Inputs: req.News, Failures: failures}, nil
	}
	return providers.CheckResponse{Inputs: req.News}, nil
}

// diff compares the inputs; a change of triggers replaces the resource,
// any other updates it.
func (localCommand) diff(ctx context.Context, req providers.DiffRequest) (providers.DiffResponse, error) {
	olds := req.OldInputs
	if len(olds) == 0 {
		olds = props.Pick(req.OldOutputs, localCommandKeys)
	}
	return props.Diff(olds, req.NewInputs, localCommandKeys, "triggers"), nil
}

// create runs the create command, if there is one. The ID is the
// resource's name and eight random hex digits, as pulumi-command makes it.
func (c localCommand) create(ctx context.Context, req providers.CreateRequest) (providers.CreateResponse, error) {
	s, failures := readLocalSpec(req.Inputs)
	if len(failures) > 0 {
		return providers.CreateResponse{}, props.FailuresError(req.URN, failures)
	}
	if req.Preview {
		return providers.CreateResponse{Outputs: s.outputs(s.inputs, s.unknownResult())}, nil
	}
	if !s.known() {
		return providers.CreateResponse{}, props.ErrUnknownInputs
	}
	res := result{stdout: resource.NewString(""), stderr: resource.NewString("")}
	if s.create.Set {
		ctx, cancel := withTimeout(ctx, req.Timeout)
		defer cancel()
		var err error
		if res, err = s.exec(ctx, c.wd, "create", s.create.Value, nil); err != nil {
			return providers.CreateResponse{}, err
		}
	}
	return providers.CreateResponse{ID: hexID(req.URN.Name()), Outputs: s.outputs(s.inputs, res)}, nil
}

// update runs the update command, or the create command if there is none
// (nothing if neither is given), whatever input changed, with the recorded
// stdout and stderr in the environment.
func (c localCommand) update(ctx context.Context, req providers.UpdateRequest) (providers.UpdateResponse, error) {
	s, failures := readLocalSpec(req.NewInputs)
	if len(failures) > 0 {
		return providers.UpdateResponse{}, props.FailuresError(req.URN, failures)
	}
	op, line := "update", s.update
	if !line.Set {
		op, line = "create", s.create
	}
	prev := recorded(req.OldOutputs)
	if req.Preview {
		if !s.known() {
			prev = s.unknownResult()
		}
		return providers.UpdateResponse{Outputs: s.outputs(s.inputs, prev)}, nil
	}
	if !s.known() {
		return providers.UpdateResponse{}, props.ErrUnknownInputs
	}
	if !line.Set {
		return providers.UpdateResponse{Outputs: s.outputs(s.inputs, prev)}, nil
	}
	ctx, cancel := withTimeout(ctx, req.Timeout)
	defer cancel()
	res, err := s.exec(ctx, c.wd, op, line.Value, req.OldOutputs)
	if err != nil {
		return providers.UpdateResponse{}, err
	}
	return providers.UpdateResponse{Outputs: s.outputs(s.inputs, res)}, nil
}

// delete runs the recorded delete command, if any, with the recorded
// stdout and stderr in the environment.
func (c localCommand) delete(ctx context.Context, req providers.DeleteRequest) (providers.DeleteResponse, error) {
	s, failures := readLocalSpec(props.Pick(req.Outputs, localCommandKeys))
	if len(failures) > 0 {
		return providers.DeleteResponse{}, props.FailuresError(req.URN, failures)
	}
	if s.delete.Set {
		ctx, cancel := withTimeout(ctx, req.Timeout)
		defer cancel()
		if _, _, err := run(ctx, s.invocation(c.wd, "delete", s.delete.Value, req.Outputs)); err != nil {
			return providers.DeleteResponse{}, err
		}
	}
	return providers.DeleteResponse{}, nil
}

// hexID is name followed by eight random hex digits.
func hexID(name string) resource.ID {
	var b [4]byte
	rand.Read(b[:])
	return resource.ID(name + hex.EncodeToString(b[:]))
}
