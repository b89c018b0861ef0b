package main

import (
	"fmt"
	"os"
	"strings"
)

// This file is where gw finds the passphrase that encrypts a stack's
// secrets, in its state and in its config file.

// passphrase is the passphrase of the stack's secrets: GW_PASSPHRASE,
// else PULUMI_CONFIG_PASSPHRASE, else the content of the file
// PULUMI_CONFIG_PASSPHRASE_FILE names (less a final newline), as the
// Pulumi CLI reads it. "" means none.
func passphrase() (string, error) {
	if p := os.Getenv("GW_PASSPHRASE"); p != "" {
		return p, nil
	}
	return pulumiPassphrase()
}

// pulumiPassphrase is the passphrase of a Pulumi stack's secrets:
// PULUMI_CONFIG_PASSPHRASE, else the file PULUMI_CONFIG_PASSPHRASE_FILE,
// else gw's own GW_PASSPHRASE.
func pulumiPassphrase() (string, error) {
	if p := os.Getenv("PULUMI_CONFIG_PASSPHRASE"); p != "" {
		return p, nil
	}
	if file := os.Getenv("PULUMI_CONFIG_PASSPHRASE_FILE"); file != "" {
		b, err := os.ReadFile(file)
		if err != nil {
			return "", fmt.Errorf("reading the passphrase from PULUMI_CONFIG_PASSPHRASE_FILE: %w", err)
		}
		return strings.TrimSuffix(strings.TrimSuffix(string(b), "\n"), "\r"), nil
	}
	return os.Getenv("GW_PASSPHRASE"), nil
}
