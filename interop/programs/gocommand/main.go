// Command gocommand is a Pulumi Go SDK program written with pulumi-command's
// Go SDK, which the interop suite deploys through gw with no
// pulumi-resource-command plugin installed: gw's built-in command provider
// serves its types. Its commands log what they do to log.txt in the folder
// the config key "dir" names; "msg" changes the hello command (an update),
// "gen" the trigger of the gen command (a replacement).
package main

import (
	"sort"

	"github.com/pulumi/pulumi-command/sdk/go/command/local"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi/config"
)

func main() {
	pulumi.Run(func(ctx *pulumi.Context) error {
		cfg := config.New(ctx, "")
		dir, msg, gen := cfg.Require("dir"), cfg.Require("msg"), cfg.Require("gen")

		hello, err := local.NewCommand(ctx, "hello", &local.CommandArgs{
			Create:      pulumi.String(`echo "create $MSG" >> log.txt; echo "hello $MSG"`),
			Update:      pulumi.String(`echo "update $MSG saw $PULUMI_COMMAND_STDOUT" >> log.txt; echo "hello again $MSG"`),
			Delete:      pulumi.String(`echo "delete hello saw $PULUMI_COMMAND_STDOUT" >> log.txt`),
			Dir:         pulumi.String(dir),
			Environment: pulumi.StringMap{"MSG": pulumi.String(msg)},
		})
		if err != nil {
			return err
		}
		genCmd, err := local.NewCommand(ctx, "gen", &local.CommandArgs{
			Create:      pulumi.String(`echo "create gen $GEN" >> log.txt; cat`),
			Delete:      pulumi.String(`echo "delete gen $GEN" >> log.txt`),
			Stdin:       pulumi.String("input-" + gen),
			Interpreter: pulumi.StringArray{pulumi.String("/bin/sh"), pulumi.String("-c")},
			Dir:         pulumi.String(dir),
			Environment: pulumi.StringMap{"GEN": pulumi.String(gen)},
			Triggers:    pulumi.Array{pulumi.String(gen)},
		})
		if err != nil {
			return err
		}
		files, err := local.NewCommand(ctx, "files", &local.CommandArgs{
			Create:       pulumi.String(`mkdir -p out && echo a > out/a.txt && echo s > out/secret.txt`),
			Delete:       pulumi.String(`rm -r out`),
			Dir:          pulumi.String(dir),
			AssetPaths:   pulumi.StringArray{pulumi.String("out/*.txt"), pulumi.String("!**secret*")},
			ArchivePaths: pulumi.StringArray{pulumi.String("out/**")},
			Logging:      local.LoggingNone,
		})
		if err != nil {
			return err
		}
		token, err := local.NewCommand(ctx, "token", &local.CommandArgs{
			Create: pulumi.String(`echo "token=$TOKEN"`),
			Environment: pulumi.StringMap{
				"TOKEN": pulumi.ToSecret(pulumi.String("tok-s3cr3t")).(pulumi.StringOutput),
			},
			AddPreviousOutputInEnv: pulumi.Bool(false),
		})
		if err != nil {
			return err
		}
		run, err := local.Run(ctx, &local.RunArgs{
			Command:     `echo "run $MSG"`,
			Environment: map[string]string{"MSG": msg},
			Dir:         &dir,
		})
		if err != nil {
			return err
		}
		ctx.Export("helloOut", hello.Stdout)
		ctx.Export("genOut", genCmd.Stdout)
		ctx.Export("runOut", pulumi.String(run.Stdout))
		ctx.Export("assetNames", files.Assets.ApplyT(func(m map[string]pulumi.AssetOrArchive) []string {
			names := []string{}
			for k := range m {
				names = append(names, k)
			}
			sort.Strings(names)
			return names
		}))
		ctx.Export("tokenOut", token.Stdout)
		return nil
	})
}
