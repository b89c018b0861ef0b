// Package program is the API in-process programs are written against:
// the Context a program function receives, the handles of the resources
// it declares (Resource, and typed resources made with NewResource), the
// values that become known during the operation (Output[T], Val, Apply,
// All, Sprintf, Secret), resource options, resource hooks and stack
// references. Package engine runs such programs (engine.Up,
// engine.Preview), and the built-in providers' typed resources
// (providers/local, random, command) are declared through it.
//
// A Context reaches the rest of the engine through the operation's
// monitor (package monitor), where every registration, read, invoke and
// call goes, and through Host, the few other services it needs of the
// operation (hooks, diagnostics, secret masking, parameterization),
// which package engine implements. A Runner is the host's side of one
// program's run.
//
// # Programs
//
// A program is a function of a *Context. It declares resources, each of
// which the engine creates, updates, replaces or leaves alone to match
// the declaration, and deletes when a later run no longer declares it.
// A declaration returns its handle at once; the registration proceeds in
// the background once everything it depends on has finished, so
// independent resources deploy in parallel. The program's function may
// return before its registrations finish; the engine waits for all of
// them.
//
// Typed resources are declared with a constructor such as local.NewFile,
// or with NewResource for any type: the inputs are a struct (the
// arguments), the outputs the fields of the returned struct:
//
//	pet := random.NewPet(ctx, "mascot", random.PetArgs{Length: program.Val(2)})
//	page := local.NewFile(ctx, "index", local.FileArgs{
//		Path:    program.Val("./site/index.html"),
//		Content: program.Sprintf("<h1>Hello from %s!</h1>", pet.Result),
//	})
//	ctx.Export("size", page.Size)
//
// Context.Register declares one with untyped inputs (Props) instead, and
// OutputOf reads any of its outputs typed.
//
// An Output[T] is a value known during the operation: a resource's
// output once its step has completed, a constant (Val), or a function of
// other outputs (Apply, ApplyErr, Apply2, Apply3, All, Sprintf). Passed
// as an input, it makes the registration wait for it and record a
// dependency on every resource the value came from, so that the resource
// is created after them and deleted before them. A secret stays secret
// through every function applied to it (Secret marks one). In a preview
// a value that depends on a resource not created yet is unknown: the
// functions are not called, and it flows onward as unknown. Output.Await
// gives the value to the program's function.
//
// Context.StackReference reads the outputs of another stack of the store,
// and Context.Get rehydrates a resource of the operation by its URN, both
// through the "pulumi" package every deployment serves itself (package
// providers/pulumi). Resource hooks (Hook, bound with ResourceHooks) run
// before and after a resource's creates, updates and deletes; the state
// records them by name, so that a resource's delete runs them after the
// program has stopped declaring it. An operation's HookRunner knows its
// hooks by name and runs them around the steps of the resources that
// bind them; the deployment loop applies such steps through it.
//
// # The program's contract
//
//   - Arguments are checked when the resource is declared: an empty name
//     or one containing "::", a custom type without a package, a nil
//     handle in an option, a zero Output among the inputs, inputs that
//     are not a struct or Props. A bad one fails the registration at once
//     with an *ArgumentError naming the resource and the argument.
//   - Using an output the provider did not return is a
//     *MissingOutputError naming the resource and the key (a typo is
//     never a silent null); a value that does not decode into its Go type
//     is a *resource.DecodeError naming them too. The registration that
//     takes it fails, and so does the operation.
//   - A panic in the program's function, an Apply function or a transform
//     is a *PanicError of the operation, naming whose code panicked and
//     where.
//   - A function given to Apply, and a transform, runs on a goroutine of
//     the engine's and must not wait for other outputs: such a wait is
//     refused with an error (a *CycleError naming the resources, when what
//     it waits for is waiting for that very function). Combine outputs
//     with Apply2, Apply3, All or Sprintf instead.
//   - Registrations are made before the program's function returns (or
//     from Apply functions); one made after fails.
//   - Every wait of the program API watches the operation's context.
//
// Package engine keeps every exported name of this package as an alias
// or a forwarder, deprecated in favour of this package's, and the
// program API's error messages name its functions that way (engine.All,
// engine.Output), which both spellings reach.
package program
