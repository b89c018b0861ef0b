package engine_test

import "github.com/groundwork-iac/groundwork/engine"

// typedThing is test:index:Thing as a typed resource.
type typedThing struct {
	*engine.Resource
	Size engine.Output[int]    `prop:"size"`
	ID   engine.Output[string] `prop:"id"`
}
