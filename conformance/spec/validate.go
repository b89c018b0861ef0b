package spec

import (
	"errors"
	"fmt"
	"slices"

	"github.com/groundwork-iac/groundwork/resource"
)

// Validate checks that p can be run: names are unique within a version and
// made of letters, digits, '-' and '_'; parents, dependencies and property
// sources name earlier resources of the same version (properties only
// custom ones); an alias's parent names a resource of the version before;
// failures name an operation. The reducer relies on it to throw away the
// candidates its cuts break.
func (p *Program) Validate() error {
	var errs []error
	for i := range p.Versions {
		if err := p.validateVersion(i); err != nil {
			errs = append(errs, fmt.Errorf("version %d: %w", i+1, err))
		}
	}
	for _, f := range p.DestroyFailures {
		if err := f.validate(); err != nil {
			errs = append(errs, fmt.Errorf("destroy: %w", err))
		}
	}
	if len(p.DestroyFailures) > 0 && !p.Destroy {
		errs = append(errs, errors.New("destroy failures without a destroy"))
	}
	return errors.Join(errs...)
}

func (p *Program) validateVersion(i int) error {
	v := &p.Versions[i]
	seen := map[string]*Resource{}
	var errs []error
	for j := range v.Resources {
		r := &v.Resources[j]
		if err := r.validate(seen); err != nil {
			errs = append(errs, fmt.Errorf("resource %q: %w", r.Name, err))
		}
		for _, a := range r.Aliases {
			if a.Parent == nil || *a.Parent == "" {
				continue
			}
			if i == 0 || p.Versions[i-1].Find(*a.Parent) == nil {
				errs = append(errs, fmt.Errorf("resource %q: alias parent %q is not in the version before", r.Name, *a.Parent))
			}
		}
		seen[r.Name] = r
	}
	for _, f := range v.Failures {
		if err := f.validate(); err != nil {
			errs = append(errs, err)
		}
	}
	for _, name := range v.Exports {
		if r := seen[name]; r == nil || r.IsComponent() {
			errs = append(errs, fmt.Errorf("export %q is not a custom resource of the version", name))
		}
	}
	return errors.Join(errs...)
}

func (r *Resource) validate(earlier map[string]*Resource) error {
	if !validName(r.Name) {
		return errors.New("a name must be made of letters, digits, '-' and '_'")
	}
	if earlier[r.Name] != nil {
		return errors.New("registered twice")
	}
	switch r.Type {
	case "", ThingType, GroupType, BoxType:
	default:
		return fmt.Errorf("unknown type %q", r.Type)
	}
	if r.Parent != "" && earlier[r.Parent] == nil {
		return fmt.Errorf("parent %q is not registered before it", r.Parent)
	}
	for _, d := range r.DependsOn {
		if earlier[d] == nil {
			return fmt.Errorf("dependency %q is not registered before it", d)
		}
	}
	if r.IsComponent() && len(r.Props) > 0 {
		return errors.New("a component has no properties")
	}
	keys := map[string]bool{}
	for _, pr := range r.Props {
		if !validName(pr.Key) || pr.Key == OutKey || keys[pr.Key] {
			return fmt.Errorf("bad or repeated property key %q", pr.Key)
		}
		keys[pr.Key] = true
		if pr.From != "" {
			src := earlier[pr.From]
			if src == nil || src.IsComponent() {
				return fmt.Errorf("property %q takes the output of %q, which is not a custom resource registered before it", pr.Key, pr.From)
			}
		}
	}
	for _, a := range r.Aliases {
		if a.Name != "" && !validName(a.Name) {
			return fmt.Errorf("bad alias name %q", a.Name)
		}
		switch a.Type {
		case "", ThingType, GroupType, BoxType:
		default:
			return fmt.Errorf("unknown alias type %q", a.Type)
		}
	}
	return nil
}

func (f Failure) validate() error {
	switch f.Op {
	case OpCreate, OpUpdate, OpDelete:
	default:
		return fmt.Errorf("failure of unknown operation %q", f.Op)
	}
	if !validName(f.Name) {
		return fmt.Errorf("failure of a bad name %q", f.Name)
	}
	return nil
}

func validName(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}

// StackURN is the URN of the stack's root resource.
func StackURN() resource.URN {
	return resource.NewURN(Stack, Project, "", resource.RootStackType, Project+"-"+Stack)
}

// URNs returns the URN of every resource of version i, by name.
func (p *Program) URNs(i int) map[string]resource.URN {
	v := &p.Versions[i]
	urns := make(map[string]resource.URN, len(v.Resources))
	for _, r := range v.Resources {
		parentType := ""
		if r.Parent != "" {
			parentType = urns[r.Parent].QualifiedType()
		}
		urns[r.Name] = resource.NewURN(Stack, Project, parentType, r.TypeOrDefault(), r.Name)
	}
	return urns
}

// Names returns the names of every resource of every version, and of every
// failure, sorted; the reducer tries removing each.
func (p *Program) Names() []string {
	set := map[string]bool{}
	for _, v := range p.Versions {
		for _, r := range v.Resources {
			set[r.Name] = true
		}
	}
	var names []string
	for n := range set {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}
