package command_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/groundwork-iac/groundwork/providers"
	"github.com/groundwork-iac/groundwork/providers/command"
	"github.com/groundwork-iac/groundwork/resource"
)

// A command without a dir input runs in the provider's working folder
// (WorkDir), as pulumi-command runs in the program's folder Pulumi starts
// it in; a relative dir is taken from that folder, an absolute one is
// kept. Without WorkDir, commands run in this process's working folder.
// Each type and the run function do so, and a local command's assetPaths
// are read in the same folder.
func TestWorkDir(t *testing.T) {
	wd, other := t.TempDir(), t.TempDir()
	if err := os.Mkdir(filepath.Join(wd, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(wd, "marker.txt"), []byte("here"), 0o644); err != nil {
		t.Fatal(err)
	}
	cwd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		opts []command.Option
		dir  string // the dir input; "" for none
		want string
	}{
		{"no dir", []command.Option{command.WorkDir(wd)}, "", wd},
		{"relative dir", []command.Option{command.WorkDir(wd)}, "sub", filepath.Join(wd, "sub")},
		{"absolute dir", []command.Option{command.WorkDir(wd)}, other, other},
		{"no WorkDir", nil, "", cwd},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := command.New(tt.opts...)
			with := func(m resource.PropertyMap) resource.PropertyMap {
				if tt.dir != "" {
					m["dir"] = str(tt.dir)
				}
				return m
			}
			// pwd -P: the temporary folders may be reached through a link.
			want, err := filepath.EvalSymlinks(tt.want)
			if err != nil {
				t.Fatal(err)
			}

			local := localCreate(t, p, with(resource.PropertyMap{"create": str("pwd -P")}))
			if got := local.outputs["stdout"].StringValue(); got != want {
				t.Errorf("command:local:Command ran in %q, want %q", got, want)
			}

			inputs := with(resource.PropertyMap{"create": str("pwd -P")})
			resp, err := p.Create(t.Context(), providers.CreateRequest{URN: urn, Inputs: inputs})
			if err != nil {
				t.Fatal(err)
			}
			if got := resp.Outputs["stdout"].StringValue(); got != want {
				t.Errorf("command:index:Command ran in %q, want %q", got, want)
			}

			ran, err := p.(providers.Invoker).Invoke(t.Context(), providers.InvokeRequest{Token: command.RunFunction, Args: with(resource.PropertyMap{"command": str("pwd -P")})})
			if err != nil {
				t.Fatal(err)
			}
			if got := ran.Return["stdout"].StringValue(); got != want {
				t.Errorf("command:local:run ran in %q, want %q", got, want)
			}
		})
	}

	p := command.New(command.WorkDir(wd))
	r := localCreate(t, p, resource.PropertyMap{"create": str("true"), "assetPaths": strArray("*.txt")})
	assets := r.outputs["assets"].ObjectValue()
	if _, ok := assets["marker.txt"]; !ok || len(assets) != 1 {
		t.Errorf("assets = %v, want marker.txt, from the working folder", assets)
	}
}
