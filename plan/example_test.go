package plan_test

import (
	"fmt"

	"github.com/groundwork-iac/groundwork/plan"
	"github.com/groundwork-iac/groundwork/resource"
)

// A plan made when a resource's size was to grow from 1 to 2, and its
// name depended on a resource not created yet, refuses a size of 3 and
// accepts whatever the name turned out to be.
func ExampleGoal_Check() {
	urn := resource.URN("urn:pulumi:dev::site::test:index:Disk::data")
	recorded := resource.PropertyMap{"size": resource.NewNumber(1), "name": resource.NewString("data")}
	planned := &plan.Goal{Custom: true, Inputs: plan.NewDiff(recorded, resource.PropertyMap{
		"size": resource.NewNumber(2), "name": resource.NewUnknown(),
	})}

	err := planned.Check(urn, &plan.Goal{Custom: true}, recorded, resource.PropertyMap{
		"size": resource.NewNumber(3), "name": resource.NewString("data-7f3a"),
	})
	fmt.Println(err)
	// Output:
	// urn:pulumi:dev::site::test:index:Disk::data does not keep to the plan: input "size" was planned to change to 2 but changes to 3; preview again to make a new plan
}
