//go:build !unix

package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"
)

// lockFile takes the lock at path by creating the file exclusively,
// waiting while another process holds it, until ctx ends. The returned
// func releases it by removing the file. A holder that was killed leaves
// the file behind: remove it by hand once no gw runs.
func lockFile(ctx context.Context, path string) (func(), error) {
	for {
		f, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_RDWR, 0o644)
		if err == nil {
			f.Close()
			return func() { os.Remove(path) }, nil
		}
		if !errors.Is(err, os.ErrExist) {
			return nil, fmt.Errorf("locking %s: %w", path, err)
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("waiting for the lock %s (remove it if no gw runs): %w", path, context.Cause(ctx))
		case <-time.After(10 * time.Millisecond):
		}
	}
}
