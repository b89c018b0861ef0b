package engine

import (
	"github.com/groundwork-iac/groundwork/dag"
	"github.com/groundwork-iac/groundwork/deploy"
	"github.com/groundwork-iac/groundwork/stepgen"
)

// The errors below are the step generator's, the step walker's and the
// deployment loop's, named here so that a caller of Up, Preview, Refresh or Destroy can match them
// with errors.As importing only this package.

// ProtectedError is a delete or replace of a protected resource refused:
// the resource, what was refused, and, for a cascade of a
// delete-before-replace, the resource whose replacement asked for it.
type ProtectedError = stepgen.ProtectedError

// DuplicateURNError is a second registration of one URN in one run.
type DuplicateURNError = stepgen.DuplicateURNError

// CheckFailedError is a resource whose inputs its provider rejected, with
// the provider's reasons by property.
type CheckFailedError = stepgen.CheckFailedError

// AliasError is a resource whose aliases match more than one recorded
// resource.
type AliasError = stepgen.AliasError

// DanglingDependentError is a targeted delete refused because a resource
// outside the targets depends on the one it would delete.
type DanglingDependentError = stepgen.DanglingDependentError

// ImportMismatchError is an import whose program inputs differ from the
// resource that exists, naming the properties that differ.
type ImportMismatchError = stepgen.ImportMismatchError

// NotFoundError is a read, import or refresh that found no resource with
// the ID it was given.
type NotFoundError = stepgen.NotFoundError

// PartialError is a step whose provider failed after the resource came to
// exist: the resource is recorded with its init errors, and the provider's
// error is wrapped.
type PartialError = stepgen.PartialError

// RegistrationError is a registration the engine cannot accept, with the
// reason.
type RegistrationError = stepgen.RegistrationError

// SkippedError is a step not run because a step it depends on failed.
type SkippedError = dag.SkippedError

// UnrecordedError reports a resource a provider created whose record
// could not be written to the stack's state (a full disk, a lost lock, a
// failing store): it exists, and this error is the only place its ID is
// known. Import it (gw import, Engine.Import, or the Import resource
// option) to bring it under management again.
type UnrecordedError = deploy.UnrecordedError
