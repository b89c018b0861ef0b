package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/groundwork-iac/groundwork/providers"
	"github.com/groundwork-iac/groundwork/resource"
)

// entryType is the one resource type of the kv provider: a key whose value
// is kept in a file named after the key.
const entryType = "kv:index:Entry"

// kvInputs are an Entry's inputs, as the provider sees them: plain Go
// values. A new key is a new file, so changing it replaces the entry.
type kvInputs struct {
	Key   string `prop:"key,replace"`
	Value string `prop:"value"`
}

// kvOutputs are an Entry's outputs: its inputs and the file holding the
// value. An output named like a secret input stays secret, so a secret
// value is encrypted in the state.
type kvOutputs struct {
	kvInputs
	Path string `prop:"path"`
}

// newKV returns a provider of kv entries stored as files in dir. It is a
// providers.Typed, a provider written as Go functions over the structs
// above, living in the program that deploys with it (what other tools call
// a dynamic provider). Typed checks the inputs against kvInputs (unknown
// properties, values of the wrong type, a missing input) before check sees
// them; ByType serves it under its type token.
func newKV(dir string) providers.Provider {
	kv := &kvStore{dir: dir}
	return providers.ByType(map[string]providers.Provider{
		entryType: &providers.Typed[kvInputs, kvOutputs]{
			CheckF:  kv.check,
			CreateF: kv.create,
			ReadF:   kv.read,
			UpdateF: kv.update,
			DeleteF: kv.delete,
		},
	})
}

type kvStore struct{ dir string }

// check validates the key: failures are reported per property, and the
// deployment stops before any change.
func (kv *kvStore) check(_ context.Context, req providers.TypedCheck[kvInputs]) (kvInputs, []providers.CheckFailure, error) {
	if !validKey(req.News.Key) && !unknown(req.Unknown, "key") {
		return req.News, []providers.CheckFailure{{Property: "key", Reason: fmt.Sprintf("%q is not a valid key: use letters, digits, '-', '_' and '.'", req.News.Key)}}, nil
	}
	return req.News, nil, nil
}

func unknown(keys []resource.PropertyKey, key resource.PropertyKey) bool {
	for _, k := range keys {
		if k == key {
			return true
		}
	}
	return false
}

func validKey(k string) bool {
	if k == "" || k == "." || k == ".." {
		return false
	}
	return !strings.ContainsFunc(k, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_.", r))
	})
}

func (kv *kvStore) create(_ context.Context, req providers.TypedCreate[kvInputs]) (resource.ID, kvOutputs, error) {
	path, err := kv.write(req.Inputs.Key, req.Inputs.Value)
	return resource.ID(req.Inputs.Key), kvOutputs{kvInputs: req.Inputs, Path: path}, err
}

func (kv *kvStore) update(_ context.Context, req providers.TypedUpdate[kvInputs, kvOutputs]) (kvOutputs, error) {
	path, err := kv.write(string(req.ID), req.NewInputs.Value)
	return kvOutputs{kvInputs: req.NewInputs, Path: path}, err
}

// read reports the entry as it is on disk, so that a refresh notices a
// file edited or removed behind the engine's back.
func (kv *kvStore) read(_ context.Context, req providers.TypedRead[kvInputs, kvOutputs]) (providers.TypedState[kvInputs, kvOutputs], error) {
	path := kv.path(string(req.ID))
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return providers.TypedState[kvInputs, kvOutputs]{}, nil // gone
	} else if err != nil {
		return providers.TypedState[kvInputs, kvOutputs]{}, err
	}
	in := kvInputs{Key: string(req.ID), Value: string(data)}
	return providers.TypedState[kvInputs, kvOutputs]{ID: req.ID, Inputs: in, Outputs: kvOutputs{kvInputs: in, Path: path}}, nil
}

func (kv *kvStore) delete(_ context.Context, req providers.TypedDelete[kvInputs, kvOutputs]) error {
	err := os.Remove(kv.path(string(req.ID)))
	if errors.Is(err, fs.ErrNotExist) {
		err = nil // already gone: deleting it again is done
	}
	return err
}

func (kv *kvStore) path(key string) string { return filepath.Join(kv.dir, key) }

// write stores a value and returns the file's path.
func (kv *kvStore) write(key, value string) (string, error) {
	path := kv.path(key)
	if err := os.MkdirAll(kv.dir, 0o700); err != nil {
		return "", err
	}
	return path, os.WriteFile(path, []byte(value), 0o600)
}
