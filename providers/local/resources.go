package local

import (
	"github.com/groundwork-iac/groundwork/engine"
	"github.com/groundwork-iac/groundwork/resource"
)

// The program side: typed constructors that declare the provider's
// resources in an engine program, with Go structs for their inputs and
// outputs (the property names are those the package documentation lists).
// A zero Output in the arguments leaves the input out; engine.Val gives a
// constant.

// FileArgs are the inputs of a File.
type FileArgs struct {
	// Path is where the file goes (required).
	Path engine.Output[string] `prop:"path"`
	// Content is what the file holds; set it or Source.
	Content engine.Output[string] `prop:"content"`
	// Source is an asset whose bytes the file holds; set it or Content.
	Source engine.Output[*resource.Asset] `prop:"source"`
	// Permissions is the file's mode as three octal digits (default
	// "0644").
	Permissions engine.Output[string] `prop:"permissions"`
}

// File is a local:index:File: a file with the given content.
type File struct {
	*engine.Resource
	Path        engine.Output[string]          `prop:"path"`
	Content     engine.Output[string]          `prop:"content,optional"`
	Source      engine.Output[*resource.Asset] `prop:"source,optional"`
	Permissions engine.Output[string]          `prop:"permissions"`
	// SHA256 is the hex SHA-256 of the content (secret if the content is).
	SHA256 engine.Output[string] `prop:"sha256"`
	// Size is the content's length in bytes.
	Size engine.Output[int] `prop:"size"`
}

// NewFile declares a File.
func NewFile(ctx *engine.Context, name string, args FileArgs, opts ...engine.ResourceOption) *File {
	return engine.NewResource[File](ctx, FileType, name, args, opts...)
}

// DirectoryArgs are the inputs of a Directory.
type DirectoryArgs struct {
	// Path is the directory's path (required).
	Path engine.Output[string] `prop:"path"`
	// Permissions is the directory's mode (default "0755").
	Permissions engine.Output[string] `prop:"permissions"`
}

// Directory is a local:index:Directory.
type Directory struct {
	*engine.Resource
	Path        engine.Output[string] `prop:"path"`
	Permissions engine.Output[string] `prop:"permissions"`
}

// NewDirectory declares a Directory.
func NewDirectory(ctx *engine.Context, name string, args DirectoryArgs, opts ...engine.ResourceOption) *Directory {
	return engine.NewResource[Directory](ctx, DirectoryType, name, args, opts...)
}
