package world

import (
	"fmt"
	"math/rand/v2"
	"strconv"

	"github.com/groundwork-iac/groundwork/engine"
	"github.com/groundwork-iac/groundwork/resource"
)

// The world's package and resource types.
const (
	Package   = "crash"
	ThingType = "crash:index:Thing"
	GroupType = "crash:index:Group"
)

// Res is one resource of a generated program.
type Res struct {
	Name      string
	Component bool
	// Parent is the index of a component parent, or -1 for the stack.
	Parent int
	// Deps are indexes of explicit dependencies.
	Deps []int
	// Ref is the index of the resource whose ID is this one's "ref"
	// input (a property dependency), or -1.
	Ref int
	// RefReplaces makes a change of "ref" replace the resource.
	RefReplaces bool
	Gen         int
	Val         string
	// DBR asks for delete-before-replace.
	DBR bool
}

// Spec is a generated program: resources in registration order, each
// depending only on earlier ones.
type Spec struct{ Res []Res }

// Generate returns two versions of a program of n resources: v1, and v2
// which replaces, updates, deletes and adds some of them. Both follow
// seed.
func Generate(seed uint64, n int) (v1, v2 Spec) {
	r := rand.New(rand.NewPCG(seed, 0x5eed))
	for i := range n {
		res := Res{Name: fmt.Sprintf("r%d", i), Parent: -1, Ref: -1, Gen: 1, Val: "v1"}
		if i > 2 && r.IntN(10) == 0 {
			res.Component = true
		} else {
			pickDeps(r, &res, v1.Res, i)
			res.DBR = r.IntN(5) == 0
			res.RefReplaces = res.Ref >= 0 && r.IntN(3) == 0
		}
		v1.Res = append(v1.Res, res)
	}
	// v2: map v1 indexes to v2 ones; dropped resources map to -1.
	idx := make([]int, n)
	for i, res := range v1.Res {
		if !res.Component && r.IntN(10) == 0 {
			idx[i] = -1
			continue
		}
		res.Deps = nil
		for _, d := range v1.Res[i].Deps {
			if idx[d] >= 0 {
				res.Deps = append(res.Deps, idx[d])
			}
		}
		if res.Parent >= 0 {
			res.Parent = idx[res.Parent]
		}
		if res.Ref >= 0 {
			res.Ref = idx[res.Ref]
			if res.Ref < 0 {
				res.RefReplaces = false
			}
		}
		if !res.Component {
			switch r.IntN(20) {
			case 0, 1, 2:
				res.Gen++
			case 3, 4, 5:
				res.Val = "v2"
			}
		}
		idx[i] = len(v2.Res)
		v2.Res = append(v2.Res, res)
	}
	for i := range n / 10 {
		res := Res{Name: fmt.Sprintf("n%d", i), Parent: -1, Ref: -1, Gen: 1, Val: "v1"}
		pickDeps(r, &res, v2.Res, len(v2.Res))
		v2.Res = append(v2.Res, res)
	}
	return v1, v2
}

// pickDeps gives res (to be at index i of prev) a parent, dependencies and
// a reference among the resources before it.
func pickDeps(r *rand.Rand, res *Res, prev []Res, i int) {
	if i == 0 {
		return
	}
	if c := r.IntN(i); prev[c].Component && r.IntN(2) == 0 {
		res.Parent = c
	}
	for range r.IntN(3) {
		if d := r.IntN(i); !prev[d].Component || r.IntN(3) == 0 {
			res.Deps = append(res.Deps, d)
		}
	}
	if d := r.IntN(i); !prev[d].Component && r.IntN(2) == 0 {
		res.Ref = d
	}
}

// Program returns the in-process program that registers the spec.
func (s Spec) Program() engine.Program {
	return func(ctx *engine.Context) error {
		hs := make([]*engine.Resource, len(s.Res))
		for i, res := range s.Res {
			var opts []engine.ResourceOption
			if res.Parent >= 0 {
				opts = append(opts, engine.Parent(hs[res.Parent]))
			}
			for _, d := range res.Deps {
				opts = append(opts, engine.DependsOn(hs[d]))
			}
			if res.Component {
				hs[i] = ctx.Component(GroupType, res.Name, opts...)
				continue
			}
			if res.DBR {
				opts = append(opts, engine.DeleteBeforeReplace())
			}
			props := engine.Props{"gen": strconv.Itoa(res.Gen), "val": res.Val}
			if res.Ref >= 0 {
				props["ref"] = hs[res.Ref].ID()
			}
			if res.RefReplaces {
				props["rk"] = "ref"
			}
			hs[i] = ctx.Register(ThingType, res.Name, props, opts...)
		}
		return nil
	}
}

// Want is what the world and the state must hold once the spec is
// deployed: for each custom resource's name, its inputs and physical ID.
type Want struct {
	Props map[string]string
	ID    resource.ID
	URN   resource.URN
}

// Expected computes the deployed form of the spec on a stack.
func (s Spec) Expected(stack, project string) map[string]Want {
	out := map[string]Want{}
	urns := make([]resource.URN, len(s.Res))
	for i, res := range s.Res {
		parentType := ""
		typ := ThingType
		if res.Component {
			typ = GroupType
		}
		if res.Parent >= 0 {
			parentType = urns[res.Parent].QualifiedType()
		}
		urns[i] = resource.NewURN(stack, project, parentType, typ, res.Name)
		if res.Component {
			continue
		}
		props := map[string]string{"gen": strconv.Itoa(res.Gen), "val": res.Val}
		if res.Ref >= 0 {
			props["ref"] = string(out[s.Res[res.Ref].Name].ID)
		}
		if res.RefReplaces {
			props["rk"] = "ref"
		}
		out[res.Name] = Want{Props: props, ID: PhysicalID(urns[i], props), URN: urns[i]}
	}
	return out
}

// Customs counts the spec's custom resources.
func (s Spec) Customs() int {
	n := 0
	for _, r := range s.Res {
		if !r.Component {
			n++
		}
	}
	return n
}
