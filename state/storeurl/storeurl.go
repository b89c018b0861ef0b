// Package storeurl opens a state.Store from a URL, so that a tool can take
// where to keep its stacks as one setting:
//
//	file:///var/lib/deploy       a file store in that folder (file://DIR takes
//	.groundwork                  a relative DIR too; a bare path is the same)
//	postgres://user@host/db?...  the PostgreSQL store (package postgres,
//	                             whose Open documents the parameters)
//	memory://                    an empty memory store, for tests
//
// It lives apart from package state so that state itself depends on no
// database driver: only a program that imports storeurl (or
// state/postgres) links one in.
package storeurl

import (
	"context"
	"fmt"
	"strings"

	"github.com/groundwork-iac/groundwork/state"
	"github.com/groundwork-iac/groundwork/state/filestore"
	"github.com/groundwork-iac/groundwork/state/memstore"
	"github.com/groundwork-iac/groundwork/state/postgres"
)

// Store is a store opened from a URL. Close releases what it holds (the
// PostgreSQL store's connections and lease renewals; nothing for the
// others); the stacks' locks should be released first. Stores whose locks
// can be broken also implement state.LockBreaker.
type Store interface {
	state.Store
	Close()
}

// Open opens the store url names, with opts (secrets, sync policy,
// journal limit). A file store's folder is created if missing; a
// PostgreSQL store's tables too.
func Open(ctx context.Context, url string, opts ...state.Option) (Store, error) {
	scheme, rest, found := strings.Cut(url, "://")
	if !found {
		scheme, rest = "file", url
	}
	switch strings.ToLower(scheme) {
	case "file":
		if rest == "" {
			return nil, fmt.Errorf("state store URL %q names no folder", url)
		}
		s, err := filestore.New(rest, opts...)
		if err != nil {
			return nil, err
		}
		return fileStore{s}, nil
	case "memory":
		if rest != "" {
			return nil, fmt.Errorf("state store URL %q: a memory store takes no path; use memory://", url)
		}
		return memoryStore{memstore.New(opts...)}, nil
	case "postgres", "postgresql":
		return postgres.Open(ctx, url, opts...)
	}
	return nil, fmt.Errorf("state store URL %q: unknown scheme %q; use file://DIR (or a bare path), postgres://... or memory://", url, scheme)
}

type fileStore struct{ *filestore.Store }

func (fileStore) Close() {}

type memoryStore struct{ *memstore.Store }

func (memoryStore) Close() {}
