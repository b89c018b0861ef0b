// Package local is a built-in provider of files and directories on the
// machine that runs the deployment. It takes no configuration from the
// program; the host may choose what reads a File's source asset
// (WithSource). Register it in a providers.Registry with Register, or use
// New directly. In a program, declare its resources with the typed
// constructors NewFile and NewDirectory, whose arguments and outputs are Go
// structs naming the properties below.
//
// # local:index:File
//
// A file with the given content and permissions.
//
// Inputs:
//
//   - path (string, required): where the file goes. Relative paths are
//     taken from the provider's working folder (WorkDir; without it, this
//     process's), as Pulumi's provider takes them from the program's
//     folder; the resource's ID is the absolute path. Changing it to another file replaces the resource: the new file
//     is written, then the old one is deleted.
//   - content (string) or source (asset): what the file holds; exactly one
//     is required. A source asset's relative path is taken from the
//     working folder too. Changing it rewrites the file in place.
//   - permissions (string, default "0644"): the file's mode as three octal
//     digits, optionally after a 0. It is applied exactly (the umask does
//     not apply). Changing it updates the file in place.
//
// Outputs: the inputs, with permissions written as four digits, plus
// sha256 (the hex SHA-256 of the content; secret if the content is) and
// size (its length in bytes).
//
// The file is written atomically (a temporary file, then a rename) and
// missing parent directories are created with 0755 (they are left in place
// on delete). Create refuses to overwrite a file that is already at the
// path, since that file was not made by the deployment and would be lost;
// remove it, or import it with its path as the ID. Read notices a file that
// was edited or chmod-ed by hand — it reports the content and permissions
// found on disk, so the next update writes the desired ones back — and one
// that was removed (it reports the resource gone). An imported file's
// inputs are its path, its content as a string and its permissions.
//
// # local:index:Directory
//
// A directory.
//
// Inputs:
//
//   - path (string, required): as for File; changing it to another
//     directory replaces the resource.
//   - permissions (string, default "0755"): the directory's mode; changing
//     it updates the directory in place.
//
// Outputs: the inputs, with permissions written as four digits.
//
// Create makes the directory and any missing parents; a directory that
// already exists is adopted. Delete removes the directory only if it is
// empty, and otherwise fails with an error that names it and what it still
// holds: its contents were not necessarily put there by the deployment.
package local
