// Package policy is the interface of policy packs: an Analyzer looks at
// each resource of an operation once its provider has checked its inputs,
// and at the whole stack as the operation leaves it. What it finds is
// advisory (a warning) or mandatory: a mandatory finding fails the
// resource's step, or, for the stack, the operation, with a
// *ViolationError.
//
// A policy pack implements Analyzer and imports only this package and
// resource; an operation takes its packs with engine.Analyzers and runs
// them with Check and CheckStack.
package policy

import (
	"context"
	"fmt"
	"strings"

	"github.com/groundwork-iac/groundwork/resource"
)

// Analyzer is a policy pack: it looks at each resource after its inputs are
// checked, and at the whole stack at the end of an operation. A mandatory
// finding fails the resource's step (or, for the stack, the operation); an
// advisory one becomes a warning.
type Analyzer interface {
	// Analyze inspects one resource: its type, URN, checked inputs and
	// options, as the State it is about to become.
	Analyze(ctx context.Context, r *resource.State) ([]Finding, error)
	// AnalyzeStack inspects every resource the stack holds at the end.
	AnalyzeStack(ctx context.Context, resources []*resource.State) ([]Finding, error)
}

// Finding is one thing an analyzer found. URN names the resource it is
// about; left empty, it is the resource analyzed (none for the stack).
type Finding struct {
	Policy    string
	Message   string
	URN       resource.URN
	Mandatory bool
}

// ViolationError reports mandatory findings.
type ViolationError struct {
	Findings []Finding
}

// Error lists the findings, each with its policy and resource.
func (e *ViolationError) Error() string {
	parts := make([]string, len(e.Findings))
	for i, f := range e.Findings {
		where := ""
		if f.URN != "" {
			where = " (" + string(f.URN) + ")"
		}
		parts[i] = fmt.Sprintf("%s: %s%s", f.Policy, f.Message, where)
	}
	return "mandatory policy violated: " + strings.Join(parts, "; ")
}

// Warn takes an advisory finding, as a warning about the resource urn.
type Warn func(urn resource.URN, message string)

// Check runs every analyzer on one checked resource, in order: advisory
// findings go to warn; mandatory ones fail the resource with a
// *ViolationError; an analyzer that fails fails it too, naming it.
func Check(ctx context.Context, analyzers []Analyzer, r *resource.State, warn Warn) error {
	var mandatory []Finding
	for _, a := range analyzers {
		findings, err := a.Analyze(ctx, r)
		if err != nil {
			return fmt.Errorf("analyzing %s: %w", r.URN, err)
		}
		mandatory = append(mandatory, split(r.URN, findings, warn)...)
	}
	if len(mandatory) > 0 {
		return &ViolationError{Findings: mandatory}
	}
	return nil
}

// CheckStack runs every analyzer on the resources of a stack as an
// operation leaves it, as Check does on one resource.
func CheckStack(ctx context.Context, analyzers []Analyzer, resources []*resource.State, warn Warn) error {
	var mandatory []Finding
	for _, a := range analyzers {
		findings, err := a.AnalyzeStack(ctx, resources)
		if err != nil {
			return fmt.Errorf("analyzing the stack: %w", err)
		}
		mandatory = append(mandatory, split("", findings, warn)...)
	}
	if len(mandatory) > 0 {
		return &ViolationError{Findings: mandatory}
	}
	return nil
}

// split hands the advisory findings to warn and returns the mandatory
// ones; a finding that names no resource is about urn.
func split(urn resource.URN, findings []Finding, warn Warn) []Finding {
	var mandatory []Finding
	for _, f := range findings {
		if f.URN == "" {
			f.URN = urn
		}
		if f.Mandatory {
			mandatory = append(mandatory, f)
			continue
		}
		warn(f.URN, "policy "+f.Policy+": "+f.Message)
	}
	return mandatory
}
