package grpcserver

import (
	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"

	"github.com/groundwork-iac/groundwork/resource"
)

// transformOptions are a registration's options as a transform sees them.
// Alias URNs come first among the aliases, as Pulumi's engine lists them;
// the provider is the one the resource will use (its own, else the entry
// of its providers map for its package).
func transformOptions(req *pulumirpc.RegisterResourceRequest) *pulumirpc.TransformResourceOptions {
	aliases := make([]*pulumirpc.Alias, 0, len(req.GetAliasURNs())+len(req.GetAliases()))
	for _, u := range req.GetAliasURNs() {
		aliases = append(aliases, &pulumirpc.Alias{Alias: &pulumirpc.Alias_Urn{Urn: u}})
	}
	aliases = append(aliases, req.GetAliases()...)
	provider := req.GetProvider()
	if provider == "" && (req.GetCustom() || req.GetRemote()) {
		provider = req.GetProviders()[resource.TypePackage(req.GetType())]
	}
	var dbr *bool
	if req.GetDeleteBeforeReplaceDefined() || req.GetDeleteBeforeReplace() {
		v := req.GetDeleteBeforeReplace()
		dbr = &v
	}
	return &pulumirpc.TransformResourceOptions{
		DependsOn:               req.GetDependencies(),
		Protect:                 req.Protect,
		IgnoreChanges:           req.GetIgnoreChanges(),
		ReplaceOnChanges:        req.GetReplaceOnChanges(),
		Version:                 req.GetVersion(),
		Aliases:                 aliases,
		Provider:                provider,
		CustomTimeouts:          req.GetCustomTimeouts(),
		PluginDownloadUrl:       req.GetPluginDownloadURL(),
		RetainOnDelete:          req.RetainOnDelete,
		DeletedWith:             req.GetDeletedWith(),
		DeleteBeforeReplace:     dbr,
		AdditionalSecretOutputs: req.GetAdditionalSecretOutputs(),
		Providers:               req.GetProviders(),
		PluginChecksums:         req.GetPluginChecksums(),
		Hooks:                   req.GetHooks(),
		Import:                  req.GetImportId(),
		HideDiff:                req.GetHideDiffs(),
		ReplaceWith:             req.GetReplaceWith(),
		ReplacementTrigger:      req.GetReplacementTrigger(),
	}
}

// setTransformOptions writes the options a transform answered back into
// the registration.
func setTransformOptions(req *pulumirpc.RegisterResourceRequest, o *pulumirpc.TransformResourceOptions) {
	req.Dependencies = o.GetDependsOn()
	req.Protect = o.Protect
	req.IgnoreChanges = o.GetIgnoreChanges()
	req.ReplaceOnChanges = o.GetReplaceOnChanges()
	req.Version = o.GetVersion()
	req.AliasURNs, req.Aliases = nil, o.GetAliases()
	req.Provider = o.GetProvider()
	req.CustomTimeouts = o.GetCustomTimeouts()
	req.PluginDownloadURL = o.GetPluginDownloadUrl()
	req.RetainOnDelete = o.RetainOnDelete
	req.DeletedWith = o.GetDeletedWith()
	req.DeleteBeforeReplace = o.GetDeleteBeforeReplace()
	req.DeleteBeforeReplaceDefined = o.DeleteBeforeReplace != nil
	req.AdditionalSecretOutputs = o.GetAdditionalSecretOutputs()
	req.Providers = o.GetProviders()
	req.PluginChecksums = o.GetPluginChecksums()
	req.Hooks = o.GetHooks()
	req.ImportId = o.GetImport()
	req.HideDiffs = o.GetHideDiff()
	req.ReplaceWith = o.GetReplaceWith()
	req.ReplacementTrigger = o.GetReplacementTrigger()
}
