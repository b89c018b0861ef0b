// Command site is a Pulumi Go SDK program that gw's test deploys with the
// built-in providers: a random pet names the page that a local file
// holds. Its config: "site:dir", the folder the page goes in, "site:token",
// a secret it exports, and optionally "site:slow" (see below).
package main

import (
	"path/filepath"

	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi/config"
)

// Pet is a random:index:Pet.
type Pet struct {
	pulumi.CustomResourceState
	Result pulumi.StringOutput `pulumi:"result"`
}

// File is a local:index:File.
type File struct {
	pulumi.CustomResourceState
	Path pulumi.StringOutput `pulumi:"path"`
}

func main() {
	pulumi.Run(func(ctx *pulumi.Context) error {
		cfg := config.New(ctx, "")
		var pet Pet
		if err := ctx.RegisterResource("random:index:Pet", "mascot", pulumi.Map{"length": pulumi.Int(2)}, &pet); err != nil {
			return err
		}
		var page File
		if err := ctx.RegisterResource("local:index:File", "page", pulumi.Map{
			"path":    pulumi.String(filepath.Join(cfg.Require("dir"), "index.html")),
			"content": pulumi.Sprintf("<h1>Hello from %s!</h1>\n", pet.Result),
		}, &page); err != nil {
			return err
		}
		// "site:slow", when set, is a shell command a command:index:Command
		// runs as it is created: gw's tests interrupt an update while it
		// runs.
		if slow := cfg.Get("slow"); slow != "" {
			var cmd pulumi.CustomResourceState
			if err := ctx.RegisterResource("command:index:Command", "slow", pulumi.Map{"create": pulumi.String(slow), "shell": pulumi.Bool(true)}, &cmd); err != nil {
				return err
			}
		}
		ctx.Export("mascot", pet.Result)
		ctx.Export("page", page.Path)
		ctx.Export("token", cfg.RequireSecret("token"))
		return nil
	})
}
