package spec

import (
	"fmt"
	"strings"
)

// Describe renders p compactly, a version a line:
//
//	v1: a{v=x rp<-b dbr protect} g:Group c{^g dep=a alias(name=old)} | exports a | fail create c
func (p *Program) Describe() string {
	var b strings.Builder
	for i, v := range p.Versions {
		fmt.Fprintf(&b, "v%d:", i+1)
		for _, r := range v.Resources {
			b.WriteString(" " + r.describe())
		}
		if len(v.Exports) > 0 {
			b.WriteString(" | exports " + strings.Join(v.Exports, " "))
		}
		for _, f := range v.Failures {
			fmt.Fprintf(&b, " | fail %s %s", f.Op, f.Name)
		}
		b.WriteByte('\n')
	}
	if p.Destroy {
		b.WriteString("destroy")
		for _, f := range p.DestroyFailures {
			fmt.Fprintf(&b, " | fail %s %s", f.Op, f.Name)
		}
		b.WriteByte('\n')
	}
	return b.String()
}

func (r *Resource) describe() string {
	var parts []string
	for _, pr := range r.Props {
		if pr.From != "" {
			parts = append(parts, pr.Key+"<-"+pr.From)
		} else {
			parts = append(parts, pr.Key+"="+pr.Value)
		}
	}
	if r.Parent != "" {
		parts = append(parts, "^"+r.Parent)
	}
	for _, d := range r.DependsOn {
		parts = append(parts, "dep="+d)
	}
	for _, x := range []struct {
		on   bool
		name string
	}{{r.Protect, "protect"}, {r.RetainOnDelete, "retain"}, {r.DeleteBeforeReplace, "dbr"}} {
		if x.on {
			parts = append(parts, x.name)
		}
	}
	if len(r.ReplaceOnChanges) > 0 {
		parts = append(parts, "roc="+strings.Join(r.ReplaceOnChanges, ","))
	}
	for _, a := range r.Aliases {
		var as []string
		if a.Name != "" {
			as = append(as, "name="+a.Name)
		}
		if a.Type != "" {
			as = append(as, "type="+strings.TrimPrefix(a.Type, "world:index:"))
		}
		if a.Parent != nil {
			as = append(as, "parent="+*a.Parent)
		}
		parts = append(parts, "alias("+strings.Join(as, ",")+")")
	}
	name := r.Name
	if r.IsComponent() {
		name += ":" + strings.TrimPrefix(r.Type, "world:index:")
	}
	return name + "{" + strings.Join(parts, " ") + "}"
}
