package main

import (
	"errors"
	"strings"

	"github.com/groundwork-iac/groundwork/state"
)

// This file puts the library's advice in gw's words. The library's
// errors speak to Go programmers (they name the options a program passes
// to the store); a gw user is told the gw command or variable that does
// the same. The library's sentences are taken from its errors themselves,
// so that a change of their wording is seen by TestMessagesForCLI rather
// than silently left untranslated.

// cliPhrases are the library's sentences and what gw says instead.
var cliPhrases = func() []struct{ lib, cli string } {
	// An AuthenticationError of a snapshot without a MAC ends with advice
	// to load it through a store opened with an option: gw's command for
	// that is change-secrets-provider.
	probe := &state.AuthenticationError{File: "snapshot", Missing: true}
	bare := (&state.AuthenticationError{File: "snapshot"}).Error()
	head := strings.TrimSuffix(bare, " — restore it from a backup")
	advice := strings.TrimPrefix(probe.Error(), head)
	return []struct{ lib, cli string }{
		{advice, `. If gw wrote it without a passphrase (or an older groundwork wrote it) and you trust the file, ` +
			`run "gw stack change-secrets-provider passphrase" to protect it with the passphrase now set, ` +
			`or unset GW_PASSPHRASE and PULUMI_CONFIG_PASSPHRASE to go on without one`},
		{state.ErrNoSecretsManager.Error(), `a secret value must be encrypted, and no passphrase is set: ` +
			`set GW_PASSPHRASE (or PULUMI_CONFIG_PASSPHRASE, or PULUMI_CONFIG_PASSPHRASE_FILE)`},
		{"this store authenticates every snapshot with the stack's secrets manager",
			"gw has a passphrase, with which it authenticates every snapshot"},
		{"the snapshot records no secrets manager", "the snapshot was written without a passphrase"},
		{`is authenticated by its secrets manager (type "passphrase"), which this store does not have`,
			"is authenticated with a passphrase, and gw has none"},
	}
}()

// forCLI rewrites the library's advice in msg in gw's words.
func forCLI(msg string) string {
	for _, p := range cliPhrases {
		if p.lib != "" {
			msg = strings.ReplaceAll(msg, p.lib, p.cli)
		}
	}
	return msg
}

// cliError is err with its message in gw's words; errors.Is and As still
// see err.
type cliError struct{ err error }

func (e cliError) Error() string { return forCLI(e.err.Error()) }
func (e cliError) Unwrap() error { return e.err }

// inCLIWords wraps err so that its message is in gw's words (nil stays
// nil; a usage error stays one).
func inCLIWords(err error) error {
	var ue *usageError
	if err == nil || errors.As(err, &ue) || forCLI(err.Error()) == err.Error() {
		return err
	}
	return cliError{err}
}
