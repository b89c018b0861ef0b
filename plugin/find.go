package plugin

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"

	"github.com/groundwork-iac/groundwork/providers"
)

// BinaryName returns the file name of the plugin binary of a package:
// "pulumi-resource-<pkg>" (with ".exe" on Windows).
func BinaryName(pkg string) string {
	name := "pulumi-resource-" + pkg
	if runtime.GOOS == "windows" {
		name += ".exe"
	}
	return name
}

// NotFoundError says that no plugin binary for a package was found.
type NotFoundError struct {
	Package string
	// Version is the version wanted ("" for any).
	Version string
	// Searched lists the folders searched, PATH last.
	Searched []string
	// Rejected lists binaries found at versions that do not qualify.
	Rejected []string
	// PluginCache is Pulumi's plugin cache when it was searched (see
	// Options.PluginCache): `pulumi plugin install` puts plugins there.
	PluginCache string
}

// Error names the binary, the version wanted and where it was looked for,
// and says how to install it (InstallHint).
func (e *NotFoundError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "no plugin binary %s", BinaryName(e.Package))
	if e.Version != "" {
		fmt.Fprintf(&b, " compatible with version %s", e.Version)
	}
	fmt.Fprintf(&b, " in %s", strings.Join(e.Searched, ", "))
	if len(e.Rejected) > 0 {
		fmt.Fprintf(&b, " (found incompatible: %s)", strings.Join(e.Rejected, ", "))
	}
	b.WriteString("; " + e.InstallHint())
	return b.String()
}

// InstallHint says how to install the plugin where it will be found: with
// the Pulumi CLI when Pulumi's plugin cache was searched, else by putting
// the binary in a plugin folder or on PATH.
func (e *NotFoundError) InstallHint() string {
	if e.PluginCache != "" {
		cmd := "pulumi plugin install resource " + e.Package
		if e.Version != "" {
			cmd += " v" + strings.TrimPrefix(e.Version, "v")
		}
		return fmt.Sprintf("%q installs its plugin in Pulumi's plugin cache, or put %s in a plugin folder or on PATH", cmd, BinaryName(e.Package))
	}
	return fmt.Sprintf("put %s in a plugin folder or on PATH", BinaryName(e.Package))
}

// PulumiPluginCache returns the folder where the Pulumi CLI installs
// plugins: $PULUMI_HOME/plugins, else .pulumi/plugins in the user's home
// folder. Each plugin is in a folder of its own,
// resource-<pkg>-v<version>/pulumi-resource-<pkg>, as Find and Resolver
// look for it. The folder need not exist.
func PulumiPluginCache() (string, error) {
	if home := os.Getenv("PULUMI_HOME"); home != "" {
		return filepath.Join(home, "plugins"), nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("finding Pulumi's plugin folder: %w; set PULUMI_HOME", err)
	}
	return filepath.Join(home, ".pulumi", "plugins"), nil
}

// searchDirs are the folders searched before PATH: Dirs, then the plugin
// cache.
func (o Options) searchDirs() []string {
	if o.PluginCache == "" {
		return o.Dirs
	}
	return append(slices.Clip(o.Dirs), o.PluginCache)
}

// notFound is the error for a plugin of pkg not found in o's folders.
func (o Options) notFound(pkg, version string) *NotFoundError {
	return &NotFoundError{Package: pkg, Version: version, Searched: searched(o.searchDirs()), PluginCache: o.PluginCache}
}

// candidate is a plugin binary found on disk, with the version its folder
// name gives ("" when it is not in a versioned folder).
type candidate struct {
	path, version string
}

// candidates lists the binaries of pkg in search order: for each folder,
// the binary in it, then those in versioned subfolders
// ("resource-<pkg>-v<version>/", the layout of Pulumi's plugin cache),
// newest first, leaving out those still being installed; then the binary
// on PATH.
func candidates(pkg string, dirs []string) []candidate {
	bin := BinaryName(pkg)
	var out []candidate
	for _, dir := range dirs {
		// Absolute, so that a plugin started in another working folder
		// (Options.Dir) is still found.
		if abs, err := filepath.Abs(dir); err == nil {
			dir = abs
		}
		if isExecutable(filepath.Join(dir, bin)) {
			out = append(out, candidate{path: filepath.Join(dir, bin)})
		}
		out = append(out, versioned(dir, pkg, bin)...)
	}
	if path, err := exec.LookPath(bin); err == nil {
		out = append(out, candidate{path: path})
	}
	return out
}

func versioned(dir, pkg, bin string) []candidate {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	prefix := "resource-" + pkg + "-v"
	type found struct {
		c candidate
		v providers.Version
	}
	var fs []found
	for _, e := range entries {
		if !e.IsDir() || !strings.HasPrefix(e.Name(), prefix) {
			continue
		}
		v, err := providers.ParseVersion(strings.TrimPrefix(e.Name(), prefix))
		path := filepath.Join(dir, e.Name(), bin)
		if err != nil || !isExecutable(path) || partial(filepath.Join(dir, e.Name())) {
			continue
		}
		fs = append(fs, found{candidate{path: path, version: v.String()}, v})
	}
	slices.SortFunc(fs, func(a, b found) int { return b.v.Compare(a.v) })
	out := make([]candidate, len(fs))
	for i, f := range fs {
		out[i] = f.c
	}
	return out
}

// partial reports whether the plugin in folder dir is still being
// installed: the Pulumi CLI marks it with a file dir.partial until the
// installation is complete.
func partial(dir string) bool {
	_, err := os.Stat(dir + ".partial")
	return err == nil
}

func isExecutable(path string) bool {
	info, err := os.Stat(path)
	if err != nil || info.IsDir() {
		return false
	}
	return runtime.GOOS == "windows" || info.Mode()&0o111 != 0
}

func searched(dirs []string) []string {
	return append(slices.Clone(dirs), "PATH")
}

// Find returns the path of the plugin binary of package pkg
// ("pulumi-resource-<pkg>"): the first found in dirs, in order — in each
// folder itself, then in its versioned subfolders
// ("resource-<pkg>-v<version>/"), newest first — and then on PATH. The
// error is a *NotFoundError.
func Find(pkg string, dirs ...string) (string, error) {
	cs := candidates(pkg, dirs)
	if len(cs) == 0 {
		return "", &NotFoundError{Package: pkg, Searched: searched(dirs)}
	}
	return cs[0].path, nil
}

// Factory returns a providers.Factory that launches a new instance of the
// plugin of package name (see Launch) each time it is called.
func Factory(name string, opts Options) providers.Factory {
	return func(ctx context.Context) (providers.Provider, error) {
		return Launch(ctx, name, opts)
	}
}

// pathFactory launches the binary at path.
func pathFactory(name, path string, opts Options) providers.Factory {
	return func(ctx context.Context) (providers.Provider, error) {
		return Start(ctx, name, path, opts)
	}
}

// Resolver returns a providers.Resolver (see providers.WithResolver) that
// finds plugin binaries on demand, searching opts.Dirs, opts.PluginCache
// and PATH as Find does, without starting any. A binary in a versioned folder
// ("resource-<pkg>-v<version>/") has that folder's version; any other
// binary's version is known only once it runs.
//
// When a version is wanted, the Resolver chooses the first binary in a
// versioned folder whose version is compatible with it (same major
// version, not older); failing that, the first binary of unknown version,
// which is taken to be the version wanted and is checked when it starts:
// a plugin that then reports an incompatible version is stopped, and the
// start fails with a *VersionMismatchError. When any version will do, it
// chooses the first binary in search order; one of unknown version is
// registered as 0.0.0. The factory it returns launches that binary with
// opts.
func Resolver(opts Options) providers.Resolver {
	return func(ctx context.Context, pkg, version string) (providers.Factory, string, error) {
		var want *providers.Version
		if version != "" {
			v, err := providers.ParseVersion(version)
			if err != nil {
				return nil, "", fmt.Errorf("resolve plugin %s: %w", pkg, err)
			}
			want = &v
		}
		nf := opts.notFound(pkg, version)
		var unknown *candidate
		for _, c := range candidates(pkg, opts.searchDirs()) {
			if c.version == "" {
				if unknown == nil {
					unknown = &c
				}
				if want == nil {
					break
				}
				continue
			}
			v, err := providers.ParseVersion(c.version)
			if err != nil {
				continue // versioned() lists only parseable versions
			}
			if want != nil && !compatible(v, *want) {
				nf.Rejected = append(nf.Rejected, c.path+"@"+v.String())
				continue
			}
			return pathFactory(pkg, c.path, opts), v.String(), nil
		}
		if unknown == nil {
			return nil, "", nf
		}
		claimed := "0.0.0"
		if want != nil {
			claimed = want.String()
		}
		return checkedFactory(pkg, unknown.path, want, opts), claimed, nil
	}
}

// compatible says whether a plugin at version got can serve version want:
// the same major version, and not older.
func compatible(got, want providers.Version) bool {
	return got.Major == want.Major && got.Compare(want) >= 0
}

// VersionMismatchError reports a plugin binary of unknown version that,
// once started, reported a version incompatible with the one wanted.
type VersionMismatchError struct {
	Package, Path string
	// Reported is the version the plugin reported; Wanted the one asked
	// for.
	Reported, Wanted string
}

// Error names the binary and both versions, and says what to do.
func (e *VersionMismatchError) Error() string {
	return fmt.Sprintf("plugin %s (%s) reports version %s, which cannot serve version %s (a compatible version has the same major version and is not older); "+
		"install a compatible plugin in a versioned folder resource-%s-v<version> of a plugin folder, or put one first on the search path",
		e.Package, e.Path, e.Reported, e.Wanted, e.Package)
}

// checkedFactory launches the binary at path, whose version was unknown,
// and refuses it if the version it reports cannot serve want. A plugin
// that reports no version is taken to be compatible.
func checkedFactory(name, path string, want *providers.Version, opts Options) providers.Factory {
	return func(ctx context.Context) (providers.Provider, error) {
		p, err := Start(ctx, name, path, opts)
		if err != nil {
			return nil, err
		}
		if want == nil || p.Version() == "" {
			return p, nil
		}
		got, err := providers.ParseVersion(p.Version())
		if err == nil && compatible(got, *want) {
			return p, nil
		}
		mismatch := &VersionMismatchError{Package: name, Path: path, Reported: p.Version(), Wanted: want.String()}
		return nil, errors.Join(mismatch, p.Close(ctx))
	}
}
