// Command goprog is a Pulumi Go SDK program that langhost's tests deploy
// through groundwork's engine. The config key "goprog:step" selects what it
// declares: step 1 creates everything; step 2 updates a file, replaces
// another, drops the one managed by the explicit provider and reads an
// existing file; step 3 adds a file its provider rejects.
package main

import (
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi/config"
)

// File is a testfs:index:File.
type File struct {
	pulumi.CustomResourceState
	Name    pulumi.StringOutput `pulumi:"name"`
	Content pulumi.StringOutput `pulumi:"content"`
	Size    pulumi.IntOutput    `pulumi:"size"`
}

// Provider is an explicit testfs provider.
type Provider struct {
	pulumi.ProviderResourceState
}

// Group is a component holding two files.
type Group struct {
	pulumi.ResourceState
}

func file(ctx *pulumi.Context, name string, props pulumi.Map, opts ...pulumi.ResourceOption) (*File, error) {
	var f File
	err := ctx.RegisterResource("testfs:index:File", name, props, &f, opts...)
	return &f, err
}

func main() {
	pulumi.Run(func(ctx *pulumi.Context) error {
		cfg := config.New(ctx, "")
		step := cfg.RequireInt("step")

		content := "hello"
		if step >= 2 {
			content = "hello, world"
		}
		a, err := file(ctx, "a", pulumi.Map{"name": pulumi.String("a.txt"), "content": pulumi.String(content)})
		if err != nil {
			return err
		}

		if step < 2 {
			var explicit Provider
			if err := ctx.RegisterResource("pulumi:providers:testfs", "explicit",
				pulumi.Map{"root": pulumi.String(cfg.Require("explicitRoot"))}, &explicit); err != nil {
				return err
			}
			if _, err := file(ctx, "b", pulumi.Map{"name": pulumi.String("b.txt"), "content": a.Content},
				pulumi.Provider(&explicit)); err != nil {
				return err
			}
		}

		var group Group
		if err := ctx.RegisterComponentResource("goprog:index:Group", "group", &group); err != nil {
			return err
		}
		c2 := "c2.txt"
		if step >= 2 {
			c2 = "c2-renamed.txt"
		}
		for name, path := range map[string]string{"c1": "c1.txt", "c2": c2} {
			if _, err := file(ctx, name, pulumi.Map{"name": pulumi.String(path), "content": pulumi.String(name)},
				pulumi.Parent(&group)); err != nil {
				return err
			}
		}
		if err := ctx.RegisterResourceOutputs(&group, pulumi.Map{"files": pulumi.Int(2)}); err != nil {
			return err
		}

		secret, err := file(ctx, "secret", pulumi.Map{
			"name": pulumi.String("secret.txt"), "content": pulumi.ToSecret(pulumi.String("s3cr3t")),
		}, pulumi.AdditionalSecretOutputs([]string{"name"}))
		if err != nil {
			return err
		}

		if step >= 2 {
			// An existing file, read and recorded but not managed.
			var read File
			if err := ctx.ReadResource("testfs:index:File", "c1-read", pulumi.ID("c1.txt"), nil, &read); err != nil {
				return err
			}
		}
		if step >= 3 {
			if _, err := file(ctx, "bad", pulumi.Map{"name": pulumi.String(""), "content": pulumi.String("x")}); err != nil {
				return err
			}
		}

		var upper struct {
			Result string `pulumi:"result"`
		}
		if err := ctx.Invoke("testfs:index:upper", map[string]interface{}{"text": "shout"}, &upper); err != nil {
			return err
		}

		ctx.Log.Info("goprog: step "+cfg.Require("step"), nil)
		ctx.Export("aSize", a.Size)
		ctx.Export("secretContent", secret.Content)
		ctx.Export("upper", pulumi.String(upper.Result))
		return nil
	})
}
