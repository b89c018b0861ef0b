// Command gpp is a provider plugin built with pulumi-go-provider's infer
// package, for the interop suite: package "gpp", one resource
// ("gpp:index:File", a file under the provider's configured root) and a
// secret configuration key. Every write it makes to the world is appended,
// one line each, to "writes.log" under the root, so that tests can count
// them.
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/pulumi/pulumi-go-provider/infer"
)

func main() {
	p, err := infer.NewProviderBuilder().
		WithResources(infer.Resource(File{})).
		WithConfig(infer.Config(&Config{})).
		Build()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	if err := p.Run(context.Background(), "gpp", "1.0.0"); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

// Config is the provider's configuration.
type Config struct {
	Root  string `pulumi:"root"`
	Token string `pulumi:"token" provider:"secret"`
}

// Configure refuses a configuration without a token, so that a test sees
// the secret reached the provider.
func (c *Config) Configure(context.Context) error {
	if c.Token == "" {
		return errors.New("gpp: a token is required")
	}
	return nil
}

// File is a file under the provider's root.
type File struct{}

// FileArgs are a File's inputs; changing the name replaces the file.
type FileArgs struct {
	Name    string `pulumi:"name" provider:"replaceOnChanges"`
	Content string `pulumi:"content"`
}

// FileState is a File's outputs.
type FileState struct {
	FileArgs
	Size int `pulumi:"size"`
}

func write(ctx context.Context, op, name, content string) error {
	root := infer.GetConfig[Config](ctx).Root
	if content != "\x00delete" {
		if err := os.WriteFile(filepath.Join(root, name), []byte(content), 0o644); err != nil {
			return err
		}
	} else if err := os.Remove(filepath.Join(root, name)); err != nil && !os.IsNotExist(err) {
		return err
	}
	f, err := os.OpenFile(filepath.Join(root, "writes.log"), os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(f, "%s %s\n", op, name)
	return errors.Join(err, f.Close())
}

// Create writes the file.
func (File) Create(ctx context.Context, req infer.CreateRequest[FileArgs]) (infer.CreateResponse[FileState], error) {
	state := FileState{FileArgs: req.Inputs, Size: len(req.Inputs.Content)}
	if req.DryRun {
		return infer.CreateResponse[FileState]{ID: req.Inputs.Name, Output: state}, nil
	}
	err := write(ctx, "create", req.Inputs.Name, req.Inputs.Content)
	return infer.CreateResponse[FileState]{ID: req.Inputs.Name, Output: state}, err
}

// Update rewrites the file.
func (File) Update(ctx context.Context, req infer.UpdateRequest[FileArgs, FileState]) (infer.UpdateResponse[FileState], error) {
	state := FileState{FileArgs: req.Inputs, Size: len(req.Inputs.Content)}
	if req.DryRun {
		return infer.UpdateResponse[FileState]{Output: state}, nil
	}
	return infer.UpdateResponse[FileState]{Output: state}, write(ctx, "update", req.Inputs.Name, req.Inputs.Content)
}

// Delete removes the file.
func (File) Delete(ctx context.Context, req infer.DeleteRequest[FileState]) (infer.DeleteResponse, error) {
	return infer.DeleteResponse{}, write(ctx, "delete", req.State.Name, "\x00delete")
}
