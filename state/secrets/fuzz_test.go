package secrets_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/groundwork-iac/groundwork/state/secrets"
)

// The passphrase state and the ciphertexts are read from the state files,
// which anyone with access to the folder can edit: neither may ever make
// the manager panic, and what opens must work.

const fuzzPassphrase = "fuzz passphrase"

func fuzzManager(f *testing.F) *secrets.Passphrase {
	m, err := secrets.NewPassphrase(fuzzPassphrase, secrets.WithIterations(100))
	if err != nil {
		f.Fatal(err)
	}
	return m
}

func FuzzOpenPassphrase(f *testing.F) {
	m := fuzzManager(f)
	f.Add([]byte(m.State()), fuzzPassphrase)
	f.Add([]byte(m.State()), "wrong")
	f.Add([]byte(`{"salt":"AAAAAAAAAAA=","iterations":1,"check":"v1:"}`), "")
	f.Add([]byte(`{"salt":"","iterations":-1}`), "x")
	f.Add([]byte(`null`), "x")
	f.Fuzz(func(t *testing.T, state []byte, passphrase string) {
		var probe struct {
			Iterations json.Number `json:"iterations"`
		}
		if json.Unmarshal(state, &probe) == nil {
			if n, err := probe.Iterations.Int64(); err == nil && n > 2000 {
				return // a slow key derivation, not a parsing question
			}
		}
		p, err := secrets.OpenPassphrase(passphrase, state)
		if err != nil {
			return
		}
		ctx := context.Background()
		ct, err := p.Encrypt(ctx, []byte("round trip"))
		if err != nil {
			t.Fatal(err)
		}
		if pt, err := p.Decrypt(ctx, ct); err != nil || string(pt) != "round trip" {
			t.Fatalf("an opened manager does not round-trip: %q, %v", pt, err)
		}
	})
}

func FuzzDecrypt(f *testing.F) {
	m := fuzzManager(f)
	ctx := context.Background()
	ct, err := m.Encrypt(ctx, []byte("seed"))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(ct)
	f.Add("v1:")
	f.Add("v1:AAAA")
	f.Add("v2:" + ct[3:])
	f.Add(ct[:len(ct)-1] + "A")
	f.Fuzz(func(t *testing.T, ciphertext string) {
		pt, err := m.Decrypt(ctx, ciphertext)
		if err != nil {
			if !errors.Is(err, secrets.ErrCiphertext) {
				t.Fatalf("Decrypt failed with %v; want ErrCiphertext", err)
			}
			if bytes.Contains([]byte(err.Error()), []byte(ciphertext)) && len(ciphertext) > 8 {
				t.Fatalf("the error quotes the ciphertext: %v", err)
			}
			return
		}
		again, err := m.Encrypt(ctx, pt)
		if err != nil {
			t.Fatal(err)
		}
		if back, err := m.Decrypt(ctx, again); err != nil || !bytes.Equal(back, pt) {
			t.Fatalf("re-encrypting what decrypted does not round-trip: %v", err)
		}
	})
}
