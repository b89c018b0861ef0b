// Package migrationtest checks, against Pulumi's own engine, that a stack
// moves between Pulumi and groundwork without a change: a stack made by
// Pulumi's engine (driven in process, as its lifecycle tests drive it),
// exported, imported with package migrate and updated by groundwork with
// the same program takes no step but "same"; and the other way round.
//
// It is a module of its own so that Pulumi's engine, a heavy dependency,
// stays out of groundwork's.
package migrationtest
