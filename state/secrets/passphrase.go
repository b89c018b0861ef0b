package secrets

import (
	"context"
	"crypto/aes"
	"crypto/cipher"
	"crypto/hkdf"
	"crypto/hmac"
	"crypto/pbkdf2"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"strings"
)

// PassphraseType is the Type of the passphrase Manager.
const PassphraseType = "passphrase"

// DefaultIterations is the PBKDF2 iteration count used for new passphrase
// managers: 600,000 rounds of HMAC-SHA-256, the figure OWASP recommends
// (2023). On a current x86 core that is about a quarter of a second, paid
// once per stack per process because stores cache the manager.
const DefaultIterations = 600_000

// MaxIterations bounds the iteration count accepted from recorded state, so
// that a tampered state cannot make opening a stack take hours.
const MaxIterations = 10_000_000

const (
	saltSize       = 32
	keySize        = 32 // AES-256
	cipherPrefix   = "v1:"
	checkPlaintext = "groundwork passphrase check"
	// macKeyLabel is the HKDF info that derives the MAC key from the
	// PBKDF2 output, so that it differs from the AES key (the PBKDF2
	// output itself, as it has been since the first format).
	macKeyLabel = "groundwork state mac key v1"
)

// Additional data binds each sealed blob to its purpose, so a check value can
// never be passed off as a secret value or the other way round.
var (
	adValue = []byte("groundwork secret value v1")
	adCheck = []byte("groundwork passphrase check v1")
)

// PassphraseOption tunes a new passphrase manager.
type PassphraseOption func(*passphraseConfig)

type passphraseConfig struct {
	iterations int
}

// WithIterations sets the PBKDF2 iteration count of a new manager. The count
// is recorded in the manager's State, so re-opening uses the same one. Tests
// use a small count to stay fast; production code should keep the default.
func WithIterations(n int) PassphraseOption {
	return func(c *passphraseConfig) { c.iterations = n }
}

// passphraseState is the public, recorded part of a passphrase manager.
type passphraseState struct {
	Salt       []byte `json:"salt"`
	Iterations int    `json:"iterations"`
	// Check is a fixed text sealed with the derived key: opening the state
	// with a wrong passphrase fails to decrypt it.
	Check string `json:"check"`
}

// Passphrase is a Manager whose key is derived from a passphrase. Create one
// with NewPassphrase (new stack) or OpenPassphrase (recorded state). It is
// safe for concurrent use.
type Passphrase struct {
	aead   cipher.AEAD
	macKey []byte
	state  json.RawMessage
}

var (
	_ Manager       = (*Passphrase)(nil)
	_ Authenticator = (*Passphrase)(nil)
)

// NewPassphrase makes a manager for a stack that has no recorded secrets
// state yet: it draws a random salt, derives the key, and seals a check
// value. The passphrase must not be empty.
func NewPassphrase(passphrase string, opts ...PassphraseOption) (*Passphrase, error) {
	cfg := passphraseConfig{iterations: DefaultIterations}
	for _, o := range opts {
		o(&cfg)
	}
	if passphrase == "" {
		return nil, errors.New("the passphrase is empty; an empty passphrase would protect nothing")
	}
	if cfg.iterations < 1 || cfg.iterations > MaxIterations {
		return nil, fmt.Errorf("iteration count %d is outside 1..%d", cfg.iterations, MaxIterations)
	}
	salt := make([]byte, saltSize)
	if _, err := rand.Read(salt); err != nil {
		return nil, fmt.Errorf("drawing a salt: %w", err)
	}
	aead, macKey, err := deriveKeys(passphrase, salt, cfg.iterations)
	if err != nil {
		return nil, err
	}
	check, err := seal(aead, []byte(checkPlaintext), adCheck)
	if err != nil {
		return nil, err
	}
	st, err := json.Marshal(passphraseState{Salt: salt, Iterations: cfg.iterations, Check: check})
	if err != nil {
		return nil, err
	}
	return &Passphrase{aead: aead, macKey: macKey, state: st}, nil
}

// OpenPassphrase re-creates the manager recorded as state (what State
// returned when the stack was first written). A passphrase that does not
// match fails here with ErrWrongPassphrase, before any value is decrypted.
func OpenPassphrase(passphrase string, state json.RawMessage) (*Passphrase, error) {
	var st passphraseState
	if err := json.Unmarshal(state, &st); err != nil {
		return nil, fmt.Errorf("the recorded passphrase state is malformed: %w", err)
	}
	if len(st.Salt) < 8 {
		return nil, fmt.Errorf("the recorded salt is %d bytes; want at least 8", len(st.Salt))
	}
	if st.Iterations < 1 || st.Iterations > MaxIterations {
		return nil, fmt.Errorf("the recorded iteration count %d is outside 1..%d", st.Iterations, MaxIterations)
	}
	aead, macKey, err := deriveKeys(passphrase, st.Salt, st.Iterations)
	if err != nil {
		return nil, err
	}
	pt, err := open(aead, st.Check, adCheck)
	if err != nil || string(pt) != checkPlaintext {
		return nil, ErrWrongPassphrase
	}
	// Keep the recorded bytes as they are, so a store can tell that the
	// manager matches what it read.
	return &Passphrase{aead: aead, macKey: macKey, state: append(json.RawMessage(nil), state...)}, nil
}

// deriveKeys derives the AES-256-GCM cipher and the MAC key from a
// passphrase: the PBKDF2 output is the AES key, and HKDF-Expand of it
// with a label of its own is the MAC key, so one PBKDF2 run (the costly
// part) gives both and neither key tells anything of the other.
func deriveKeys(passphrase string, salt []byte, iterations int) (cipher.AEAD, []byte, error) {
	key, err := pbkdf2.Key(sha256.New, passphrase, salt, iterations, keySize)
	if err != nil {
		return nil, nil, fmt.Errorf("deriving the key: %w", err)
	}
	defer clear(key)
	macKey, err := hkdf.Expand(sha256.New, key, macKeyLabel, keySize)
	if err != nil {
		return nil, nil, fmt.Errorf("deriving the MAC key: %w", err)
	}
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, nil, err
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return nil, nil, err
	}
	return aead, macKey, nil
}

// Type returns PassphraseType.
func (p *Passphrase) Type() string { return PassphraseType }

// State returns the salt, iteration count and check value as JSON. It holds
// no key material.
func (p *Passphrase) State() json.RawMessage { return p.state }

// NewMAC returns an HMAC-SHA-256 keyed with the manager's MAC key: HKDF-
// SHA-256 (Expand, info "groundwork state mac key v1") of the PBKDF2 key,
// never the AES key itself.
func (p *Passphrase) NewMAC() hash.Hash { return hmac.New(sha256.New, p.macKey) }

// Encrypt seals plaintext with AES-256-GCM under a random 96-bit nonce. The
// result is "v1:" followed by the unpadded standard base64 of nonce and
// sealed bytes.
func (p *Passphrase) Encrypt(ctx context.Context, plaintext []byte) (string, error) {
	return seal(p.aead, plaintext, adValue)
}

// Decrypt opens a value sealed by Encrypt with the same key.
func (p *Passphrase) Decrypt(ctx context.Context, ciphertext string) ([]byte, error) {
	return open(p.aead, ciphertext, adValue)
}

func seal(aead cipher.AEAD, plaintext, ad []byte) (string, error) {
	ns := aead.NonceSize()
	buf := make([]byte, ns, ns+len(plaintext)+aead.Overhead())
	if _, err := rand.Read(buf); err != nil {
		return "", fmt.Errorf("drawing a nonce: %w", err)
	}
	buf = aead.Seal(buf, buf[:ns], plaintext, ad)
	out := make([]byte, len(cipherPrefix)+base64.RawStdEncoding.EncodedLen(len(buf)))
	copy(out, cipherPrefix)
	base64.RawStdEncoding.Encode(out[len(cipherPrefix):], buf)
	return string(out), nil
}

func open(aead cipher.AEAD, ciphertext string, ad []byte) ([]byte, error) {
	body, ok := strings.CutPrefix(ciphertext, cipherPrefix)
	if !ok {
		return nil, ErrCiphertext
	}
	raw, err := base64.RawStdEncoding.DecodeString(body)
	if err != nil || len(raw) < aead.NonceSize()+aead.Overhead() {
		return nil, ErrCiphertext
	}
	ns := aead.NonceSize()
	pt, err := aead.Open(nil, raw[:ns], raw[ns:], ad)
	if err != nil {
		return nil, ErrCiphertext
	}
	return pt, nil
}
