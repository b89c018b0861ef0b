package secrets

import (
	"bytes"
	"context"
	"crypto/pbkdf2"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
)

func TestPassphraseRoundTrip(t *testing.T) {
	ctx := context.Background()
	// A passphrase that cannot occur by chance in the base64 salt of the
	// recorded state, so that finding it there means it leaked.
	const pass = "correct-horse-battery-staple"
	m, err := NewPassphrase(pass, WithIterations(1000))
	if err != nil {
		t.Fatal(err)
	}
	if m.Type() != PassphraseType {
		t.Errorf("Type = %q", m.Type())
	}
	c1, err := m.Encrypt(ctx, []byte("the secret"))
	if err != nil {
		t.Fatal(err)
	}
	c2, _ := m.Encrypt(ctx, []byte("the secret"))
	if c1 == c2 {
		t.Error("two encryptions of one value are equal; nonces must be random")
	}
	if strings.Contains(c1, "the secret") || bytes.Contains(m.State(), []byte(pass)) {
		t.Error("plaintext or passphrase leaked")
	}
	// Re-open from the recorded state, as a later process would.
	m2, err := OpenPassphrase(pass, m.State())
	if err != nil {
		t.Fatal(err)
	}
	pt, err := m2.Decrypt(ctx, c1)
	if err != nil || string(pt) != "the secret" {
		t.Errorf("Decrypt = %q, %v", pt, err)
	}
	var st passphraseState
	if err := json.Unmarshal(m2.State(), &st); err != nil || st.Iterations != 1000 || len(st.Salt) != saltSize {
		t.Errorf("recorded state = %s", m2.State())
	}
}

func TestPassphraseErrors(t *testing.T) {
	ctx := context.Background()
	m, _ := NewPassphrase("pw", WithIterations(1000))
	if _, err := OpenPassphrase("other", m.State()); !errors.Is(err, ErrWrongPassphrase) {
		t.Errorf("wrong passphrase: %v", err)
	}
	c, _ := m.Encrypt(ctx, []byte("x"))
	for name, bad := range map[string]string{
		"no prefix":  strings.TrimPrefix(c, "v1:"),
		"tampered":   tamper(c),
		"short":      "v1:AAAA",
		"not base64": "v1:!!!",
		"other key": func() string {
			o, _ := NewPassphrase("pw", WithIterations(1000))
			s, _ := o.Encrypt(ctx, []byte("x"))
			return s
		}(),
		"empty string": "",
	} {
		if _, err := m.Decrypt(ctx, bad); !errors.Is(err, ErrCiphertext) {
			t.Errorf("%s: Decrypt = %v; want ErrCiphertext", name, err)
		}
	}
	if _, err := NewPassphrase(""); err == nil {
		t.Error("an empty passphrase was accepted")
	}
	if _, err := NewPassphrase("pw", WithIterations(0)); err == nil {
		t.Error("zero iterations were accepted")
	}
	for _, st := range []string{`{`, `{"salt":"AAAA","iterations":1000,"check":"v1:x"}`, `{"salt":"AAAAAAAAAAAAAAAAAAAAAA==","iterations":999999999,"check":"v1:x"}`} {
		if _, err := OpenPassphrase("pw", json.RawMessage(st)); err == nil {
			t.Errorf("OpenPassphrase(%s) succeeded", st)
		}
	}
}

// tamper changes one character in the middle of a ciphertext.
func tamper(c string) string {
	b := []byte(c)
	i := len(b) / 2
	if b[i] == 'A' {
		b[i] = 'B'
	} else {
		b[i] = 'A'
	}
	return string(b)
}

func ExampleNewPassphrase() {
	ctx := context.Background()
	// A new stack: a fresh salt. WithIterations keeps the example fast;
	// real code keeps DefaultIterations.
	m, _ := NewPassphrase("my passphrase", WithIterations(1000))
	ct, _ := m.Encrypt(ctx, []byte("db-password"))

	// Later, from the recorded (public) state.
	again, err := OpenPassphrase("my passphrase", m.State())
	if err != nil {
		panic(err)
	}
	pt, _ := again.Decrypt(ctx, ct)
	fmt.Println(string(pt))

	_, err = OpenPassphrase("wrong", m.State())
	fmt.Println(errors.Is(err, ErrWrongPassphrase))
	// Output:
	// db-password
	// true
}

// The MAC key is the same for every manager opened from one recorded state
// with the right passphrase, differs between stacks (salts), and is not
// the AES key.
func TestPassphraseMAC(t *testing.T) {
	m, err := NewPassphrase("pw", WithIterations(1000))
	if err != nil {
		t.Fatal(err)
	}
	again, err := OpenPassphrase("pw", m.State())
	if err != nil {
		t.Fatal(err)
	}
	other, err := NewPassphrase("pw", WithIterations(1000)) // another salt
	if err != nil {
		t.Fatal(err)
	}
	sum := func(h interface {
		Write([]byte) (int, error)
		Sum([]byte) []byte
	}) string {
		h.Write([]byte("a record"))
		return fmt.Sprintf("%x", h.Sum(nil))
	}
	if sum(m.NewMAC()) != sum(again.NewMAC()) {
		t.Error("a manager re-opened from its state computes another MAC")
	}
	if sum(m.NewMAC()) == sum(other.NewMAC()) {
		t.Error("two stacks (salts) share a MAC key")
	}
	var st passphraseState
	if err := json.Unmarshal(m.State(), &st); err != nil {
		t.Fatal(err)
	}
	aesKey, err := pbkdf2.Key(sha256.New, "pw", st.Salt, st.Iterations, keySize)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Equal(aesKey, m.macKey) || len(m.macKey) != keySize {
		t.Errorf("the MAC key (%d bytes) is the AES key", len(m.macKey))
	}
	h := m.NewMAC()
	h.Write([]byte("x"))
	first := h.Sum(nil)
	h.Reset()
	h.Write([]byte("x"))
	if !bytes.Equal(first, h.Sum(nil)) {
		t.Error("a reset MAC computes another sum")
	}
}
