// Command schemacheck binds a Pulumi package schema (a JSON file named by
// its argument) with Pulumi's own schema package, as SDK generators do, and
// prints each resource type it binds with its input and output properties;
// it fails, printing the diagnostics, if the schema does not bind. The
// interop suite runs it on the schema groundwork's built-in providers
// answer.
package main

import (
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/pulumi/pulumi/pkg/v3/codegen/schema"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "schemacheck:", err)
		os.Exit(1)
	}
}

func run() error {
	if len(os.Args) != 2 {
		return fmt.Errorf("usage: schemacheck SCHEMA.json")
	}
	b, err := os.ReadFile(os.Args[1])
	if err != nil {
		return err
	}
	var spec schema.PackageSpec
	if err := json.Unmarshal(b, &spec); err != nil {
		return fmt.Errorf("decode the schema: %w", err)
	}
	pkg, diags, err := schema.BindSpec(spec, nil, schema.ValidationOptions{})
	if err != nil {
		return fmt.Errorf("bind the schema: %w", err)
	}
	if diags.HasErrors() {
		return fmt.Errorf("bind the schema: %s", diags.Error())
	}
	fmt.Printf("package %s %s\n", pkg.Name, pkg.Version)
	for _, r := range pkg.Resources {
		fmt.Printf("%s inputs=%s outputs=%s\n", r.Token, props(r.InputProperties), props(r.Properties))
	}
	return nil
}

// props lists properties as name:type, a "!" after a required one and a
// "*" after a secret one, sorted.
func props(ps []*schema.Property) string {
	var out []string
	for _, p := range ps {
		s := p.Name + ":" + p.Type.String()
		if p.IsRequired() {
			s += "!"
		}
		if p.Secret {
			s += "*"
		}
		out = append(out, s)
	}
	slices.Sort(out)
	return strings.Join(out, ",")
}
