package values_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/groundwork-iac/groundwork/resource"
	"github.com/groundwork-iac/groundwork/state"
	"github.com/groundwork-iac/groundwork/state/filestore"
	"github.com/groundwork-iac/groundwork/state/secrets"
	"github.com/groundwork-iac/groundwork/state/values"
)

func TestMarshalPropertiesSealsSecrets(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	open := func() *filestore.Store {
		s, err := filestore.New(dir, state.WithSecrets(state.PassphraseSecrets("values test", secrets.WithIterations(1000))))
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	mgr, err := open().SecretsManager(ctx, state.StackID{Project: "test", Stack: "dev"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	m := resource.PropertyMap{
		"pw":   resource.NewSecret(resource.NewString("hunter2")),
		"size": resource.NewNumber(2),
		"id":   resource.NewUnknown(),
	}
	data, err := values.Marshal(ctx, m, mgr)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(data, []byte("hunter2")) || !json.Valid(data) {
		t.Fatalf("encoded = %s, want valid JSON without the plaintext", data)
	}
	// Another store over the same stack reopens the manager from its
	// public description.
	again, err := open().SecretsManager(ctx, state.StackID{Project: "test", Stack: "dev"}, &state.SecretsState{Type: mgr.Type(), State: mgr.State()})
	if err != nil {
		t.Fatal(err)
	}
	got, err := values.Unmarshal(ctx, data, again)
	if err != nil {
		t.Fatal(err)
	}
	if !got.DeepEquals(m) {
		t.Errorf("decoded = %v, want %v", got, m)
	}

	t.Run("a store without secrets has no manager", func(t *testing.T) {
		s, err := filestore.New(t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.SecretsManager(ctx, state.StackID{Project: "test", Stack: "dev"}, nil); !errors.Is(err, state.ErrNoSecretsManager) {
			t.Fatalf("err = %v, want ErrNoSecretsManager", err)
		}
	})
}
