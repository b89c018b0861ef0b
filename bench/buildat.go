package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// buildAt builds the bench command as it was at a commit of the
// repository holding the current directory's module, and returns the
// binary's path and the function that removes it. The commit's tree is
// exported with git archive into a temporary folder, which is removed once
// the binary is built, so the repository itself is left untouched.
func buildAt(ctx context.Context, commit string) (bin string, cleanup func(), err error) {
	gomod, err := output(ctx, "", "go", "env", "GOMOD")
	if err != nil {
		return "", nil, err
	}
	if gomod == "" || gomod == os.DevNull {
		return "", nil, errors.New("-against-commit: run bench from inside the groundwork module, whose repository holds the commit")
	}
	modDir := filepath.Dir(gomod)
	prefix, err := output(ctx, modDir, "git", "rev-parse", "--show-prefix")
	if err != nil {
		return "", nil, fmt.Errorf("-against-commit: the module is not in a git repository: %w", err)
	}
	rev, err := output(ctx, modDir, "git", "rev-parse", "--verify", "--quiet", commit+"^{commit}")
	if err != nil {
		return "", nil, fmt.Errorf("-against-commit: %q names no commit of the repository at %s", commit, modDir)
	}
	tmp, err := os.MkdirTemp("", "groundwork-bench-old-")
	if err != nil {
		return "", nil, err
	}
	cleanup = func() { os.RemoveAll(tmp) }
	defer func() {
		if err != nil {
			cleanup()
		}
	}()
	src := filepath.Join(tmp, "src")
	archive := filepath.Join(tmp, "src.tar")
	if err := os.Mkdir(src, 0o755); err != nil {
		return "", nil, err
	}
	if _, err := output(ctx, modDir, "git", "archive", "--format=tar", "-o", archive, rev); err != nil {
		return "", nil, fmt.Errorf("-against-commit: exporting %s: %w", commit, err)
	}
	if _, err := output(ctx, "", "tar", "-xf", archive, "-C", src); err != nil {
		return "", nil, fmt.Errorf("-against-commit: unpacking %s: %w", commit, err)
	}
	bin = filepath.Join(tmp, "bench")
	if _, err := output(ctx, filepath.Join(src, filepath.FromSlash(prefix)), "go", "build", "-o", bin, "./bench"); err != nil {
		return "", nil, fmt.Errorf("-against-commit: building the bench at %s: %w", commit, err)
	}
	if err := os.RemoveAll(src); err != nil {
		return "", nil, err
	}
	return bin, cleanup, os.Remove(archive)
}

// output runs a command in dir (the current directory if empty) and
// returns its trimmed stdout, or an error carrying its stderr.
func output(ctx context.Context, dir, name string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("%s %s: %w: %s", name, strings.Join(args, " "), err, lastLines(stderr.String(), 20))
	}
	return strings.TrimSpace(stdout.String()), nil
}
