// Package format is the on-disk format of the state (FORMAT.md in package
// state's folder): snapshots, journal entries and property values as JSON,
// written by appending to one buffer and read by a decoder whose strings
// share the file's text; the framing of journal records; and the MACs
// that authenticate both. It does no I/O and keeps no state between calls
// beyond what a caller passes in (EncodedStates, RecordChain).
package format
