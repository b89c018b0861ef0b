package program

import (
	"fmt"

	"github.com/groundwork-iac/groundwork/monitor"
	"github.com/groundwork-iac/groundwork/providers"
	"github.com/groundwork-iac/groundwork/providers/pulumi"
	"github.com/groundwork-iac/groundwork/resource"
)

// StackReference reads the outputs of another stack of the engine's state
// store into a resource of type "pulumi:pulumi:StackReference" called name,
// as the Pulumi SDKs do. stack names the other stack: "stack" (a stack of
// this project), "project/stack" or "organization/project/stack" (any
// organization: a store has none; see pulumi.ParseStackReference). Its
// outputs are "outputs", an object of the other stack's outputs, in which
// secret values stay secret, and "secretOutputNames"; StackOutput picks
// one output. The other stack is read in every operation, previews included,
// through its own secrets manager; reading a stack the store does not
// hold fails with a *pulumi.StackNotFoundError, and a name of another
// shape with a *pulumi.StackReferenceError.
func (c *Context) StackReference(name, stack string, opts ...ResourceOption) *Resource {
	return c.Read(pulumi.StackReferenceType, name, resource.ID(stack), Props{"name": stack}, opts...)
}

// StackOutput returns the future value of the output key of the stack that
// ref, a StackReference, reads: null if the stack has no such output,
// secret if it is secret there.
func StackOutput(ref *Resource, key string) Output[resource.PropertyValue] {
	return Apply(ref.Output("outputs"), func(v resource.PropertyValue) resource.PropertyValue {
		if !v.IsObject() {
			return resource.NewNull()
		}
		out, ok := v.ObjectValue()[resource.PropertyKey(key)]
		if !ok {
			return resource.NewNull()
		}
		return out
	})
}

// Get returns a handle of a resource known by its URN: one this operation
// has registered or read already (its registration has completed), as the
// Pulumi SDKs rehydrate a resource with the URN option. The handle has the
// resource's URN, ID and outputs as the deployment knows them, and serves
// as a parent, dependency, provider or input like any other; the resource
// is not registered again. A URN the operation has not produced fails the
// handle (and the program) with an error wrapping a
// *pulumi.UnknownResourceError.
func (c *Context) Get(urn resource.URN) *Resource {
	r := c.newResource(urn.Type(), urn.Name(), false)
	if !c.pending.add() {
		r.finish(providers.RegisterResult{}, fmt.Errorf("getting resource %s after the program returned", urn))
		return r
	}
	r.counted = true
	go func() {
		r.finish(c.get(urn))
	}()
	return r
}

// get calls the built-in getResource for urn.
func (c *Context) get(urn resource.URN) (providers.RegisterResult, error) {
	resp, err := c.mon.Invoke(c.ctx, monitor.InvokeRequest{
		Token: pulumi.GetResource, Args: resource.PropertyMap{"urn": resource.NewString(string(urn))},
	})
	if err == nil && len(resp.Failures) > 0 {
		err = fmt.Errorf("%v", resp.Failures)
	}
	if err != nil {
		return providers.RegisterResult{}, fmt.Errorf("getting resource %s: %w", urn, err)
	}
	st := resp.Return["state"]
	res := providers.RegisterResult{URN: urn, ID: resource.ID(resp.Return["id"].StringValue())}
	if st.IsObject() {
		res.Outputs = st.ObjectValue()
	}
	return res, nil
}
