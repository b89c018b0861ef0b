//go:build !linux

package main

import (
	"context"
	"os"

	"golang.org/x/term"
)

// typed returns at once where gw does not poll the terminal: the read
// that follows waits for the line, and an interrupt does not end it.
func typed(ctx context.Context, f *os.File) error { return nil }

// readSecret reads a line typed on the terminal f without echoing it; an
// interrupt does not end it.
func readSecret(ctx context.Context, f *os.File) (string, error) {
	b, err := term.ReadPassword(int(f.Fd()))
	return string(b), err
}
