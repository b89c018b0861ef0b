package local

import (
	"github.com/groundwork-iac/groundwork/program"
	"github.com/groundwork-iac/groundwork/resource"
)

// The program side: typed constructors that declare the provider's
// resources in an in-process program (package program), with Go structs
// for their inputs and outputs (the property names are those the package
// documentation lists). A zero Output in the arguments leaves the input
// out; program.Val gives a constant.

// FileArgs are the inputs of a File.
type FileArgs struct {
	// Path is where the file goes (required).
	Path program.Output[string] `prop:"path"`
	// Content is what the file holds; set it or Source.
	Content program.Output[string] `prop:"content"`
	// Source is an asset whose bytes the file holds; set it or Content.
	Source program.Output[*resource.Asset] `prop:"source"`
	// Permissions is the file's mode as three octal digits (default
	// "0644").
	Permissions program.Output[string] `prop:"permissions"`
}

// File is a local:index:File: a file with the given content.
type File struct {
	*program.Resource
	Path        program.Output[string]          `prop:"path"`
	Content     program.Output[string]          `prop:"content,optional"`
	Source      program.Output[*resource.Asset] `prop:"source,optional"`
	Permissions program.Output[string]          `prop:"permissions"`
	// SHA256 is the hex SHA-256 of the content (secret if the content is).
	SHA256 program.Output[string] `prop:"sha256"`
	// Size is the content's length in bytes.
	Size program.Output[int] `prop:"size"`
}

// NewFile declares a File.
func NewFile(ctx *program.Context, name string, args FileArgs, opts ...program.ResourceOption) *File {
	return program.NewResource[File](ctx, FileType, name, args, opts...)
}

// DirectoryArgs are the inputs of a Directory.
type DirectoryArgs struct {
	// Path is the directory's path (required).
	Path program.Output[string] `prop:"path"`
	// Permissions is the directory's mode (default "0755").
	Permissions program.Output[string] `prop:"permissions"`
}

// Directory is a local:index:Directory.
type Directory struct {
	*program.Resource
	Path        program.Output[string] `prop:"path"`
	Permissions program.Output[string] `prop:"permissions"`
}

// NewDirectory declares a Directory.
func NewDirectory(ctx *program.Context, name string, args DirectoryArgs, opts ...program.ResourceOption) *Directory {
	return program.NewResource[Directory](ctx, DirectoryType, name, args, opts...)
}
