package world

import (
	"github.com/groundwork-iac/groundwork/state"
	"github.com/groundwork-iac/groundwork/state/secrets"
)

// StoreOptions are the file store options of a crash trial's stack. A
// keyed stack has a passphrase secrets manager, so that its snapshots carry
// an HMAC and its journal tagged records, and a kill lands in the middle
// of those too. The passphrase's key derivation runs few iterations: the
// trials test the state's authentication, not PBKDF2.
func StoreOptions(keyed bool) []state.Option {
	if !keyed {
		return nil
	}
	return []state.Option{state.WithSecrets(state.PassphraseSecrets("crash-trial", secrets.WithIterations(1000)))}
}
