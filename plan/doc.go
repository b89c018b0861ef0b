// Package plan holds saved update plans: what a preview decided, kept so
// that a later update applies exactly that and nothing else.
//
// A Plan maps each resource a preview touched to the steps it planned for
// it, in order, and to the goal the program declared: the resource options
// and how the checked inputs (and a component's outputs) were to change,
// key by key. An update given the plan refuses, with a *ViolationError
// naming the resource and the property:
//
//   - a step the plan does not allow: a resource the plan does not hold
//     may only stay the same; a planned step may be taken, or replaced by
//     a lesser one (a planned create or update may turn out a same, a
//     planned replacement an update or a same); deletes, reads and imports
//     must be exactly as planned;
//   - a resource option other than planned (provider, parent, protect,
//     dependencies, aliases, ignoreChanges and the rest);
//   - an input outside the plan: a value known when the plan was made must
//     come out exactly so, while a value that was unknown (it depended on a
//     resource the preview had not created) may become any value or none;
//     a key planned unchanged must stay so, a planned removal must happen;
//   - and, at the end, a planned step that never happened (except the
//     delete of a resource that is already gone).
//
// A plan holds for the state it was made against: it records that
// state's Fingerprint, and an operation on a stack whose state has
// another refuses the plan with a *StaleError before anything runs.
//
// Marshal and Unmarshal write and read a plan as versioned JSON, its
// property values encoded as the state records them, each secret sealed
// by the stack's secrets manager, so that a plan saved by one process can
// be applied by another. The engine produces plans with
// engine.GeneratePlan and applies them with engine.UsePlan.
package plan
