// Command leaks is a Pulumi Go SDK program whose resources and functions
// quote a secret in their failures, for gw's secrets leak test. It shares
// the site program's module. Its config: "leaks:token", the secret, and
// "leaks:case", what quotes it:
//
//   - "check", "diff", "create", "initError", "stderr": the test plugin's
//     resource (package gwtest) quotes it in that call (its "leakIn");
//     "setup" registers the same resource quoting it nowhere;
//   - "configure": the resource is registered plainly, and the stack's
//     "gwtest:leak" has the plugin's Configure quote it;
//   - "applyErr", "panic": an Apply on it fails, or panics, quoting it;
//   - "command": a command:index:Command writes it to stderr and fails.
package main

import (
	"fmt"

	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi/config"
)

func main() {
	pulumi.Run(func(ctx *pulumi.Context) error {
		cfg := config.New(ctx, "")
		token := cfg.RequireSecret("token")
		var res pulumi.CustomResourceState
		switch c := cfg.Require("case"); c {
		case "check", "diff", "create", "initError", "stderr", "setup", "configure":
			inputs := pulumi.Map{"leak": token, "leakIn": pulumi.String(c)}
			if c == "configure" {
				inputs = pulumi.Map{}
			}
			return ctx.RegisterResource("gwtest:index:Thing", "thing", inputs, &res)
		case "applyErr":
			ctx.Export("derived", token.ApplyT(func(s string) (string, error) {
				return "", fmt.Errorf("%s is not a valid key", s)
			}))
		case "panic":
			ctx.Export("derived", token.ApplyT(func(s string) string { panic("cannot use " + s) }))
		case "command":
			return ctx.RegisterResource("command:index:Command", "cmd", pulumi.Map{
				"create":      pulumi.String(`echo "logging in with $TOKEN" >&2; exit 3`),
				"shell":       pulumi.Bool(true),
				"environment": pulumi.StringMap{"TOKEN": token},
			}, &res)
		default:
			return fmt.Errorf("unknown case %q", c)
		}
		return nil
	})
}
