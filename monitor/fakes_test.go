package monitor_test

import (
	"context"
	"sync"

	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/groundwork-iac/groundwork/providers"
	"github.com/groundwork-iac/groundwork/resource"
)

const thing = "pkg:index:Thing"

// deployer is a fake monitor.Deployer: it records what reaches it and
// answers each registration with a URN built from type and name and the ID
// "id-<name>".
type deployer struct {
	mu         sync.Mutex
	registered []resource.Goal
	reads      []readCall
	outputs    map[resource.URN]resource.PropertyMap
	// gate, when set, holds provider registrations until it is closed;
	// entered, when set, is sent to as one arrives at the gate.
	gate    chan struct{}
	entered chan struct{}
	// failProviders fails provider registrations.
	failProviders error
	// noID answers provider registrations without an ID (as in a
	// preview).
	noID bool
}

type readCall struct {
	Goal resource.Goal
	ID   resource.ID
}

func urnOf(typ, name string) resource.URN { return resource.NewURN("dev", "proj", "", typ, name) }

// RegisterResourceAsync answers at once, except a provider registration
// held at the gate: a goroutine of the fake waits for the gate (or the
// context) and answers then.
func (d *deployer) RegisterResourceAsync(ctx context.Context, goal *resource.Goal, done func(providers.RegisterResult, error)) {
	if !resource.IsProviderType(goal.Type) || d.gate == nil {
		done(d.register(*goal))
		return
	}
	if d.entered != nil {
		d.entered <- struct{}{}
	}
	go func() {
		select {
		case <-d.gate:
			done(d.register(*goal))
		case <-ctx.Done():
			done(providers.RegisterResult{}, context.Cause(ctx))
		}
	}()
}

// register records goal and answers it.
func (d *deployer) register(goal resource.Goal) (providers.RegisterResult, error) {
	isProvider := resource.IsProviderType(goal.Type)
	d.mu.Lock()
	d.registered = append(d.registered, goal)
	d.mu.Unlock()
	if isProvider && d.failProviders != nil {
		return providers.RegisterResult{}, d.failProviders
	}
	res := providers.RegisterResult{URN: urnOf(goal.Type, goal.Name), ID: resource.ID("id-" + goal.Name)}
	if isProvider && d.noID {
		res.ID = ""
	}
	return res, nil
}

func (d *deployer) RegisterResourceOutputs(ctx context.Context, urn resource.URN, outputs resource.PropertyMap) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.outputs == nil {
		d.outputs = map[resource.URN]resource.PropertyMap{}
	}
	d.outputs[urn] = outputs
	return nil
}

func (d *deployer) ReadResource(ctx context.Context, goal resource.Goal, id resource.ID) (providers.RegisterResult, error) {
	d.mu.Lock()
	d.reads = append(d.reads, readCall{goal, id})
	d.mu.Unlock()
	return providers.RegisterResult{URN: urnOf(goal.Type, goal.Name), ID: id}, nil
}

// goals returns what was registered, in the order it arrived.
func (d *deployer) goals() []resource.Goal {
	d.mu.Lock()
	defer d.mu.Unlock()
	return append([]resource.Goal(nil), d.registered...)
}

// providerGoals returns the provider registrations.
func (d *deployer) providerGoals() []resource.Goal {
	var out []resource.Goal
	for _, g := range d.goals() {
		if resource.IsProviderType(g.Type) {
			out = append(out, g)
		}
	}
	return out
}

// source is a fake providers.ProviderSource serving one provider and
// recording what it was asked for.
type source struct {
	mu    sync.Mutex
	p     providers.Provider
	asked [][2]string
}

func (s *source) Provider(ref, typ string) (providers.Provider, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.asked = append(s.asked, [2]string{ref, typ})
	return s.p, nil
}

// defaultRef is the reference the fake deployer gives the default
// provider of pkg and version.
func defaultRef(pkg, version string) string {
	name := providers.DefaultProviderName(version)
	return providers.NewReference(urnOf(providers.ProviderType(pkg), name), resource.ID("id-"+name)).String()
}

func thingGoal(name string) resource.Goal {
	return resource.Goal{Type: thing, Name: name, Custom: true}
}

// sortGoals orders goals by type and name for comparison.
var sortGoals = cmpopts.SortSlices(func(a, b resource.Goal) bool {
	if a.Type != b.Type {
		return a.Type < b.Type
	}
	return a.Name < b.Name
})
