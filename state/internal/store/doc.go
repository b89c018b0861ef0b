// Package store is the one implementation of the state contracts (package
// state): a Store over a byte storage of named files per stack. It holds
// the journal with its group commit, compaction and crash replay, locking,
// and the secrets managers, and writes and reads bytes through package
// format. The storages differ only in where the bytes go: files
// (FileStore), memory (MemoryStore) or a state.Backend (NewStore). Users
// reach it through packages filestore, memstore and backendstore.
package store
