package providers

import (
	"context"
	"errors"
	"fmt"

	"github.com/groundwork-iac/groundwork/resource"
)

// Input keys of a provider resource that the registry reads itself and
// keeps out of the configuration it hands the provider (CheckConfig,
// DiffConfig and Configure never see them, in old inputs, old outputs or
// new inputs alike). They stay in the provider resource's checked inputs,
// so the state records them.
const (
	// VersionKey holds the package version wanted, a semantic version
	// string; absent means the newest available.
	VersionKey resource.PropertyKey = "version"
	// PluginDownloadURLKey holds where the plugin can be downloaded; it is
	// for the Resolver's use and not interpreted by the registry.
	PluginDownloadURLKey resource.PropertyKey = "pluginDownloadURL"
	// ParameterizationKey holds the parameterization that produced the
	// package, for a parameterized package. The registry writes it in Check;
	// Load and Create read it to parameterize the plugin again.
	ParameterizationKey resource.PropertyKey = "__parameterization"
	// InternalKey holds bookkeeping that is nobody's configuration:
	// Pulumi's engine records a provider's name and download URL under
	// it, and plugins built with pulumi-go-provider add their framework's
	// version to what CheckConfig returns. The checked inputs keep the
	// program's value, or else the provider's; a change of it is no
	// change of the provider, and the provider resource's outputs leave it
	// out, as Pulumi's engine does.
	InternalKey resource.PropertyKey = "__internal"
)

// reservedKeys are kept out of the configuration a provider sees.
var reservedKeys = []resource.PropertyKey{VersionKey, PluginDownloadURLKey, ParameterizationKey, InternalKey}

// diffedKeys are the reserved keys whose change is a change of the
// provider resource (an update).
var diffedKeys = []resource.PropertyKey{VersionKey, PluginDownloadURLKey, ParameterizationKey}

// outputsOf returns a provider resource's outputs: its inputs without
// InternalKey.
func outputsOf(inputs resource.PropertyMap) resource.PropertyMap {
	if _, ok := inputs[InternalKey]; !ok {
		return inputs
	}
	out := inputs.Copy()
	delete(out, InternalKey)
	return out
}

// configOf returns the provider configuration in a provider resource's
// inputs: the inputs without the reserved keys.
func configOf(inputs resource.PropertyMap) resource.PropertyMap {
	config := make(resource.PropertyMap, len(inputs))
	for k, v := range inputs {
		config[k] = v
	}
	for _, k := range reservedKeys {
		delete(config, k)
	}
	return config
}

// versionOf reads VersionKey: a failure if it is neither absent, null nor a
// valid semantic version string.
func versionOf(inputs resource.PropertyMap) (string, *CheckFailure) {
	v, ok := inputs[VersionKey]
	switch {
	case !ok || v.IsNull():
		return "", nil
	case v.IsUnknown():
		return "", &CheckFailure{Property: string(VersionKey), Reason: "the provider version must be known before the provider can be checked; pass a version that does not depend on other resources"}
	case !v.IsString():
		return "", &CheckFailure{Property: string(VersionKey), Reason: "want a version string such as \"1.2.3\", found " + v.Kind().String()}
	}
	if _, err := ParseVersion(v.StringValue()); err != nil {
		return "", &CheckFailure{Property: string(VersionKey), Reason: err.Error()}
	}
	return v.StringValue(), nil
}

// providerPackage returns the package of the provider resource urn, or an
// error saying the registry manages only provider resources.
func providerPackage(method string, urn resource.URN) (string, error) {
	pkg, ok := PackageOfProviderType(urn.Type())
	if !ok {
		return "", fmt.Errorf("provider registry: cannot %s %s: it is not a provider resource (type %q); the registry manages only resources of type %q<package>, send others to the provider its Reference names", method, urn, urn.Type(), resource.ProviderTypePrefix)
	}
	return pkg, nil
}

// entryFor resolves the factory of a provider resource from its inputs,
// restoring a recorded parameterization first.
func (r *Registry) entryFor(ctx context.Context, pkg string, inputs resource.PropertyMap) (*factoryEntry, *CheckFailure, error) {
	version, failure := versionOf(inputs)
	if failure != nil {
		return nil, failure, nil
	}
	var param *parameterization
	if v, ok := inputs[ParameterizationKey]; ok {
		p, err := decodeParameterization(v)
		if err != nil {
			return nil, &CheckFailure{Property: string(ParameterizationKey), Reason: err.Error()}, nil
		}
		param = p
	}
	e, err := r.entry(ctx, pkg, version, param)
	return e, nil, err
}

func (r *Registry) entry(ctx context.Context, pkg, version string, param *parameterization) (*factoryEntry, error) {
	if r.isClosed() {
		return nil, ErrRegistryClosed
	}
	if param != nil {
		if err := r.restoreParameterization(ctx, param); err != nil {
			return nil, err
		}
	}
	return r.resolve(ctx, pkg, version)
}

// start starts (but does not configure) the instance for ref.
func (r *Registry) start(ctx context.Context, ref Reference, pkg, version string, param *parameterization) (full, error) {
	e, err := r.entry(ctx, pkg, version, param)
	if err != nil {
		return nil, err
	}
	return e.build(ctx, instanceName(ref, e.info))
}

// Check checks a provider resource's configuration with the CheckConfig of
// its package (at the version its VersionKey asks for). The checked inputs
// are the checked configuration plus the reserved keys as given, and
// ParameterizationKey for a parameterized package.
func (r *Registry) Check(ctx context.Context, req CheckRequest) (CheckResponse, error) {
	pkg, err := providerPackage("Check", req.URN)
	if err != nil {
		return CheckResponse{}, err
	}
	e, failure, err := r.entryFor(ctx, pkg, req.News)
	if failure != nil || err != nil {
		return CheckResponse{Failures: failuresOf(failure)}, wrapf(err, "check provider %s", req.URN)
	}
	p, err := r.checkerFor(ctx, e)
	if err != nil {
		return CheckResponse{}, wrapf(err, "check provider %s", req.URN)
	}
	resp, err := CheckConfig(ctx, p, CheckRequest{URN: req.URN, Olds: configOf(req.Olds), News: configOf(req.News), RandomSeed: req.RandomSeed})
	if err != nil || len(resp.Failures) > 0 {
		return resp, wrapf(err, "check provider %s", req.URN)
	}
	inputs := resp.Inputs.Copy()
	if inputs == nil {
		inputs = resource.PropertyMap{}
	}
	for _, k := range reservedKeys {
		if v, ok := req.News[k]; ok {
			inputs[k] = v
		}
	}
	if e.param != nil {
		inputs[ParameterizationKey] = encodeParameterization(e)
	}
	return CheckResponse{Inputs: inputs}, nil
}

func failuresOf(f *CheckFailure) []CheckFailure {
	if f == nil {
		return nil
	}
	return []CheckFailure{*f}
}

func wrapf(err error, format string, args ...any) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("%s: %w", fmt.Sprintf(format, args...), err)
}

// Diff compares a provider resource's old and new configuration with the
// DiffConfig of the package version its new inputs ask for. A change of a
// reserved key (a new version, say) is an in-place update.
func (r *Registry) Diff(ctx context.Context, req DiffRequest) (DiffResponse, error) {
	pkg, err := providerPackage("Diff", req.URN)
	if err != nil {
		return DiffResponse{}, err
	}
	e, failure, err := r.entryFor(ctx, pkg, req.NewInputs)
	if failure != nil {
		err = errors.New(failure.String())
	}
	if err != nil {
		return DiffResponse{}, wrapf(err, "diff provider %s", req.URN)
	}
	p, err := r.checkerFor(ctx, e)
	if err != nil {
		return DiffResponse{}, wrapf(err, "diff provider %s", req.URN)
	}
	resp, err := DiffConfig(ctx, p, DiffRequest{
		URN: req.URN, ID: req.ID,
		OldInputs: configOf(req.OldInputs), OldOutputs: configOf(req.OldOutputs), NewInputs: configOf(req.NewInputs),
		IgnoreChanges: req.IgnoreChanges,
	})
	if err != nil {
		return DiffResponse{}, wrapf(err, "diff provider %s", req.URN)
	}
	return withReservedChanges(resp, req.OldInputs, req.NewInputs), nil
}

// withReservedChanges adds changes of the reserved keys other than
// InternalKey to d as updates.
func withReservedChanges(d DiffResponse, olds, news resource.PropertyMap) DiffResponse {
	reserved := func(m resource.PropertyMap) resource.PropertyMap {
		out := resource.PropertyMap{}
		for _, k := range diffedKeys {
			if v, ok := m[k]; ok {
				out[k] = v
			}
		}
		return out
	}
	rd := DiffInputs(reserved(olds), reserved(news))
	if rd.Changes != resource.DiffSome {
		return d
	}
	d.Changes = resource.DiffSome
	d.ChangedKeys = append(append([]resource.PropertyKey(nil), d.ChangedKeys...), rd.ChangedKeys...)
	detail := make(map[string]resource.PropertyDiff, len(d.DetailedDiff)+len(rd.DetailedDiff))
	for k, v := range d.DetailedDiff {
		detail[k] = v
	}
	for k, v := range rd.DetailedDiff {
		detail[k] = v
	}
	d.DetailedDiff = detail
	return d
}

// Create starts an instance of the provider resource's package, configures
// it, and records it under the resource's reference. Outside a preview the
// ID is fresh (see WithIDs); in a preview it is UnknownID, and if the
// configuration has unknown values the instance is recorded unconfigured
// (see Get). The outputs are the inputs without InternalKey.
func (r *Registry) Create(ctx context.Context, req CreateRequest) (CreateResponse, error) {
	if _, err := providerPackage("Create", req.URN); err != nil {
		return CreateResponse{}, err
	}
	id := UnknownID
	if !req.Preview {
		id = r.newID()
	}
	if err := r.launch(ctx, NewReference(req.URN, id), req.Inputs, req.Preview); err != nil {
		return CreateResponse{}, err // the step names the resource and what failed
	}
	return CreateResponse{ID: id, Outputs: outputsOf(req.Inputs)}, nil
}

// Update replaces the instance recorded under the provider resource's
// reference with one configured from the new inputs (unconfigured in a
// preview whose configuration has unknown values), then shuts the old one
// down. The outputs are the new inputs without InternalKey.
func (r *Registry) Update(ctx context.Context, req UpdateRequest) (UpdateResponse, error) {
	if _, err := providerPackage("Update", req.URN); err != nil {
		return UpdateResponse{}, err
	}
	if req.ID == "" {
		return UpdateResponse{}, fmt.Errorf("update provider %s: the request has no ID; pass the ID recorded for the provider resource", req.URN)
	}
	if err := r.launch(ctx, NewReference(req.URN, req.ID), req.NewInputs, req.Preview); err != nil {
		return UpdateResponse{}, err // the step names the resource and what failed
	}
	return UpdateResponse{Outputs: outputsOf(req.NewInputs)}, nil
}

// launch starts and configures an instance for ref and records it,
// shutting down any instance it replaces.
func (r *Registry) launch(ctx context.Context, ref Reference, inputs resource.PropertyMap, preview bool) error {
	pkg, _ := PackageOfProviderType(ref.URN.Type())
	version, failure := versionOf(inputs)
	if failure != nil {
		return errors.New(failure.String())
	}
	var param *parameterization
	if v, ok := inputs[ParameterizationKey]; ok {
		p, err := decodeParameterization(v)
		if err != nil {
			return err
		}
		param = p
	}
	p, err := r.start(ctx, ref, pkg, version, param)
	if err != nil {
		return err
	}
	config := configOf(inputs)
	inst := newInstance(r, ref, pkg, version, config)
	inst.param, inst.inner = param, p
	if preview && config.ContainsUnknowns() {
		inst.state = instUnconfigured
	} else {
		req := ConfigureRequest{URN: ref.URN, ID: ref.ID, Inputs: config, AcceptSecrets: true, AcceptResources: true}
		if _, err := Configure(ctx, p, req); err != nil {
			return errors.Join(fmt.Errorf("configure: %w", err), Close(ctx, p))
		}
		inst.state = instConfigured
	}
	inst.markStarted() // not shared yet: no lock needed
	old, err := r.swap(inst)
	if err != nil {
		return errors.Join(err, Close(ctx, p))
	}
	if old != nil {
		return old.shutdown(ctx)
	}
	return nil
}

// Read reports a provider resource as recorded: a provider resource has no
// physical existence to read.
func (r *Registry) Read(ctx context.Context, req ReadRequest) (ReadResponse, error) {
	if _, err := providerPackage("Read", req.URN); err != nil {
		return ReadResponse{}, err
	}
	outputs := req.State
	if outputs == nil {
		outputs = req.Inputs
	}
	return ReadResponse{ID: req.ID, Inputs: req.Inputs, Outputs: outputs}, nil
}

// Delete shuts down and forgets the instance recorded under the provider
// resource's reference. Deleting one the registry does not have succeeds.
func (r *Registry) Delete(ctx context.Context, req DeleteRequest) (DeleteResponse, error) {
	if _, err := providerPackage("Delete", req.URN); err != nil {
		return DeleteResponse{}, err
	}
	if inst := r.forget(NewReference(req.URN, req.ID)); inst != nil {
		if err := inst.shutdown(ctx); err != nil {
			return DeleteResponse{}, wrapf(err, "shut down")
		}
	}
	return DeleteResponse{}, nil
}
