package engine

import "github.com/groundwork-iac/groundwork/state"

// ForeignStackError reports a snapshot, loaded as one project's stack,
// whose stack resource belongs to another project: the engine refuses to
// operate on it (state.ForeignStackError).
type ForeignStackError = state.ForeignStackError
