package resource_test

import (
	"fmt"

	"github.com/groundwork-iac/groundwork/resource"
)

func ExampleParseURN() {
	u, err := resource.ParseURN("urn:pulumi:dev::site::pulumi:pulumi:Stack$my:web:Site$aws:s3/bucket:Bucket::assets")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(u.Stack(), u.Project(), u.Name())
	fmt.Println(u.Type(), "in package", u.Package())
	fmt.Println("parent:", u.ParentType())

	_, err = resource.ParseURN("urn:pulumi:dev::site::my:web:Site$::assets")
	fmt.Println(err)
	// Output:
	// dev site assets
	// aws:s3/bucket:Bucket in package aws
	// parent: pulumi:pulumi:Stack$my:web:Site
	// invalid URN "urn:pulumi:dev::site::my:web:Site$::assets": type: "": is empty
}

func ExampleParsePropertyPath() {
	p, err := resource.ParsePropertyPath(`spec.containers[0].env["API.KEY"]`)
	if err != nil {
		fmt.Println(err)
		return
	}
	v, _ := resource.NewPropertyValue(map[string]any{
		"spec": map[string]any{
			"containers": []any{map[string]any{"env": map[string]any{"API.KEY": "k-123"}}},
		},
	})
	got, ok := p.Get(v)
	fmt.Println(len(p), "steps:", p, "=", got, ok)

	// Set returns a changed copy, creating what is missing.
	v2, _ := resource.PropertyPath{resource.PathKey("spec"), resource.PathKey("replicas")}.Set(v, resource.NewNumber(3))
	replicas, _ := resource.PropertyPath{resource.PathKey("spec"), resource.PathKey("replicas")}.Get(v2)
	fmt.Println("replicas:", replicas)

	_, err = resource.ParsePropertyPath("spec.containers[zero]")
	fmt.Println(err)
	// Output:
	// 5 steps: spec.containers[0].env["API.KEY"] = "k-123" true
	// replicas: 3
	// invalid property path "spec.containers[zero]" at byte 16: expected an index, '*' or a quoted key after '[', found 'z'
}

func ExamplePropertyMap_Diff() {
	old, _ := resource.NewPropertyMapFromMap(map[string]any{
		"name": "web",
		"size": "small",
		"tags": map[string]any{"env": "dev", "team": "infra"},
	})
	news, _ := resource.NewPropertyMapFromMap(map[string]any{
		"name":  "web",
		"size":  "large",
		"tags":  map[string]any{"env": "prod", "team": "infra"},
		"zones": []any{"a", "b"},
	})
	d := old.Diff(news)
	fmt.Println("changed:", d.ChangedKeys())
	detailed := resource.DetailedDiffFromObjectDiff(d, true)
	for _, k := range []string{"size", "tags.env", "zones"} {
		fmt.Println(k, detailed[k].Kind)
	}
	fmt.Println("unchanged is nil:", old.Diff(old) == nil)
	// Output:
	// changed: [size tags zones]
	// size update
	// tags.env update
	// zones add
	// unchanged is nil: true
}

func ExampleGraph_Antichains() {
	mk := func(name string, deps ...string) *resource.State {
		s := &resource.State{Type: "cloud:index:Thing", URN: resource.NewURN("dev", "app", "", "cloud:index:Thing", name)}
		for _, d := range deps {
			s.Dependencies = append(s.Dependencies, resource.NewURN("dev", "app", "", "cloud:index:Thing", d))
		}
		return s
	}
	states := []*resource.State{
		mk("network"), mk("subnet", "network"), mk("vm1", "subnet"), mk("vm2", "subnet"), mk("dns", "vm1"),
	}
	g, err := resource.NewGraph(states)
	if err != nil {
		fmt.Println(err)
		return
	}
	var all []resource.URN
	for _, s := range states {
		all = append(all, s.URN)
	}
	chains, err := g.Antichains(all)
	if err != nil {
		fmt.Println(err)
		return
	}
	for i, chain := range chains {
		fmt.Print("delete step ", i+1, ":")
		for _, u := range chain {
			fmt.Print(" ", u.Name())
		}
		fmt.Println()
	}
	// Output:
	// delete step 1: vm2 dns
	// delete step 2: vm1
	// delete step 3: subnet
	// delete step 4: network
}
