package local

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"

	"github.com/groundwork-iac/groundwork/providers"
	"github.com/groundwork-iac/groundwork/providers/internal/props"
	"github.com/groundwork-iac/groundwork/resource"
)

// fileKeys are the inputs of a File.
var fileKeys = []string{"path", "content", "source", "permissions"}

// fileSpec is a File's inputs, read and defaulted.
type fileSpec struct {
	path    props.Field[string]
	content props.Field[string]
	source  props.Field[*resource.Asset]
	mode    props.Field[uint32]
}

func readFileSpec(m resource.PropertyMap) (fileSpec, []providers.CheckFailure) {
	r := reader{props.NewReader(m)}
	r.Only(fileKeys...)
	s := fileSpec{
		path:    r.RequiredStr("path"),
		content: r.Str("content"),
		source:  r.Asset("source"),
		mode:    r.mode("permissions", 0o644),
	}
	if s.path.Set && !s.path.Unknown && s.path.Value == "" {
		r.Fail("path", "must not be empty")
	}
	_, hasContent, _ := r.Value("content")
	_, hasSource, _ := r.Value("source")
	switch {
	case hasContent && hasSource:
		r.Fail("source", "set either content or source, not both")
	case !hasContent && !hasSource:
		r.Fail("content", "one of content (a string) or source (an asset) is required")
	}
	return s, r.Failures()
}

// dataKnown reports whether the file's content can be known now.
func (s fileSpec) dataKnown() bool {
	if s.source.Set {
		return !s.source.Unknown
	}
	return !s.content.Unknown
}

// hash is the hex SHA-256 of the content the inputs ask for: for a source
// asset, the hash Check recorded.
func (s fileSpec) hash(ctx context.Context, src resource.Source) (string, bool) {
	if s.source.Set {
		if s.source.Unknown || s.source.Value == nil {
			return "", false
		}
		if s.source.Value.Hash != "" {
			return s.source.Value.Hash, true
		}
		h, err := s.source.Value.ComputeHash(ctx, src)
		return h, err == nil
	}
	if s.content.Unknown {
		return "", false
	}
	sum := sha256.Sum256([]byte(s.content.Value))
	return hex.EncodeToString(sum[:]), true
}

// data is the content the inputs ask for, a source asset read through
// src.
func (s fileSpec) data(ctx context.Context, src resource.Source) ([]byte, error) {
	if s.source.Set {
		b, err := s.source.Value.Bytes(ctx, src)
		if err != nil {
			return nil, fmt.Errorf("source: %w", err)
		}
		return b, nil
	}
	return []byte(s.content.Value), nil
}

// outputs are the inputs as given (with permissions normalised) plus the
// content's sha256 and size, unknown when the content is. The hash of a
// secret content is secret too.
func (s fileSpec) outputs(inputs resource.PropertyMap, data []byte, known bool) resource.PropertyMap {
	out := resource.PropertyMap{}
	for _, k := range fileKeys {
		if v, ok := inputs[resource.PropertyKey(k)]; ok {
			out[resource.PropertyKey(k)] = v
		}
	}
	if s.mode.Unknown {
		out["permissions"] = resource.NewUnknown()
	} else {
		out["permissions"] = keepSecret(inputs["permissions"], resource.NewString(formatMode(s.mode.Value)))
	}
	if !known {
		out["sha256"], out["size"] = resource.NewUnknown(), resource.NewUnknown()
		return out
	}
	sum := sha256.Sum256(data)
	like := inputs["content"]
	if s.source.Set {
		like = inputs["source"]
	}
	out["sha256"] = keepSecret(like, resource.NewString(hex.EncodeToString(sum[:])))
	out["size"] = resource.NewNumber(float64(len(data)))
	return out
}

// fileType manages local:index:File, reading source assets through src
// and taking relative paths from wd.
type fileType struct {
	src resource.Source
	wd  workDir
}

func (t fileType) Check(ctx context.Context, req providers.CheckRequest) (providers.CheckResponse, error) {
	s, failures := readFileSpec(req.News)
	if len(failures) > 0 {
		return providers.CheckResponse{Inputs: req.News, Failures: failures}, nil
	}
	out := req.News.Copy()
	if !s.mode.Unknown {
		out["permissions"] = keepSecret(req.News["permissions"], resource.NewString(formatMode(s.mode.Value)))
	}
	if s.source.Set && !s.source.Unknown {
		// Hash a copy, so Diff sees content changes and the caller's asset
		// is left alone.
		a := *s.source.Value
		if err := a.EnsureHash(ctx, t.src); err != nil {
			return providers.CheckResponse{Inputs: req.News, Failures: []providers.CheckFailure{{Property: "source", Reason: err.Error()}}}, nil
		}
		out["source"] = keepSecret(req.News["source"], resource.NewAssetValue(&a))
	}
	return providers.CheckResponse{Inputs: out}, nil
}

func (t fileType) Diff(ctx context.Context, req providers.DiffRequest) (providers.DiffResponse, error) {
	olds := req.OldInputs
	if len(olds) == 0 {
		olds = req.OldOutputs
	}
	res := props.Diff(olds, req.NewInputs, fileKeys, "path")
	s, _ := readFileSpec(req.NewInputs)
	pathDiff(&res, req.ID, s.path, t.wd)
	return res, nil
}

// pathDiff corrects the verdict on "path", which compares the path strings
// the user wrote: what forces a replacement is a different file, i.e. an
// absolute path other than the ID. "./a" after "a" is an update that
// changes nothing on disk, while the same relative path seen from another
// working directory is a replacement.
func pathDiff(res *resource.DiffResult, id resource.ID, path props.Field[string], wd workDir) {
	if id == "" || path.Unknown || !path.Set {
		return
	}
	abs, err := wd.abs(path.Value)
	same := err == nil && abs == string(id)
	pd, changed := res.DetailedDiff["path"]
	switch {
	case changed && same:
		pd.Kind = resource.DiffUpdate
		res.DetailedDiff["path"] = pd
		res.ReplaceKeys = slices.DeleteFunc(res.ReplaceKeys, func(k resource.PropertyKey) bool { return k == "path" })
	case !changed && !same:
		if res.DetailedDiff == nil {
			res.DetailedDiff = map[string]resource.PropertyDiff{}
		}
		res.DetailedDiff["path"] = resource.PropertyDiff{Kind: resource.DiffUpdateReplace}
		res.Changes = resource.DiffSome
		res.ReplaceKeys = append(res.ReplaceKeys, "path")
		res.ChangedKeys = append(res.ChangedKeys, "path")
		slices.Sort(res.ChangedKeys)
	}
}

func (t fileType) Create(ctx context.Context, req providers.CreateRequest) (providers.CreateResponse, error) {
	s, failures := readFileSpec(req.Inputs)
	if len(failures) > 0 {
		return providers.CreateResponse{}, props.FailuresError(req.URN, failures)
	}
	if req.Preview {
		outs, err := s.preview(ctx, t.src, req.Inputs)
		return providers.CreateResponse{Outputs: outs}, err
	}
	if req.Inputs.ContainsUnknowns() {
		return providers.CreateResponse{}, props.ErrUnknownInputs
	}
	abs, err := t.wd.abs(s.path.Value)
	if err != nil {
		return providers.CreateResponse{}, err
	}
	data, err := s.data(ctx, t.src)
	if err != nil {
		return providers.CreateResponse{}, err
	}
	if err := writeFile(abs, data, fs.FileMode(s.mode.Value), false); err != nil {
		return providers.CreateResponse{}, err
	}
	return providers.CreateResponse{ID: resource.ID(abs), Outputs: s.outputs(req.Inputs, data, true)}, nil
}

// preview computes the outputs without touching the file.
func (s fileSpec) preview(ctx context.Context, src resource.Source, inputs resource.PropertyMap) (resource.PropertyMap, error) {
	if !s.dataKnown() {
		return s.outputs(inputs, nil, false), nil
	}
	data, err := s.data(ctx, src)
	if err != nil {
		return nil, err
	}
	return s.outputs(inputs, data, true), nil
}

func (t fileType) Update(ctx context.Context, req providers.UpdateRequest) (providers.UpdateResponse, error) {
	s, failures := readFileSpec(req.NewInputs)
	if len(failures) > 0 {
		return providers.UpdateResponse{}, props.FailuresError(req.URN, failures)
	}
	if req.Preview {
		outs, err := s.preview(ctx, t.src, req.NewInputs)
		return providers.UpdateResponse{Outputs: outs}, err
	}
	if req.NewInputs.ContainsUnknowns() {
		return providers.UpdateResponse{}, props.ErrUnknownInputs
	}
	abs, err := t.wd.abs(s.path.Value)
	if err != nil {
		return providers.UpdateResponse{}, err
	}
	if abs != string(req.ID) {
		return providers.UpdateResponse{}, fmt.Errorf("update %s: the path moved from %s to %s, which needs a replacement, not an update", req.URN, req.ID, abs)
	}
	data, err := s.data(ctx, t.src)
	if err != nil {
		return providers.UpdateResponse{}, err
	}
	if err := writeFile(abs, data, fs.FileMode(s.mode.Value), true); err != nil {
		return providers.UpdateResponse{}, err
	}
	return providers.UpdateResponse{Outputs: s.outputs(req.NewInputs, data, true)}, nil
}

func (t fileType) Delete(ctx context.Context, req providers.DeleteRequest) (providers.DeleteResponse, error) {
	path, err := t.wd.abs(string(req.ID))
	if err != nil {
		return providers.DeleteResponse{}, err
	}
	info, err := os.Lstat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return providers.DeleteResponse{}, nil // already gone
	case err != nil:
		return providers.DeleteResponse{}, err
	case info.IsDir():
		return providers.DeleteResponse{}, fmt.Errorf("delete %s: %s is now a directory, not the file that was created; remove it by hand", req.URN, req.ID)
	}
	if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return providers.DeleteResponse{}, err
	}
	return providers.DeleteResponse{}, nil
}

// Read reads the file at the ID. For a refresh (recorded inputs given) it
// keeps the recorded inputs but replaces the content and permissions with
// what is on disk if they were changed by hand, so that the next update
// writes the desired ones back. For an import (no recorded inputs) the
// inputs are the path, the content as a string and the permissions; a
// relative ID is taken from the working folder.
func (t fileType) Read(ctx context.Context, req providers.ReadRequest) (providers.ReadResponse, error) {
	path, err := t.wd.abs(string(req.ID))
	if err != nil {
		return providers.ReadResponse{}, fmt.Errorf("read %s: %w", req.URN, err)
	}
	info, err := os.Stat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return providers.ReadResponse{}, nil
	case err != nil:
		return providers.ReadResponse{}, fmt.Errorf("read %s: %w", req.URN, err)
	case info.IsDir():
		return providers.ReadResponse{}, fmt.Errorf("read %s: %s is a directory, not a file", req.URN, path)
	}
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return providers.ReadResponse{}, nil
	} else if err != nil {
		return providers.ReadResponse{}, fmt.Errorf("read %s: %w", req.URN, err)
	}
	mode := formatMode(uint32(info.Mode().Perm()))
	inputs := req.Inputs.Copy()
	if len(inputs) == 0 {
		inputs = resource.PropertyMap{"path": resource.NewString(string(req.ID)), "content": resource.NewString(string(data))}
	}
	s, _ := readFileSpec(inputs)
	sum := sha256.Sum256(data)
	if old, ok := s.hash(ctx, t.src); !ok || old != hex.EncodeToString(sum[:]) {
		if s.source.Set {
			inputs["source"] = keepSecret(inputs["source"], resource.NewAssetValue(resource.NewTextAsset(string(data))))
		} else {
			inputs["content"] = keepSecret(inputs["content"], resource.NewString(string(data)))
		}
	}
	inputs["permissions"] = keepSecret(inputs["permissions"], resource.NewString(mode))
	s, failures := readFileSpec(inputs)
	if len(failures) > 0 {
		return providers.ReadResponse{}, props.FailuresError(req.URN, failures)
	}
	return providers.ReadResponse{ID: req.ID, Inputs: inputs, Outputs: s.outputs(inputs, data, true)}, nil
}
