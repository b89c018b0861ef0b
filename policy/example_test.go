package policy_test

import (
	"context"
	"fmt"

	"github.com/groundwork-iac/groundwork/policy"
	"github.com/groundwork-iac/groundwork/resource"
)

// sizes is a policy pack: a size above 10 is refused, above 5 advised
// against.
type sizes struct{}

func (sizes) Analyze(_ context.Context, r *resource.State) ([]policy.Finding, error) {
	size := r.Inputs["size"]
	switch {
	case size.IsNumber() && size.NumberValue() > 10:
		return []policy.Finding{{Policy: "max-size", Message: "size above 10", Mandatory: true}}, nil
	case size.IsNumber() && size.NumberValue() > 5:
		return []policy.Finding{{Policy: "prefer-small", Message: "size above 5"}}, nil
	}
	return nil, nil
}

func (sizes) AnalyzeStack(context.Context, []*resource.State) ([]policy.Finding, error) {
	return nil, nil
}

func ExampleCheck() {
	warn := func(urn resource.URN, message string) { fmt.Printf("warning: %s: %s\n", urn.Name(), message) }
	for _, size := range []float64{3, 7, 12} {
		urn := resource.NewURN("dev", "site", "", "test:index:Thing", fmt.Sprint("size", size))
		r := &resource.State{URN: urn, Type: urn.Type(), Inputs: resource.PropertyMap{"size": resource.NewNumber(size)}}
		if err := policy.Check(context.Background(), []policy.Analyzer{sizes{}}, r, warn); err != nil {
			fmt.Println("refused:", err)
		}
	}
	// Output:
	// warning: size7: policy prefer-small: size above 5
	// refused: mandatory policy violated: max-size: size above 10 (urn:pulumi:dev::site::test:index:Thing::size12)
}
