package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/groundwork-iac/groundwork/providers"
	"github.com/groundwork-iac/groundwork/resource"
)

// entryType is the one resource type of the kv provider: a key whose value
// is kept in a file named after the key.
const entryType = "kv:index:Entry"

// newKV returns a provider of kv entries stored as files in dir. It is a
// providers.Func: a provider written as plain Go functions, living in the
// program that deploys with it (what other tools call a dynamic provider).
//
// Inputs of an Entry: "key" (letters, digits, '-', '_' and '.'; changing it
// replaces the entry) and "value" (a string, possibly secret). Outputs: the
// inputs and "path", the file holding the value.
func newKV(dir string) *providers.Func {
	kv := &kvStore{dir: dir}
	return &providers.Func{
		CheckF:  kv.check,
		DiffF:   kv.diff,
		CreateF: kv.create,
		ReadF:   kv.read,
		UpdateF: kv.update,
		DeleteF: kv.delete,
	}
}

type kvStore struct{ dir string }

// check validates new inputs before anything else sees them: failures are
// reported per property, and the deployment stops before any change.
func (kv *kvStore) check(_ context.Context, req providers.CheckRequest) (providers.CheckResponse, error) {
	var failures []providers.CheckFailure
	key := req.News["key"]
	switch {
	case !key.IsString() && !key.IsUnknown():
		failures = append(failures, providers.CheckFailure{Property: "key", Reason: "key must be a string"})
	case key.IsString() && !validKey(key.StringValue()):
		failures = append(failures, providers.CheckFailure{Property: "key", Reason: fmt.Sprintf("%q is not a valid key: use letters, digits, '-', '_' and '.'", key.StringValue())})
	}
	if v := req.News["value"]; !v.IsString() && !v.IsUnknown() && !(v.IsSecret() && v.SecretElement().IsString()) {
		failures = append(failures, providers.CheckFailure{Property: "value", Reason: "value must be a string"})
	}
	return providers.CheckResponse{Inputs: req.News, Failures: failures}, nil
}

func validKey(k string) bool {
	if k == "" || k == "." || k == ".." {
		return false
	}
	return !strings.ContainsFunc(k, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_.", r))
	})
}

// diff says what changed: a new key is a new file, so it replaces the
// entry; a new value is an update in place.
func (kv *kvStore) diff(_ context.Context, req providers.DiffRequest) (providers.DiffResponse, error) {
	d := providers.DiffInputs(req.OldInputs, req.NewInputs)
	if slices.Contains(d.ChangedKeys, "key") {
		d.ReplaceKeys = []resource.PropertyKey{"key"}
		d.DetailedDiff["key"] = resource.PropertyDiff{Kind: resource.DiffUpdateReplace, InputDiff: true}
	}
	return d, nil
}

func (kv *kvStore) create(_ context.Context, req providers.CreateRequest) (providers.CreateResponse, error) {
	key := req.Inputs["key"].StringValue()
	path, err := kv.write(key, req.Inputs["value"])
	if err != nil {
		return providers.CreateResponse{}, err
	}
	return providers.CreateResponse{ID: resource.ID(key), Outputs: outputs(req.Inputs, path)}, nil
}

func (kv *kvStore) update(_ context.Context, req providers.UpdateRequest) (providers.UpdateResponse, error) {
	path, err := kv.write(string(req.ID), req.NewInputs["value"])
	if err != nil {
		return providers.UpdateResponse{}, err
	}
	return providers.UpdateResponse{Outputs: outputs(req.NewInputs, path)}, nil
}

// read reports the entry as it is on disk, so that a refresh notices a
// file edited or removed behind the engine's back.
func (kv *kvStore) read(_ context.Context, req providers.ReadRequest) (providers.ReadResponse, error) {
	data, err := os.ReadFile(kv.path(string(req.ID)))
	if errors.Is(err, fs.ErrNotExist) {
		return providers.ReadResponse{}, nil // gone
	} else if err != nil {
		return providers.ReadResponse{}, err
	}
	value := resource.NewString(string(data))
	if req.Inputs["value"].IsSecret() {
		value = resource.NewSecret(value)
	}
	inputs := resource.PropertyMap{"key": resource.NewString(string(req.ID)), "value": value}
	return providers.ReadResponse{ID: req.ID, Inputs: inputs, Outputs: outputs(inputs, kv.path(string(req.ID)))}, nil
}

func (kv *kvStore) delete(_ context.Context, req providers.DeleteRequest) (providers.DeleteResponse, error) {
	err := os.Remove(kv.path(string(req.ID)))
	if errors.Is(err, fs.ErrNotExist) {
		err = nil // already gone: deleting it again is done
	}
	return providers.DeleteResponse{}, err
}

func (kv *kvStore) path(key string) string { return filepath.Join(kv.dir, key) }

// write stores a value (unwrapped if secret: the file is the store) and
// returns the file's path.
func (kv *kvStore) write(key string, value resource.PropertyValue) (string, error) {
	if value.IsSecret() {
		value = value.SecretElement()
	}
	path := kv.path(key)
	if err := os.MkdirAll(kv.dir, 0o700); err != nil {
		return "", err
	}
	return path, os.WriteFile(path, []byte(value.StringValue()), 0o600)
}

// outputs are the inputs plus the file's path. A secret value stays
// secret in the outputs, so the state encrypts it.
func outputs(inputs resource.PropertyMap, path string) resource.PropertyMap {
	out := inputs.Copy()
	out["path"] = resource.NewString(path)
	return out
}
