package secrets

import (
	"context"
	"crypto/aes"
	"crypto/cipher"
	"crypto/pbkdf2"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// PulumiPassphraseType is the Type of a PulumiPassphrase manager.
const PulumiPassphraseType = "pulumi-passphrase"

// Pulumi's passphrase scheme: the key is PBKDF2-HMAC-SHA-256 of the
// passphrase over the stack's salt, a fixed million rounds, 32 bytes; each
// value is AES-256-GCM under a random 12-byte nonce, no additional data,
// written "v1:" base64(nonce) ":" base64(ciphertext). The stack's
// "encryptionsalt" is "v1:" base64(salt) ":" followed by the word "pulumi"
// sealed that way, which tells a wrong passphrase from a right one.
const (
	pulumiIterations = 1_000_000
	pulumiSaltSize   = 8
	pulumiCheck      = "pulumi"
)

// PulumiPassphrase encrypts and decrypts values the way the Pulumi CLI's
// passphrase secrets manager does, so that secrets in a Pulumi.<stack>.yaml
// or a stack exported by Pulumi can be read, and written back for Pulumi to
// read. Open one with OpenPulumiPassphrase given the stack's encryptionsalt,
// or make a new salt with NewPulumiPassphrase. It implements Manager (its
// State is the encryptionsalt) and is safe for concurrent use.
type PulumiPassphrase struct {
	aead cipher.AEAD
	salt string
}

var _ Manager = (*PulumiPassphrase)(nil)

// NewPulumiPassphrase returns a manager under a fresh salt; its
// EncryptionSalt is what Pulumi records in the stack's settings.
func NewPulumiPassphrase(phrase string) (*PulumiPassphrase, error) {
	if phrase == "" {
		return nil, errors.New("the passphrase is empty; an empty passphrase would protect nothing")
	}
	salt := make([]byte, pulumiSaltSize)
	if _, err := rand.Read(salt); err != nil {
		return nil, fmt.Errorf("drawing a salt: %w", err)
	}
	p, err := pulumiFromSalt(phrase, salt)
	if err != nil {
		return nil, err
	}
	check, err := p.seal(pulumiCheck)
	if err != nil {
		return nil, err
	}
	p.salt = "v1:" + base64.StdEncoding.EncodeToString(salt) + ":" + check
	return p, nil
}

// OpenPulumiPassphrase returns the manager of a stack whose encryptionsalt
// (as Pulumi records it, "v1:SALT:v1:NONCE:CHECK") is given. A passphrase
// that does not open the salt's check value is ErrWrongPassphrase.
func OpenPulumiPassphrase(phrase, encryptionSalt string) (*PulumiPassphrase, error) {
	version, rest, ok1 := strings.Cut(encryptionSalt, ":")
	salt64, check, ok2 := strings.Cut(rest, ":")
	if !ok1 || !ok2 || version != "v1" {
		return nil, errors.New("the encryption salt is malformed: want v1:SALT:CHECK")
	}
	salt, err := base64.StdEncoding.DecodeString(salt64)
	if err != nil || len(salt) == 0 {
		return nil, errors.New("the encryption salt is malformed: its salt is not base64")
	}
	p, err := pulumiFromSalt(phrase, salt)
	if err != nil {
		return nil, err
	}
	if got, err := p.open(check); err != nil || got != pulumiCheck {
		return nil, ErrWrongPassphrase
	}
	p.salt = encryptionSalt
	return p, nil
}

func pulumiFromSalt(phrase string, salt []byte) (*PulumiPassphrase, error) {
	key, err := pbkdf2.Key(sha256.New, phrase, salt, pulumiIterations, keySize)
	if err != nil {
		return nil, fmt.Errorf("deriving the key: %w", err)
	}
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, err
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return nil, err
	}
	return &PulumiPassphrase{aead: aead}, nil
}

// EncryptionSalt is the stack setting Pulumi calls encryptionsalt.
func (p *PulumiPassphrase) EncryptionSalt() string { return p.salt }

// Type implements Manager.
func (p *PulumiPassphrase) Type() string { return PulumiPassphraseType }

// State implements Manager: the encryptionsalt, as Pulumi's own passphrase
// manager records it ({"salt": ...}).
func (p *PulumiPassphrase) State() json.RawMessage {
	b, _ := json.Marshal(struct {
		Salt string `json:"salt"`
	}{p.salt})
	return b
}

// Encrypt implements Manager.
func (p *PulumiPassphrase) Encrypt(_ context.Context, plaintext []byte) (string, error) {
	return p.seal(string(plaintext))
}

// Decrypt implements Manager: a value that does not open is ErrCiphertext.
func (p *PulumiPassphrase) Decrypt(_ context.Context, ciphertext string) ([]byte, error) {
	s, err := p.open(ciphertext)
	if err != nil {
		return nil, err
	}
	return []byte(s), nil
}

func (p *PulumiPassphrase) seal(plaintext string) (string, error) {
	nonce := make([]byte, p.aead.NonceSize())
	if _, err := rand.Read(nonce); err != nil {
		return "", fmt.Errorf("drawing a nonce: %w", err)
	}
	sealed := p.aead.Seal(nil, nonce, []byte(plaintext), nil)
	return "v1:" + base64.StdEncoding.EncodeToString(nonce) + ":" + base64.StdEncoding.EncodeToString(sealed), nil
}

func (p *PulumiPassphrase) open(value string) (string, error) {
	parts := strings.Split(value, ":")
	if len(parts) != 3 || parts[0] != "v1" {
		return "", ErrCiphertext
	}
	nonce, err1 := base64.StdEncoding.DecodeString(parts[1])
	sealed, err2 := base64.StdEncoding.DecodeString(parts[2])
	if err1 != nil || err2 != nil || len(nonce) != p.aead.NonceSize() {
		return "", ErrCiphertext
	}
	plain, err := p.aead.Open(nil, nonce, sealed, nil)
	if err != nil {
		return "", ErrCiphertext
	}
	return string(plain), nil
}
