// Package scenario is the Pulumi Go SDK program that the interop suite
// deploys through groundwork's engine, as a binary (the goprog command)
// and inline (package langhost/inline). The config key "interop:scenario"
// selects what it does; each scenario exercises a part of the protocol that
// only a real SDK program reaches (see the interop tests for what each
// expects). Resources are of the suite's in-process package "itest", and
// remote components of its comp plugin (plugins/comp).
package scenario

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/pulumi/pulumi/sdk/v3/go/common/resource"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi/config"
)

// Thing is an itest:index:Thing.
type Thing struct {
	pulumi.CustomResourceState
	Value  pulumi.StringOutput `pulumi:"value"`
	Tagged pulumi.BoolOutput   `pulumi:"tagged"`
}

// Group is a component.
type Group struct {
	pulumi.ResourceState
}

func thing(ctx *pulumi.Context, name string, value pulumi.StringInput, opts ...pulumi.ResourceOption) (*Thing, error) {
	var t Thing
	err := ctx.RegisterResource("itest:index:Thing", name, pulumi.Map{"value": value}, &t, opts...)
	return &t, err
}

// Run is the program: the config key "interop:scenario" selects what it
// does.
func Run(ctx *pulumi.Context) error {
	cfg := config.New(ctx, "interop")
	switch s := cfg.Require("scenario"); s {
	case "urn":
		return byURN(ctx)
	case "producer":
		ctx.Export("plain", pulumi.String("p"))
		ctx.Export("token", pulumi.ToSecret(pulumi.String("s3cr3t-t0k3n")))
		return nil
	case "consumer":
		return consumer(ctx)
	case "transforms":
		return transforms(ctx)
	case "hooks":
		return hooks(ctx, cfg)
	case "aliases":
		return aliases(ctx, cfg.RequireInt("version"))
	case "read":
		var t Thing
		if err := ctx.ReadResource("itest:index:Thing", "ext", pulumi.ID("ext-1"), nil, &t); err != nil {
			return err
		}
		ctx.Export("read", t.Value)
		return nil
	case "failure":
		return failure(ctx, cfg.RequireBool("fail"))
	case "construct":
		return construct(ctx)
	case "componentProviders":
		return componentProviders(ctx)
	default:
		return fmt.Errorf("unknown scenario %q", s)
	}
}

// byURN registers a thing, then gets it again by its URN (the URN
// resource option: the engine's getResource).
func byURN(ctx *pulumi.Context) error {
	a, err := thing(ctx, "a", pulumi.String("x"))
	if err != nil {
		return err
	}
	urn := fmt.Sprintf("urn:pulumi:%s::%s::itest:index:Thing::a", ctx.Stack(), ctx.Project())
	var again Thing
	if err := ctx.RegisterResource("itest:index:Thing", "a-again", nil, &again, pulumi.URN_(urn), pulumi.DependsOn([]pulumi.Resource{a})); err != nil {
		return err
	}
	ctx.Export("againValue", again.Value)
	ctx.Export("againID", again.ID())
	ctx.Export("againURN", again.URN())
	return nil
}

// consumer reads the producer stack's outputs.
func consumer(ctx *pulumi.Context) error {
	ref, err := pulumi.NewStackReference(ctx, "organization/interop/producer", nil)
	if err != nil {
		return err
	}
	ctx.Export("plain", ref.GetStringOutput(pulumi.String("plain")))
	ctx.Export("token", ref.GetOutput(pulumi.String("token")))
	details, err := ref.GetOutputDetails("token")
	if err != nil {
		return err
	}
	ctx.Export("tokenIsSecret", pulumi.Bool(details.SecretValue != nil && details.Value == nil))
	return nil
}

// transforms tags every thing (a stack transform), renames the value of
// the children of one component (a transform of the component), and
// rewrites the arguments of every invoke.
func transforms(ctx *pulumi.Context) error {
	err := ctx.RegisterResourceTransform(func(_ context.Context, args *pulumi.ResourceTransformArgs) *pulumi.ResourceTransformResult {
		if args.Type != "itest:index:Thing" {
			return nil
		}
		args.Props["tagged"] = pulumi.Bool(true)
		return &pulumi.ResourceTransformResult{Props: args.Props, Opts: args.Opts}
	})
	if err != nil {
		return err
	}
	err = ctx.RegisterInvokeTransform(func(_ context.Context, args *pulumi.InvokeTransformArgs) *pulumi.InvokeTransformResult {
		args.Args["message"] = pulumi.String("transformed")
		return &pulumi.InvokeTransformResult{Args: args.Args, Opts: args.Opts}
	})
	if err != nil {
		return err
	}
	var group Group
	err = ctx.RegisterComponentResource("interop:index:Group", "group", &group, pulumi.Transforms([]pulumi.ResourceTransform{
		func(_ context.Context, args *pulumi.ResourceTransformArgs) *pulumi.ResourceTransformResult {
			if args.Type != "itest:index:Thing" {
				return nil
			}
			args.Props["value"] = pulumi.String(args.Name + "-from-group")
			return &pulumi.ResourceTransformResult{Props: args.Props, Opts: args.Opts}
		},
	}))
	if err != nil {
		return err
	}
	if _, err := thing(ctx, "child", pulumi.String("orig"), pulumi.Parent(&group)); err != nil {
		return err
	}
	if _, err := thing(ctx, "plain", pulumi.String("orig")); err != nil {
		return err
	}
	var echoed struct {
		Message string `pulumi:"message"`
	}
	if err := ctx.Invoke("itest:index:echo", map[string]any{"message": "orig"}, &echoed); err != nil {
		return err
	}
	ctx.Export("echoed", pulumi.String(echoed.Message))
	return ctx.RegisterResourceOutputs(&group, pulumi.Map{})
}

// hooks binds a hook of each kind to a thing (when "declare" is set), each
// appending a line to the file "hookLog" names; a thing with the value
// "veto" is refused by its before-create hook.
func hooks(ctx *pulumi.Context, cfg *config.Config) error {
	logPath := cfg.Require("hookLog")
	show := func(m resource.PropertyMap) string {
		if v, ok := m["value"]; ok && v.IsString() {
			return v.StringValue()
		}
		return "-"
	}
	hook := func(name string) (*pulumi.ResourceHook, error) {
		return ctx.RegisterResourceHook(name, func(a *pulumi.ResourceHookArgs) error {
			if name == "beforeCreate" && show(a.NewInputs) == "veto" {
				return errors.New("vetoed by the program")
			}
			f, err := os.OpenFile(logPath, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
			if err != nil {
				return err
			}
			_, err = fmt.Fprintf(f, "%s %s new=%s old=%s id=%t\n", name, a.Name, show(a.NewInputs), show(a.OldInputs), a.ID != "")
			return errors.Join(err, f.Close())
		}, nil)
	}
	binding := &pulumi.ResourceHookBinding{}
	for _, h := range []struct {
		name string
		list *[]*pulumi.ResourceHook
	}{
		{"beforeCreate", &binding.BeforeCreate}, {"afterCreate", &binding.AfterCreate},
		{"beforeUpdate", &binding.BeforeUpdate}, {"afterUpdate", &binding.AfterUpdate},
		{"beforeDelete", &binding.BeforeDelete}, {"afterDelete", &binding.AfterDelete},
	} {
		rh, err := hook(h.name)
		if err != nil {
			return err
		}
		*h.list = append(*h.list, rh)
	}
	if !cfg.GetBool("declare") {
		return nil
	}
	_, err := thing(ctx, "hooked", pulumi.String(cfg.Require("value")), pulumi.ResourceHooks(binding))
	return err
}

// aliases declares a component with children. Version 1 calls it "app", of
// type Group; version 2 renames it "web" and retypes it Team, with aliases
// saying so, and its children take the new name as the SDKs name children.
func aliases(ctx *pulumi.Context, version int) error {
	name, typ := "app", "interop:index:Group"
	var opts []pulumi.ResourceOption
	if version == 2 {
		name, typ = "web", "interop:index:Team"
		opts = append(opts, pulumi.Aliases([]pulumi.Alias{{Name: pulumi.String("app"), Type: pulumi.String("interop:index:Group")}}))
	}
	var comp, sub Group
	if err := ctx.RegisterComponentResource(typ, name, &comp, opts...); err != nil {
		return err
	}
	if _, err := thing(ctx, name+"-db", pulumi.String("db"), pulumi.Parent(&comp)); err != nil {
		return err
	}
	if err := ctx.RegisterComponentResource("interop:index:Sub", name+"-sub", &sub, pulumi.Parent(&comp)); err != nil {
		return err
	}
	if _, err := thing(ctx, "leaf", pulumi.String("leaf"), pulumi.Parent(&sub)); err != nil {
		return err
	}
	return nil
}

// failure exports a value and, with fail set, one that depends on a thing
// its provider refuses to create.
func failure(ctx *pulumi.Context, fail bool) error {
	if !fail {
		ctx.Export("a", pulumi.String("one"))
		return nil
	}
	ctx.Export("a", pulumi.String("two"))
	bad, err := thing(ctx, "bad", pulumi.String("fail"))
	if err != nil {
		return err
	}
	ctx.Export("b", bad.Value)
	return nil
}
