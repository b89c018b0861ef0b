//go:build linux

package main

import (
	"bufio"
	"context"
	"errors"
	"os"
	"strings"

	"golang.org/x/sys/unix"
)

// typed waits until the terminal f has a line to read (in the terminal's
// line mode, a read then returns it without waiting), or until ctx ends
// (an interrupt): then it returns ctx's cause and nothing is read.
func typed(ctx context.Context, f *os.File) error {
	fds := []unix.PollFd{{Fd: int32(f.Fd()), Events: unix.POLLIN}}
	for {
		if ctx.Err() != nil {
			return context.Cause(ctx)
		}
		// A short timeout, so that ctx is looked at often.
		n, err := unix.Poll(fds, 100)
		switch {
		case errors.Is(err, unix.EINTR):
		case err != nil:
			return err
		case n > 0:
			return nil
		}
	}
}

// readSecret reads a line typed on the terminal f without echoing it, as
// a password prompt does, giving up with ctx's cause when ctx ends first.
func readSecret(ctx context.Context, f *os.File) (string, error) {
	fd := int(f.Fd())
	was, err := unix.IoctlGetTermios(fd, unix.TCGETS)
	if err != nil {
		return "", err
	}
	quiet := *was
	quiet.Lflag &^= unix.ECHO
	quiet.Lflag |= unix.ICANON | unix.ISIG
	if err := unix.IoctlSetTermios(fd, unix.TCSETS, &quiet); err != nil {
		return "", err
	}
	defer unix.IoctlSetTermios(fd, unix.TCSETS, was) //nolint:errcheck // the terminal as it was, whatever happened
	if err := typed(ctx, f); err != nil {
		return "", err
	}
	line, err := bufio.NewReader(f).ReadString('\n')
	if err != nil && line == "" {
		return "", err
	}
	return strings.TrimSuffix(strings.TrimSuffix(line, "\n"), "\r"), nil
}
