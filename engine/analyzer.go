package engine

import (
	"context"
	"fmt"
	"strings"

	"github.com/groundwork-iac/groundwork/resource"
)

// Analyzer is a policy pack: it looks at each resource after its inputs are
// checked, and at the whole stack at the end of an operation. A mandatory
// finding fails the resource's step (or, for the stack, the operation); an
// advisory one becomes a warning event.
type Analyzer interface {
	// Analyze inspects one resource: its type, URN, checked inputs and
	// options, as the State it is about to become.
	Analyze(ctx context.Context, r *resource.State) ([]PolicyFinding, error)
	// AnalyzeStack inspects every resource the stack holds at the end.
	AnalyzeStack(ctx context.Context, resources []*resource.State) ([]PolicyFinding, error)
}

// PolicyFinding is one thing an analyzer found.
type PolicyFinding struct {
	Policy    string
	Message   string
	URN       resource.URN
	Mandatory bool
}

// PolicyError reports mandatory findings.
type PolicyError struct {
	Findings []PolicyFinding
}

func (e *PolicyError) Error() string {
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

func (d *deployment) analyzers() []Analyzer { return d.opts.analyzers }

// analyze runs every analyzer on one checked resource.
func (d *deployment) analyze(ctx context.Context, r *resource.State) error {
	var mandatory []PolicyFinding
	for _, a := range d.analyzers() {
		findings, err := a.Analyze(ctx, r)
		if err != nil {
			return fmt.Errorf("analyzing %s: %w", r.URN, err)
		}
		mandatory = append(mandatory, d.report(r.URN, findings)...)
	}
	if len(mandatory) > 0 {
		return &PolicyError{Findings: mandatory}
	}
	return nil
}

// analyzeStack runs every analyzer on the stack as the operation leaves it.
func (d *deployment) analyzeStack(ctx context.Context) error {
	if len(d.analyzers()) == 0 {
		return nil
	}
	var resources []*resource.State
	if d.journal != nil {
		snap, err := d.journal.Snapshot()
		if err != nil {
			return err
		}
		resources = snap.Resources
	} else {
		resources = d.base.Resources
	}
	var mandatory []PolicyFinding
	for _, a := range d.analyzers() {
		findings, err := a.AnalyzeStack(ctx, resources)
		if err != nil {
			return fmt.Errorf("analyzing the stack: %w", err)
		}
		mandatory = append(mandatory, d.report("", findings)...)
	}
	if len(mandatory) > 0 {
		return &PolicyError{Findings: mandatory}
	}
	return nil
}

// report emits advisory findings as warnings and returns the mandatory ones.
func (d *deployment) report(urn resource.URN, findings []PolicyFinding) []PolicyFinding {
	var mandatory []PolicyFinding
	for _, f := range findings {
		if f.URN == "" {
			f.URN = urn
		}
		if f.Mandatory {
			mandatory = append(mandatory, f)
			continue
		}
		d.events.emit(DiagnosticEvent{URN: f.URN, Severity: SeverityWarning, Message: "policy " + f.Policy + ": " + f.Message})
	}
	return mandatory
}
