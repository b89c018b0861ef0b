package local

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/groundwork-iac/groundwork/providers"
	"github.com/groundwork-iac/groundwork/providers/internal/props"
	"github.com/groundwork-iac/groundwork/resource"
)

// dirKeys are the inputs of a Directory.
var dirKeys = []string{"path", "permissions"}

type dirSpec struct {
	path props.Field[string]
	mode props.Field[uint32]
}

func readDirSpec(m resource.PropertyMap) (dirSpec, []providers.CheckFailure) {
	r := reader{props.NewReader(m)}
	r.Only(dirKeys...)
	s := dirSpec{path: r.RequiredStr("path"), mode: r.mode("permissions", 0o755)}
	if s.path.Set && !s.path.Unknown && s.path.Value == "" {
		r.Fail("path", "must not be empty")
	}
	return s, r.Failures()
}

// outputs are the path as given and the normalised permissions.
func (s dirSpec) outputs(inputs resource.PropertyMap) resource.PropertyMap {
	out := resource.PropertyMap{"path": inputs["path"]}
	if s.mode.Unknown {
		out["permissions"] = resource.NewUnknown()
	} else {
		out["permissions"] = keepSecret(inputs["permissions"], resource.NewString(formatMode(s.mode.Value)))
	}
	return out
}

// dirType manages local:index:Directory, taking relative paths from wd.
type dirType struct{ wd workDir }

func (dirType) Check(ctx context.Context, req providers.CheckRequest) (providers.CheckResponse, error) {
	s, failures := readDirSpec(req.News)
	if len(failures) > 0 {
		return providers.CheckResponse{Inputs: req.News, Failures: failures}, nil
	}
	out := req.News.Copy()
	if !s.mode.Unknown {
		out["permissions"] = keepSecret(req.News["permissions"], resource.NewString(formatMode(s.mode.Value)))
	}
	return providers.CheckResponse{Inputs: out}, nil
}

func (t dirType) Diff(ctx context.Context, req providers.DiffRequest) (providers.DiffResponse, error) {
	olds := req.OldInputs
	if len(olds) == 0 {
		olds = req.OldOutputs
	}
	res := props.Diff(olds, req.NewInputs, dirKeys, "path")
	s, _ := readDirSpec(req.NewInputs)
	pathDiff(&res, req.ID, s.path, t.wd)
	return res, nil
}

func (t dirType) Create(ctx context.Context, req providers.CreateRequest) (providers.CreateResponse, error) {
	s, failures := readDirSpec(req.Inputs)
	if len(failures) > 0 {
		return providers.CreateResponse{}, props.FailuresError(req.URN, failures)
	}
	if req.Preview {
		return providers.CreateResponse{Outputs: s.outputs(req.Inputs)}, nil
	}
	if req.Inputs.ContainsUnknowns() {
		return providers.CreateResponse{}, props.ErrUnknownInputs
	}
	abs, err := makeDir(s, t.wd)
	if err != nil {
		return providers.CreateResponse{}, err
	}
	return providers.CreateResponse{ID: resource.ID(abs), Outputs: s.outputs(req.Inputs)}, nil
}

// makeDir creates the directory and its missing parents, and gives the
// directory (not the parents, which get 0755) exactly the permissions asked
// for. An existing directory is kept and adopted.
func makeDir(s dirSpec, wd workDir) (string, error) {
	abs, err := wd.abs(s.path.Value)
	if err != nil {
		return "", err
	}
	if info, err := os.Stat(abs); err == nil && !info.IsDir() {
		return "", fmt.Errorf("%s exists and is not a directory", abs)
	}
	if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
		return "", err
	}
	if err := os.Mkdir(abs, fs.FileMode(s.mode.Value)); err != nil && !errors.Is(err, fs.ErrExist) {
		return "", err
	}
	if err := os.Chmod(abs, fs.FileMode(s.mode.Value)); err != nil {
		return "", err
	}
	return abs, nil
}

func (t dirType) Update(ctx context.Context, req providers.UpdateRequest) (providers.UpdateResponse, error) {
	s, failures := readDirSpec(req.NewInputs)
	if len(failures) > 0 {
		return providers.UpdateResponse{}, props.FailuresError(req.URN, failures)
	}
	if req.Preview {
		return providers.UpdateResponse{Outputs: s.outputs(req.NewInputs)}, nil
	}
	if req.NewInputs.ContainsUnknowns() {
		return providers.UpdateResponse{}, props.ErrUnknownInputs
	}
	if abs, err := t.wd.abs(s.path.Value); err == nil && abs != string(req.ID) {
		return providers.UpdateResponse{}, fmt.Errorf("update %s: the path moved from %s to %s, which needs a replacement, not an update", req.URN, req.ID, abs)
	}
	if _, err := makeDir(s, t.wd); err != nil {
		return providers.UpdateResponse{}, err
	}
	return providers.UpdateResponse{Outputs: s.outputs(req.NewInputs)}, nil
}

// Delete removes the directory only if it is empty: its contents are not
// groundwork's to remove.
func (t dirType) Delete(ctx context.Context, req providers.DeleteRequest) (providers.DeleteResponse, error) {
	path, err := t.wd.abs(string(req.ID))
	if err != nil {
		return providers.DeleteResponse{}, err
	}
	err = os.Remove(path)
	if err == nil || errors.Is(err, fs.ErrNotExist) {
		return providers.DeleteResponse{}, nil
	}
	entries, rerr := os.ReadDir(path)
	if rerr != nil || len(entries) == 0 {
		return providers.DeleteResponse{}, err
	}
	names := make([]string, 0, 3)
	for _, e := range entries[:min(3, len(entries))] {
		names = append(names, e.Name())
	}
	more := ""
	if len(entries) > len(names) {
		more = fmt.Sprintf(" and %d more", len(entries)-len(names))
	}
	return providers.DeleteResponse{}, fmt.Errorf("delete %s: directory %s is not empty (it holds %s%s); groundwork removes only empty directories, so delete what is in it first", req.URN, path, strings.Join(names, ", "), more)
}

// Read reports the directory's permissions, or that it is gone; a
// relative ID is taken from the working folder.
func (t dirType) Read(ctx context.Context, req providers.ReadRequest) (providers.ReadResponse, error) {
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
	case !info.IsDir():
		return providers.ReadResponse{}, fmt.Errorf("read %s: %s is no longer a directory", req.URN, path)
	}
	inputs := req.Inputs.Copy()
	if len(inputs) == 0 {
		inputs = resource.PropertyMap{"path": resource.NewString(string(req.ID))}
	}
	mode := formatMode(uint32(info.Mode().Perm()))
	inputs["permissions"] = keepSecret(inputs["permissions"], resource.NewString(mode))
	s, failures := readDirSpec(inputs)
	if len(failures) > 0 {
		return providers.ReadResponse{}, props.FailuresError(req.URN, failures)
	}
	return providers.ReadResponse{ID: req.ID, Inputs: inputs, Outputs: s.outputs(inputs)}, nil
}
