package secrets_test

import (
	"context"
	"errors"
	"testing"

	"github.com/groundwork-iac/groundwork/state/secrets"
)

// Written by Pulumi v3.220.0's own passphrase secrets manager
// (passphrase.NewPassphraseSecretsManager("correct horse"), then
// EncryptValue("s3cr3t value")).
const (
	pulumiSalt   = "v1:Ka4XYBWDd74=:v1:Uu7LAdqtdZHjf2ZL:j+sN08k9Ryf01psiERbRHZaxSKNL/g=="
	pulumiSecret = "v1:lwo4iiu0DPv79JOb:DPOk38XRMDQEq5lItaL4Etnh599IW1+fq8F4DQ=="
)

func TestPulumiPassphraseReadsPulumisValues(t *testing.T) {
	ctx := context.Background()
	p, err := secrets.OpenPulumiPassphrase("correct horse", pulumiSalt)
	if err != nil {
		t.Fatal(err)
	}
	got, err := p.Decrypt(ctx, pulumiSecret)
	if err != nil || string(got) != "s3cr3t value" {
		t.Fatalf("Decrypt = %q, %v; want the value Pulumi encrypted", got, err)
	}
	if p.EncryptionSalt() != pulumiSalt {
		t.Errorf("EncryptionSalt = %q, want the salt it was opened with", p.EncryptionSalt())
	}
	if _, err := p.Decrypt(ctx, "v1:lwo4iiu0DPv79JOb:AAAA"); !errors.Is(err, secrets.ErrCiphertext) {
		t.Errorf("a damaged value: %v, want ErrCiphertext", err)
	}
	if _, err := secrets.OpenPulumiPassphrase("wrong horse", pulumiSalt); !errors.Is(err, secrets.ErrWrongPassphrase) {
		t.Errorf("a wrong passphrase: %v, want ErrWrongPassphrase", err)
	}
	for _, bad := range []string{"", "v2:Ka4XYBWDd74=:x", "v1:!!!:v1:a:b"} {
		if _, err := secrets.OpenPulumiPassphrase("correct horse", bad); err == nil {
			t.Errorf("salt %q was accepted", bad)
		}
	}
}

func TestPulumiPassphraseRoundTrip(t *testing.T) {
	ctx := context.Background()
	p, err := secrets.NewPulumiPassphrase("pw")
	if err != nil {
		t.Fatal(err)
	}
	c, err := p.Encrypt(ctx, []byte("value"))
	if err != nil {
		t.Fatal(err)
	}
	// A manager re-opened from the recorded salt reads what the first wrote.
	q, err := secrets.OpenPulumiPassphrase("pw", p.EncryptionSalt())
	if err != nil {
		t.Fatal(err)
	}
	if got, err := q.Decrypt(ctx, c); err != nil || string(got) != "value" {
		t.Errorf("Decrypt = %q, %v", got, err)
	}
	if _, err := secrets.NewPulumiPassphrase(""); err == nil {
		t.Error("an empty passphrase was accepted")
	}
}
