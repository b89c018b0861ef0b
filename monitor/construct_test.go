package monitor_test

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/groundwork-iac/groundwork/monitor"
	"github.com/groundwork-iac/groundwork/providers"
	"github.com/groundwork-iac/groundwork/resource"
)

// output is a known output value holding v that depends on deps.
func output(v resource.PropertyValue, deps ...resource.URN) resource.PropertyValue {
	return resource.NewOutput(resource.Output{Element: v, Known: true, Dependencies: deps})
}

// sortURNs orders URN lists for comparison: they are sets.
var sortURNs = cmpopts.SortSlices(func(a, b resource.URN) bool { return a < b })

// TestConstructOutputDependencies: a constructed component's outputs
// depend on what its provider's Construct said they do and on the
// dependencies of the output values in them, at any depth, so that a
// program passing an output on (Pulumi's TestConstruct: component c's
// input is component a's childId) makes its consumer depend on a's child
// too.
func TestConstructOutputDependencies(t *testing.T) {
	a, childA, other, deep := urnOf("pkg:index:Comp", "a"), urnOf(thing, "child-a"), urnOf(thing, "other"), urnOf(thing, "deep")
	tests := []struct {
		name    string
		outputs resource.PropertyMap
		deps    map[resource.PropertyKey][]resource.URN
		want    map[resource.PropertyKey][]resource.URN
	}{
		{"none", resource.PropertyMap{"echo": resource.NewNumber(42)}, nil, nil},
		{"named by Construct",
			resource.PropertyMap{"childId": resource.NewString("id-1"), "echo": resource.NewNumber(42)},
			map[resource.PropertyKey][]resource.URN{"childId": {childA}},
			map[resource.PropertyKey][]resource.URN{"childId": {childA}}},
		{"an output value, and named too",
			resource.PropertyMap{"viaValue": output(resource.NewString("v"), other, childA)},
			map[resource.PropertyKey][]resource.URN{"viaValue": {childA}},
			map[resource.PropertyKey][]resource.URN{"viaValue": {childA, other}}},
		{"output values in objects, arrays and outputs",
			resource.PropertyMap{
				"object": resource.NewObject(resource.PropertyMap{"x": output(resource.NewString("v"), other)}),
				"array":  resource.NewArray(resource.NewString("plain"), output(resource.NewString("v"), childA)),
				"nested": output(resource.NewArray(output(resource.NewNumber(1), deep)), other),
			},
			nil,
			map[resource.PropertyKey][]resource.URN{"object": {other}, "array": {childA}, "nested": {deep, other}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			prov := &providers.Func{ConstructF: func(ctx context.Context, req providers.ConstructRequest) (providers.ConstructResponse, error) {
				return providers.ConstructResponse{URN: a, Outputs: tt.outputs, OutputDependencies: tt.deps}, nil
			}}
			m := monitor.New(monitor.Config{Deployer: &deployer{}, Providers: &source{p: prov}})
			res, err := m.RegisterResource(context.Background(), resource.Goal{Type: "pkg:index:Comp", Name: "a", Remote: true})
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, res.OutputDependencies, sortURNs); diff != "" {
				t.Errorf("output dependencies (-want +got):\n%s", diff)
			}
		})
	}
}

// TestConstructInputDependencies: Construct is told, for every input of
// a remote component, what the program said it depends on and what the
// output values in it depend on, as Pulumi's engine tells it.
func TestConstructInputDependencies(t *testing.T) {
	a, childA, other := urnOf("pkg:index:Comp", "a"), urnOf(thing, "child-a"), urnOf(thing, "other")
	tests := []struct {
		name   string
		inputs resource.PropertyMap
		deps   map[resource.PropertyKey][]resource.URN
		want   map[resource.PropertyKey][]resource.URN
	}{
		{"none", nil, nil, nil},
		{"as the program said",
			resource.PropertyMap{"echo": resource.NewString("x"), "plain": resource.NewNumber(1)},
			map[resource.PropertyKey][]resource.URN{"echo": {a}},
			map[resource.PropertyKey][]resource.URN{"echo": {a}, "plain": {}}},
		{"and the output values in the inputs",
			resource.PropertyMap{
				"echo":   output(resource.NewString("x"), a, childA),
				"object": resource.NewObject(resource.PropertyMap{"y": output(resource.NewNumber(2), other)}),
			},
			map[resource.PropertyKey][]resource.URN{"echo": {a}},
			map[resource.PropertyKey][]resource.URN{"echo": {a, childA}, "object": {other}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got map[resource.PropertyKey][]resource.URN
			prov := &providers.Func{ConstructF: func(ctx context.Context, req providers.ConstructRequest) (providers.ConstructResponse, error) {
				got = req.InputDependencies
				return providers.ConstructResponse{URN: urnOf(req.Type, req.Name)}, nil
			}}
			m := monitor.New(monitor.Config{Deployer: &deployer{}, Providers: &source{p: prov}})
			_, err := m.RegisterResource(context.Background(), resource.Goal{
				Type: "pkg:index:Comp", Name: "c", Remote: true, Inputs: tt.inputs, PropertyDependencies: tt.deps,
			})
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got, sortURNs); diff != "" {
				t.Errorf("Construct's input dependencies (-want +got):\n%s", diff)
			}
		})
	}
}
