package main

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// This file is the stack gw works on when --stack is not given: $GW_STACK,
// else the stack "gw stack select" (or init) selected for the project's
// folder, else "dev". As with the Pulumi CLI, the selection is kept out of
// the project's folder, in the user's configuration folder
// ($XDG_CONFIG_HOME/gw/workspaces, ~/.config/gw/workspaces on Linux), one
// file per project folder.

// defaultStack is the stack of a project without a selection.
const defaultStack = "dev"

// workspaceFile is where the selected stack of the project in dir is kept.
func workspaceFile(dir string) (string, error) {
	base, err := os.UserConfigDir()
	if err != nil {
		return "", fmt.Errorf("finding the folder where gw keeps the selected stack: %w", err)
	}
	sum := sha256.Sum256([]byte(dir))
	return filepath.Join(base, "gw", "workspaces", hex.EncodeToString(sum[:8])+".json"), nil
}

// workspace is the content of a workspace file.
type workspace struct {
	Project string `json:"project"` // the project's folder
	Stack   string `json:"stack"`
}

// selectedStack returns the stack selected for the project in dir, or "".
func selectedStack(dir string) (string, error) {
	file, err := workspaceFile(dir)
	if err != nil {
		return "", err
	}
	b, err := os.ReadFile(file)
	if errors.Is(err, os.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	var w workspace
	if err := json.Unmarshal(b, &w); err != nil {
		return "", fmt.Errorf("%s: %w", file, err)
	}
	return w.Stack, nil
}

// selectStack records stack as the one selected for the project in dir
// ("" clears the selection).
func selectStack(dir, stack string) error {
	file, err := workspaceFile(dir)
	if err != nil {
		return err
	}
	if stack == "" {
		if err := os.Remove(file); err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		return err
	}
	b, err := json.Marshal(workspace{Project: dir, Stack: stack})
	if err != nil {
		return err
	}
	tmp := file + ".tmp"
	if err := os.WriteFile(tmp, b, 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, file)
}

// settleStack gives o.stack its value when --stack was not given.
func settleStack(o *options) error {
	if o.stack != "" {
		return nil
	}
	if s := os.Getenv("GW_STACK"); s != "" {
		o.stack = s
		return nil
	}
	o.stack = defaultStack
	wd, err := os.Getwd()
	if err != nil {
		return err
	}
	proj, err := findProject(wd)
	if err != nil {
		return err
	}
	s, err := selectedStack(proj.Dir)
	if err != nil {
		return err
	}
	if s != "" {
		o.stack = s
	}
	return nil
}
