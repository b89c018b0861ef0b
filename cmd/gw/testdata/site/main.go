// Command site is a Pulumi Go SDK program that gw's test deploys with the
// built-in providers: a random pet names the page that a local file
// holds. Its config: "site:dir", the folder the page goes in, "site:token",
// a secret it exports, and optionally "site:slow", "site:hookLog" and
// "site:extraType" (see below).
package main

import (
	"errors"
	"fmt"
	"os"
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
		// "site:hookLog", when set, is a file that a hook bound to the
		// page's delete appends a line to: gw's tests destroy a stack whose
		// resource has a delete hook.
		var pageOpts []pulumi.ResourceOption
		if hookLog := cfg.Get("hookLog"); hookLog != "" {
			hook, err := ctx.RegisterResourceHook("log-delete", func(args *pulumi.ResourceHookArgs) error {
				return appendLine(hookLog, "deleting "+args.Name)
			}, nil)
			if err != nil {
				return err
			}
			pageOpts = append(pageOpts, pulumi.ResourceHooks(&pulumi.ResourceHookBinding{BeforeDelete: []*pulumi.ResourceHook{hook}}))
		}
		var page File
		if err := ctx.RegisterResource("local:index:File", "page", pulumi.Map{
			"path":    pulumi.String(filepath.Join(cfg.Require("dir"), "index.html")),
			"content": pulumi.Sprintf("<h1>Hello from %s!</h1>\n", pet.Result),
		}, &page, pageOpts...); err != nil {
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
		// "site:extraType", when set, is the type of one more resource:
		// gw's tests register a type no provider serves.
		if extra := cfg.Get("extraType"); extra != "" {
			var res pulumi.CustomResourceState
			if err := ctx.RegisterResource(extra, "extra", pulumi.Map{}, &res); err != nil {
				return err
			}
		}
		ctx.Export("mascot", pet.Result)
		ctx.Export("page", page.Path)
		ctx.Export("token", cfg.RequireSecret("token"))
		return nil
	})
}

// appendLine appends line and a newline to the file path.
func appendLine(path, line string) error {
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintln(f, line)
	return errors.Join(err, f.Close())
}
