// Package secrets encrypts the secret values of a stack's state at rest.
//
// A Manager turns the plaintext of one secret value into an opaque string
// and back. The state store asks a Manager for every secret it writes, so a
// snapshot file or a journal never holds a secret's plaintext. A Manager
// also describes itself (Type and State) so that the same Manager can be
// re-created when the state is read again; that description is public (it
// is written next to the ciphertexts) and must never contain key material.
//
// The passphrase Manager in this package derives an AES-256 key from a
// passphrase with PBKDF2-HMAC-SHA-256 and seals each value with AES-256-GCM
// under a fresh random nonce. See NewPassphrase. It is also an
// Authenticator: it keys an HMAC-SHA-256 with a second key derived from the
// same passphrase, which the state store uses to authenticate whole
// snapshots and journal records.
//
// PulumiPassphrase reads and writes values the way the Pulumi CLI's
// passphrase secrets manager does (a stack's "encryptionsalt" and its
// "secure: v1:..." values), for config files and stacks that Pulumi wrote.
package secrets

import (
	"context"
	"encoding/json"
	"errors"
	"hash"
)

// Manager encrypts and decrypts secret values. Implementations must be safe
// for concurrent use, and their errors must never include plaintext.
type Manager interface {
	// Type names the kind of manager ("passphrase"); it is recorded with
	// the state so a reader knows how to re-create the manager.
	Type() string
	// State is the public configuration needed to re-create the manager
	// (for a passphrase: the salt, the iteration count and a check value).
	State() json.RawMessage
	// Encrypt seals plaintext and returns a printable ciphertext.
	Encrypt(ctx context.Context, plaintext []byte) (string, error)
	// Decrypt opens a ciphertext made by Encrypt. A ciphertext that was
	// tampered with, or made with another key, is an error.
	Decrypt(ctx context.Context, ciphertext string) ([]byte, error)
}

// Authenticator is implemented by a Manager that can also authenticate
// whole records, not just the secret values it encrypts. The state store
// asks for it by type assertion and, when the stack's manager has it, seals
// every snapshot and journal record with a MAC under the manager's key, so
// that an edit of any value — secret or plain — is detected on load. A
// Manager without it gets only an unkeyed checksum, which catches
// accidental damage but not deliberate edits.
type Authenticator interface {
	// NewMAC returns a new HMAC-SHA-256 keyed with a key derived from the
	// manager's key material, distinct from any key it encrypts with. The
	// key must be the same whenever the manager is re-created from its
	// State with the same secret (passphrase). Each call returns an
	// independent hash, which callers may Reset and reuse.
	NewMAC() hash.Hash
}

// ErrWrongPassphrase is returned when a passphrase does not open the
// recorded state: the check value recorded with the state does not decrypt
// under the key derived from the given passphrase.
var ErrWrongPassphrase = errors.New("the passphrase is wrong: it does not decrypt the check value recorded with this stack's state")

// ErrCiphertext is returned by Decrypt for a value that is malformed,
// tampered with, or sealed with a different key.
var ErrCiphertext = errors.New("a ciphertext is malformed or was sealed with a different key")
