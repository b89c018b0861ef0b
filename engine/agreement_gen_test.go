package engine_test

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"pgregory.net/rapid"

	"github.com/groundwork-iac/groundwork/engine"
	"github.com/groundwork-iac/groundwork/providers"
	"github.com/groundwork-iac/groundwork/resource"
)

// The programs of the agreement oracle (agreement_test.go): a few
// resources of the package "pt", components and explicit providers, whose
// inputs are expressions over constants, the outputs of earlier resources
// and the output functions of the typed API.

const ptItem = "pt:index:Item"

// ptThing is a pt:index:Item declared with NewResource.
type ptThing struct {
	*engine.Resource
	V   engine.Output[string] `prop:"v"`
	Out engine.Output[string] `prop:"out"`
}

type ptArgs struct {
	V engine.Output[string] `prop:"v"`
	R engine.Output[string] `prop:"r"`
}

// The kinds of resource a program declares.
const (
	kindTyped     = "typed"     // NewResource
	kindProps     = "props"     // Context.Register with Props
	kindComponent = "component" // Context.Component, with registered outputs
	kindProvider  = "provider"  // an explicit provider of pt
)

// expr is an input expression: a string-valued Output.
type expr struct {
	op   string // val, out, id, apply, applyErr, apply2, apply3, all, sprintf, secret, as, stack
	s    string
	ref  int    // out, id, as: the resource it reads
	key  string // out, as: the output ("out" or "v"); stack: the stack output
	args []*expr
}

func (e *expr) String() string {
	switch e.op {
	case "val":
		return fmt.Sprintf("%q", e.s)
	case "out", "as":
		return fmt.Sprintf("%s(r%d.%s)", e.op, e.ref, e.key)
	case "id":
		return fmt.Sprintf("id(r%d)", e.ref)
	case "stack":
		return fmt.Sprintf("stack(%s)", e.key)
	}
	args := make([]string, len(e.args))
	for i, a := range e.args {
		args[i] = a.String()
	}
	return e.op + "(" + strings.Join(args, ", ") + ")"
}

// decl is one resource of a program.
type decl struct {
	name     string
	kind     string
	v        *expr // custom resources: the input v; components: their output
	r        string
	provider int // an explicit provider's index, or -1 for the default one
	parent   int // a component's index, or -1
	dependOn int // a resource's index, or -1
	dbr      bool
}

func (d *decl) String() string {
	return fmt.Sprintf("%s %s v=%v r=%q provider=%d parent=%d dependsOn=%d dbr=%v", d.kind, d.name, d.v, d.r, d.provider, d.parent, d.dependOn, d.dbr)
}

// drawProgram draws up to size resources, named from a small pool so that
// successive programs update, replace and delete what the last one left.
func drawProgram(t *rapid.T, label string, size int) []*decl {
	n := rapid.IntRange(1, size).Draw(t, label+" size")
	names := rapid.Permutation([]string{"a", "b", "c", "d", "e", "f", "g", "h"}).Draw(t, label+" names")
	var ds []*decl
	for i := range n {
		d := &decl{name: names[i], provider: -1, parent: -1, dependOn: -1}
		d.kind = rapid.SampledFrom([]string{kindTyped, kindTyped, kindProps, kindProps, kindComponent, kindProvider}).Draw(t, label+" kind")
		if d.kind != kindProvider {
			d.v = drawExpr(t, label, ds, 2)
			if comps := indices(ds, kindComponent); len(comps) > 0 && rapid.Bool().Draw(t, label+" has parent") {
				d.parent = rapid.SampledFrom(comps).Draw(t, label+" parent")
			}
		}
		if d.kind == kindTyped || d.kind == kindProps {
			d.r = rapid.SampledFrom([]string{"x", "y"}).Draw(t, label+" r")
			if provs := indices(ds, kindProvider); len(provs) > 0 && rapid.Bool().Draw(t, label+" explicit provider") {
				d.provider = rapid.SampledFrom(provs).Draw(t, label+" provider")
			}
			if i > 0 && rapid.IntRange(0, 3).Draw(t, label+" depends") == 0 {
				d.dependOn = rapid.IntRange(0, i-1).Draw(t, label+" dependsOn")
			}
			d.dbr = rapid.IntRange(0, 3).Draw(t, label+" dbr") == 0
		}
		ds = append(ds, d)
	}
	return ds
}

// indices returns the indices of the declarations of kind.
func indices(ds []*decl, kinds ...string) []int {
	var out []int
	for i, d := range ds {
		for _, k := range kinds {
			if d.kind == k {
				out = append(out, i)
			}
		}
	}
	return out
}

// drawExpr draws an expression over the custom resources among ds.
func drawExpr(t *rapid.T, label string, ds []*decl, depth int) *expr {
	customs := indices(ds, kindTyped, kindProps)
	leaves := []string{"val", "val", "stack"}
	if len(customs) > 0 {
		leaves = append(leaves, "out", "out", "out", "id", "as")
	}
	ops := leaves
	if depth > 0 {
		ops = append(ops, "apply", "applyErr", "apply2", "apply3", "all", "sprintf", "secret")
	}
	e := &expr{op: rapid.SampledFrom(ops).Draw(t, label+" op")}
	switch e.op {
	case "val":
		e.s = rapid.SampledFrom([]string{"p", "q"}).Draw(t, label+" val")
	case "stack":
		e.key = rapid.SampledFrom([]string{"plain", "hidden"}).Draw(t, label+" stack output")
	case "out", "as", "id":
		e.ref = rapid.SampledFrom(customs).Draw(t, label+" ref")
		e.key = rapid.SampledFrom([]string{"out", "v"}).Draw(t, label+" key")
	default:
		arity := map[string]int{"apply": 1, "applyErr": 1, "secret": 1, "apply2": 2, "apply3": 3, "sprintf": 2}[e.op]
		if e.op == "all" {
			arity = rapid.IntRange(1, 3).Draw(t, label+" all")
		}
		for range arity {
			e.args = append(e.args, drawExpr(t, label, ds, depth-1))
		}
	}
	return e
}

// built is what a declaration made: its handle and, for custom resources,
// its outputs.
type built struct {
	res      *engine.Resource
	out, v   engine.Output[string]
	isCustom bool
}

// build returns e as an Output, over the resources made so far.
func (e *expr) build(hs []built, ref *engine.Resource) engine.Output[string] {
	arg := func(i int) engine.Output[string] { return e.args[i].build(hs, ref) }
	switch e.op {
	case "val":
		return engine.Val(e.s)
	case "out":
		if e.key == "out" {
			return hs[e.ref].out
		}
		return hs[e.ref].v
	case "id":
		return engine.Apply(hs[e.ref].res.ID(), func(id resource.ID) string { return string(id) })
	case "as":
		return engine.As[string](hs[e.ref].res.Output(e.key))
	case "stack":
		return engine.Apply(engine.StackOutput(ref, e.key), func(v resource.PropertyValue) string {
			if v.IsSecret() {
				v = v.SecretElement()
			}
			return v.StringValue()
		})
	case "apply":
		return engine.Apply(arg(0), strings.ToUpper)
	case "applyErr":
		return engine.ApplyErr(arg(0), func(s string) (string, error) { return s + "!", nil })
	case "apply2":
		return engine.Apply2(arg(0), arg(1), func(a, b string) string { return a + "+" + b })
	case "apply3":
		return engine.Apply3(arg(0), arg(1), arg(2), func(a, b, c string) string { return a + b + c })
	case "all":
		outs := make([]engine.Output[string], len(e.args))
		for i := range e.args {
			outs[i] = arg(i)
		}
		return engine.Apply(engine.All(outs...), func(v []string) string { return strings.Join(v, ",") })
	case "sprintf":
		return engine.Sprintf("<%v|%v>", arg(0), arg(1))
	case "secret":
		return engine.Secret(arg(0))
	}
	panic("unknown expression " + e.op)
}

// agreementProgram is the program that declares ds, reading the stack
// outputs of the stack named other ("" for none: no expression may read
// one).
func agreementProgram(ds []*decl, other string) engine.Program {
	return func(ctx *engine.Context) error {
		var ref *engine.Resource
		if other != "" {
			ref = ctx.StackReference("ref", other)
		}
		hs := make([]built, len(ds))
		for i, d := range ds {
			var opts []engine.ResourceOption
			if d.provider >= 0 {
				opts = append(opts, engine.Provider(hs[d.provider].res))
			}
			if d.parent >= 0 {
				opts = append(opts, engine.Parent(hs[d.parent].res))
			}
			if d.dependOn >= 0 {
				opts = append(opts, engine.DependsOn(hs[d.dependOn].res))
			}
			if d.dbr {
				opts = append(opts, engine.DeleteBeforeReplace())
			}
			switch d.kind {
			case kindTyped:
				it := engine.NewResource[ptThing](ctx, ptItem, d.name, ptArgs{V: d.v.build(hs, ref), R: engine.Val(d.r)}, opts...)
				hs[i] = built{res: it.Resource, out: it.Out, v: it.V, isCustom: true}
			case kindProps:
				r := ctx.Register(ptItem, d.name, engine.Props{"v": d.v.build(hs, ref), "r": d.r}, opts...)
				hs[i] = built{res: r, out: engine.OutputOf[string](r, "out"), v: engine.OutputOf[string](r, "v"), isCustom: true}
			case kindComponent:
				c := ctx.Component("pt:index:Group", d.name, opts...)
				ctx.RegisterOutputs(c, engine.Props{"summary": d.v.build(hs, ref)})
				hs[i] = built{res: c}
			case kindProvider:
				hs[i] = built{res: ctx.Provider("pt", d.name, engine.Props{})}
			}
		}
		if len(hs) > 0 {
			if last := hs[len(hs)-1]; last.isCustom {
				ctx.Export("last", last.out)
			}
		}
		return nil
	}
}

// ptWorld is the provider of the agreement oracle: Check requires the
// input v, a change of r replaces, and every create or update gives the
// output out a new value. It records the inputs each Check was given in
// the current operation.
type ptWorld struct {
	mu      sync.Mutex
	gen     int
	checked map[resource.URN]resource.PropertyMap
}

func newPTWorld() *ptWorld { return &ptWorld{checked: map[resource.URN]resource.PropertyMap{}} }

// begin starts an operation's record of Checks.
func (w *ptWorld) begin() {
	w.mu.Lock()
	w.checked = map[resource.URN]resource.PropertyMap{}
	w.mu.Unlock()
}

// checks returns the inputs of the current operation's Checks.
func (w *ptWorld) checks() map[resource.URN]resource.PropertyMap {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.checked
}

func (w *ptWorld) outputs(urn resource.URN, in resource.PropertyMap, id resource.ID) resource.PropertyMap {
	w.mu.Lock()
	w.gen++
	g := w.gen
	w.mu.Unlock()
	out := in.Copy()
	v := in["v"]
	if v.IsSecret() {
		v = v.SecretElement()
	}
	out["out"] = resource.NewString(fmt.Sprintf("%s#%d", v.StringValue(), g))
	out["id"] = resource.NewString(string(id))
	return out
}

func (w *ptWorld) provider() *providers.Func {
	return &providers.Func{
		CheckF: func(_ context.Context, req providers.CheckRequest) (providers.CheckResponse, error) {
			w.mu.Lock()
			w.checked[req.URN] = req.News.Copy()
			w.mu.Unlock()
			if v, ok := req.News["v"]; !ok || v.IsNull() {
				return providers.CheckResponse{Failures: []providers.CheckFailure{{Property: "v", Reason: "v is required"}}}, nil
			}
			return providers.CheckResponse{Inputs: req.News}, nil
		},
		DiffF: func(_ context.Context, req providers.DiffRequest) (providers.DiffResponse, error) {
			d := req.OldInputs.Diff(req.NewInputs)
			if d == nil || !d.AnyChanges() {
				return providers.DiffResponse{Changes: resource.DiffNone}, nil
			}
			res := providers.DiffResponse{Changes: resource.DiffSome, ChangedKeys: d.ChangedKeys()}
			for _, k := range res.ChangedKeys {
				if k == "r" {
					res.ReplaceKeys = append(res.ReplaceKeys, k)
				}
			}
			return res, nil
		},
		CreateF: func(_ context.Context, req providers.CreateRequest) (providers.CreateResponse, error) {
			w.mu.Lock()
			id := resource.ID(fmt.Sprintf("%s-%d", req.URN.Name(), w.gen+1))
			w.mu.Unlock()
			return providers.CreateResponse{ID: id, Outputs: w.outputs(req.URN, req.Inputs, id)}, nil
		},
		UpdateF: func(_ context.Context, req providers.UpdateRequest) (providers.UpdateResponse, error) {
			return providers.UpdateResponse{Outputs: w.outputs(req.URN, req.NewInputs, req.ID)}, nil
		},
		DeleteF: func(context.Context, providers.DeleteRequest) (providers.DeleteResponse, error) {
			return providers.DeleteResponse{}, nil
		},
	}
}
