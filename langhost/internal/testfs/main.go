// Command testfs is the provider plugin (pulumi-resource-testfs) that
// package langhost's tests deploy SDK programs with: a providers.Func
// served by plugin/server, keeping each resource as a file so that tests
// can see what exists between runs (plugin processes do not outlive an
// operation).
//
// Configuration: "root", the folder the files go in (required).
//
// Resource testfs:index:File — inputs "name" (the file's name under root;
// a change replaces the file) and "content"; outputs the inputs plus
// "size", the content's length. Its ID is the name.
//
// Functions: testfs:index:upper returns {"result": upper-cased "text"};
// testfs:index:read returns {"content"} of the file named "name".
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/groundwork-iac/groundwork/plugin/server"
	"github.com/groundwork-iac/groundwork/providers"
	"github.com/groundwork-iac/groundwork/resource"
)

func main() {
	server.Main(newProvider(), server.Options{Name: "testfs", Version: "1.0.0"})
}

type fs struct {
	mu   sync.Mutex
	root string
}

func newProvider() *providers.Func {
	f := &fs{}
	return &providers.Func{
		ConfigureF: f.configure,
		CheckF:     f.check,
		DiffF:      f.diff,
		CreateF:    f.create,
		ReadF:      f.read,
		UpdateF:    f.update,
		DeleteF:    f.delete,
		InvokeF:    f.invoke,
	}
}

func (f *fs) configure(_ context.Context, req providers.ConfigureRequest) (providers.ConfigureResponse, error) {
	root := req.Inputs["root"].Unwrap()
	if !root.IsString() || root.StringValue() == "" {
		return providers.ConfigureResponse{}, errors.New("testfs: the configuration needs \"root\", a folder")
	}
	f.mu.Lock()
	f.root = root.StringValue()
	f.mu.Unlock()
	return providers.ConfigureResponse{AcceptSecrets: true, AcceptResources: true, SupportsPreview: true}, nil
}

func (f *fs) path(name string) string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return filepath.Join(f.root, name)
}

func (f *fs) check(_ context.Context, req providers.CheckRequest) (providers.CheckResponse, error) {
	name := req.News["name"]
	if !name.ContainsUnknowns() && (!name.Unwrap().IsString() || name.Unwrap().StringValue() == "") {
		return providers.CheckResponse{Failures: []providers.CheckFailure{{Property: "name", Reason: "a file name is required"}}}, nil
	}
	return providers.CheckResponse{Inputs: req.News}, nil
}

func (f *fs) diff(_ context.Context, req providers.DiffRequest) (providers.DiffResponse, error) {
	d := providers.DiffInputs(req.OldInputs, req.NewInputs)
	for _, k := range d.ChangedKeys {
		if k == "name" {
			d.ReplaceKeys = append(d.ReplaceKeys, k)
			pd := d.DetailedDiff["name"]
			pd.Kind = pd.Kind.AsReplace()
			d.DetailedDiff["name"] = pd
		}
	}
	return d, nil
}

// outputs are the inputs plus the content's size (unknown while the
// content is).
func outputs(in resource.PropertyMap) resource.PropertyMap {
	out := in.Copy()
	content := in["content"]
	switch {
	case content.ContainsUnknowns():
		out["size"] = resource.NewUnknown()
	case content.IsSecret():
		out["size"] = resource.NewSecret(resource.NewNumber(float64(len(content.Unwrap().StringValue()))))
	default:
		out["size"] = resource.NewNumber(float64(len(content.StringValue())))
	}
	return out
}

func (f *fs) write(in resource.PropertyMap) error {
	name, content := in["name"].Unwrap().StringValue(), in["content"].Unwrap().StringValue()
	if strings.ContainsAny(name, `/\`) {
		return fmt.Errorf("testfs: file name %q must not name a folder", name)
	}
	return os.WriteFile(f.path(name), []byte(content), 0o644)
}

func (f *fs) create(_ context.Context, req providers.CreateRequest) (providers.CreateResponse, error) {
	if req.Preview {
		return providers.CreateResponse{Outputs: outputs(req.Inputs)}, nil
	}
	if err := f.write(req.Inputs); err != nil {
		return providers.CreateResponse{}, err
	}
	return providers.CreateResponse{ID: resource.ID(req.Inputs["name"].Unwrap().StringValue()), Outputs: outputs(req.Inputs)}, nil
}

func (f *fs) read(_ context.Context, req providers.ReadRequest) (providers.ReadResponse, error) {
	b, err := os.ReadFile(f.path(string(req.ID)))
	if errors.Is(err, os.ErrNotExist) {
		return providers.ReadResponse{}, nil
	}
	if err != nil {
		return providers.ReadResponse{}, err
	}
	in := resource.PropertyMap{"name": resource.NewString(string(req.ID)), "content": resource.NewString(string(b))}
	return providers.ReadResponse{ID: req.ID, Inputs: in, Outputs: outputs(in)}, nil
}

func (f *fs) update(_ context.Context, req providers.UpdateRequest) (providers.UpdateResponse, error) {
	if !req.Preview {
		if err := f.write(req.NewInputs); err != nil {
			return providers.UpdateResponse{}, err
		}
	}
	return providers.UpdateResponse{Outputs: outputs(req.NewInputs)}, nil
}

func (f *fs) delete(_ context.Context, req providers.DeleteRequest) (providers.DeleteResponse, error) {
	err := os.Remove(f.path(string(req.ID)))
	if errors.Is(err, os.ErrNotExist) {
		err = nil
	}
	return providers.DeleteResponse{}, err
}

func (f *fs) invoke(_ context.Context, req providers.InvokeRequest) (providers.InvokeResponse, error) {
	switch req.Token {
	case "testfs:index:upper":
		return providers.InvokeResponse{Return: resource.PropertyMap{
			"result": resource.NewString(strings.ToUpper(req.Args["text"].StringValue())),
		}}, nil
	case "testfs:index:read":
		b, err := os.ReadFile(f.path(req.Args["name"].StringValue()))
		if err != nil {
			return providers.InvokeResponse{}, err
		}
		return providers.InvokeResponse{Return: resource.PropertyMap{"content": resource.NewString(string(b))}}, nil
	}
	return providers.InvokeResponse{Failures: []providers.CheckFailure{{Reason: "no function " + req.Token}}}, nil
}
