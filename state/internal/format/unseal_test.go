package format

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/groundwork-iac/groundwork/resource"
)

// plainManager "encrypts" by copying, and keeps every plaintext buffer it
// returns from Decrypt so that a test can overwrite them afterwards.
type plainManager struct{ returned [][]byte }

func (*plainManager) Type() string           { return "plain-test" }
func (*plainManager) State() json.RawMessage { return json.RawMessage(`{}`) }
func (*plainManager) Encrypt(_ context.Context, pt []byte) (string, error) {
	return string(pt), nil
}
func (m *plainManager) Decrypt(_ context.Context, ct string) ([]byte, error) {
	pt := []byte(ct)
	m.returned = append(m.returned, pt)
	return pt, nil
}

// TestSecretValuesOutliveTheirPlaintext reads secret values, plain and
// escaped strings and objects, with a sharing decoder and a copying one,
// then overwrites every plaintext buffer the manager returned: the values
// read must be unchanged, holding no memory of those buffers.
func TestSecretValuesOutliveTheirPlaintext(t *testing.T) {
	want := resource.NewObject(resource.PropertyMap{
		"plain":   resource.NewString("hunter2"),
		"escaped": resource.NewString("line\none \"quoted\""),
		"object":  resource.NewObject(resource.PropertyMap{"key": resource.NewString("value"), "n": resource.NewNumber(7)}),
		"array":   resource.NewArray(resource.NewString("a"), resource.NewBool(true)),
	})
	// Each plaintext is its value as the format writes it.
	plaintexts := map[string]string{
		"plain":   `"hunter2"`,
		"escaped": `"line\none \"quoted\""`,
		"object":  `{"key":"value","n":7}`,
		"array":   `["a",true]`,
	}
	text := ""
	for k, pt := range plaintexts {
		ct, err := json.Marshal(pt)
		if err != nil {
			t.Fatal(err)
		}
		if text != "" {
			text += ","
		}
		text += `"` + k + `":{"` + tagSecret + `":` + string(ct) + `}`
	}
	text = "{" + text + "}"
	for _, share := range []bool{true, false} {
		m := &plainManager{}
		d := newDecoder(text, m)
		if share {
			d = newSharingDecoder(text, m)
		}
		got, err := d.value(context.Background(), 0)
		if err != nil {
			t.Fatalf("share=%t: %v", share, err)
		}
		if len(m.returned) != len(want.ObjectValue()) {
			t.Fatalf("share=%t: %d values decrypted, want %d", share, len(m.returned), len(want.ObjectValue()))
		}
		for _, pt := range m.returned {
			for i := range pt {
				pt[i] = 'X'
			}
		}
		for k, w := range want.ObjectValue() {
			g := got.ObjectValue()[k]
			if !g.IsSecret() || !g.SecretElement().DeepEquals(w) {
				t.Errorf("share=%t: %s reads %v after its plaintext was overwritten, want secret %v", share, k, g, w)
			}
		}
	}
}
