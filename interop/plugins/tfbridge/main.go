// Command tfbridge is a provider plugin built with the Pulumi Terraform
// bridge, for the interop suite: a small Terraform provider written with
// terraform-plugin-sdk/v2 (package "tffile": one resource, tffile_file, a
// file under the provider's configured root, and a sensitive token) served
// through pulumi-terraform-bridge as the Pulumi package "tffile", resource
// "tffile:index:File". Every write it makes to the world is appended, one
// line each, to "writes.log" under the root, so that tests can count them.
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/hashicorp/terraform-plugin-sdk/v2/diag"
	"github.com/hashicorp/terraform-plugin-sdk/v2/helper/schema"
	"github.com/pulumi/pulumi-terraform-bridge/v3/pkg/tfbridge"
	shimv2 "github.com/pulumi/pulumi-terraform-bridge/v3/pkg/tfshim/sdk-v2"
)

func main() {
	info := tfbridge.ProviderInfo{
		P:       shimv2.NewProvider(provider()),
		Name:    "tffile",
		Version: "1.0.0",
		Config: map[string]*tfbridge.SchemaInfo{
			"token": {Secret: tfbridge.True()},
		},
		Resources: map[string]*tfbridge.ResourceInfo{
			"tffile_file": {Tok: "tffile:index:File"},
		},
	}
	tfbridge.Main("tffile", "1.0.0", info, []byte(`{"name": "tffile", "version": "1.0.0"}`))
}

// root is the folder the provider writes in, from its configuration.
type root string

func provider() *schema.Provider {
	return &schema.Provider{
		Schema: map[string]*schema.Schema{
			"root":  {Type: schema.TypeString, Required: true},
			"token": {Type: schema.TypeString, Required: true, Sensitive: true},
		},
		ConfigureContextFunc: func(_ context.Context, d *schema.ResourceData) (any, diag.Diagnostics) {
			if d.Get("token").(string) == "" {
				return nil, diag.Errorf("tffile: a token is required")
			}
			return root(d.Get("root").(string)), nil
		},
		ResourcesMap: map[string]*schema.Resource{"tffile_file": file()},
	}
}

// file is a file under the provider's root; changing its name replaces
// it.
func file() *schema.Resource {
	return &schema.Resource{
		Schema: map[string]*schema.Schema{
			"name":    {Type: schema.TypeString, Required: true, ForceNew: true},
			"content": {Type: schema.TypeString, Required: true},
		},
		CreateContext: func(_ context.Context, d *schema.ResourceData, m any) diag.Diagnostics {
			name := d.Get("name").(string)
			if err := write(m.(root), "create", name, d.Get("content").(string)); err != nil {
				return diag.FromErr(err)
			}
			d.SetId(name)
			return nil
		},
		ReadContext: func(_ context.Context, d *schema.ResourceData, m any) diag.Diagnostics {
			b, err := os.ReadFile(filepath.Join(string(m.(root)), d.Id()))
			if errors.Is(err, os.ErrNotExist) {
				d.SetId("")
				return nil
			}
			if err != nil {
				return diag.FromErr(err)
			}
			if err := d.Set("name", d.Id()); err != nil {
				return diag.FromErr(err)
			}
			return diag.FromErr(d.Set("content", string(b)))
		},
		UpdateContext: func(_ context.Context, d *schema.ResourceData, m any) diag.Diagnostics {
			return diag.FromErr(write(m.(root), "update", d.Id(), d.Get("content").(string)))
		},
		DeleteContext: func(_ context.Context, d *schema.ResourceData, m any) diag.Diagnostics {
			r := m.(root)
			if err := os.Remove(filepath.Join(string(r), d.Id())); err != nil && !errors.Is(err, os.ErrNotExist) {
				return diag.FromErr(err)
			}
			return diag.FromErr(logWrite(r, "delete", d.Id()))
		},
	}
}

// write writes a file and logs the write.
func write(r root, op, name, content string) error {
	if err := os.WriteFile(filepath.Join(string(r), name), []byte(content), 0o644); err != nil {
		return err
	}
	return logWrite(r, op, name)
}

// logWrite appends "op name" to the root's writes.log.
func logWrite(r root, op, name string) error {
	f, err := os.OpenFile(filepath.Join(string(r), "writes.log"), os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	_, werr := fmt.Fprintf(f, "%s %s\n", op, name)
	return errors.Join(werr, f.Close())
}
