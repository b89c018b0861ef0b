// Package store is the one implementation of the state contracts (package
// state): a Store over a state.Backend, which keeps a stack's snapshot,
// journal and lock as bytes. The Store does everything else: loading
// (with crash replay) and saving through package format, locking policy
// (breaking the locks of processes that are gone, reporting lapsed
// leases), the secrets managers, and opening journals (package journal)
// that write through the backend under the lock it holds. The backends
// differ only in where the bytes go: files (package filestore), memory
// (package memstore) or a backend of the caller's (package backendstore),
// such as PostgreSQL (package postgres).
package store
