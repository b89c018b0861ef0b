package resource

import (
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// Masked is what a SecretFilter writes in place of a secret's plaintext.
const Masked = "[secret]"

// MinSecretLength is the shortest plaintext a SecretFilter masks, in bytes.
// Shorter secrets (and the booleans "true" and "false") are not masked:
// replacing every "1" or "on" in a message would erase ordinary text (exit
// statuses, counts, words) and still tell the reader where the secret
// stood, while a secret that short is guessed in a few tries anyway.
const MinSecretLength = 3

// A SecretFilter is a set of secret plaintexts that masks them in text: an
// operation adds every secret it handles (configuration, inputs, outputs) as
// it sees them, and passes every message it lets out through Mask. Besides
// each plaintext it masks the escaped forms JSON and Go's %q give it, so
// that a message quoting the secret either way is masked too.
//
// The zero value is an empty filter ready to use. Mask and MaskError of a
// nil *SecretFilter mask nothing (the Add methods need a filter). It is
// safe for concurrent use.
type SecretFilter struct {
	mu      sync.Mutex
	secrets map[string]struct{}
	// replacer masks every secret in secrets; nil when it must be rebuilt.
	replacer *strings.Replacer
}

// Add adds the plaintext of every secret in v: a secret's strings and
// numbers, however deeply nested.
func (f *SecretFilter) Add(v PropertyValue) {
	if !v.ContainsSecrets() {
		return
	}
	var found []string
	collectSecrets(v, false, &found)
	f.AddStrings(found...)
}

// AddMap adds the plaintext of every secret in m.
func (f *SecretFilter) AddMap(m PropertyMap) {
	for _, v := range m {
		f.Add(v)
	}
}

// AddStrings adds plaintexts to mask. Those shorter than MinSecretLength,
// and booleans, are ignored.
func (f *SecretFilter) AddStrings(secrets ...string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, s := range secrets {
		for _, form := range secretForms(s) {
			if _, ok := f.secrets[form]; ok {
				continue
			}
			if f.secrets == nil {
				f.secrets = map[string]struct{}{}
			}
			f.secrets[form] = struct{}{}
			f.replacer = nil
		}
	}
}

// Mask returns s with every secret of the filter replaced by Masked.
func (f *SecretFilter) Mask(s string) string {
	if f == nil || s == "" {
		return s
	}
	f.mu.Lock()
	if len(f.secrets) == 0 {
		f.mu.Unlock()
		return s
	}
	if f.replacer == nil {
		// Longer secrets first: the replacer tries them in order at each
		// position, so a secret that begins another is not masked first,
		// leaving the other's tail in plain text.
		forms := make([]string, 0, len(f.secrets))
		for k := range f.secrets {
			forms = append(forms, k)
		}
		slices.SortFunc(forms, func(a, b string) int {
			if c := len(b) - len(a); c != 0 {
				return c
			}
			return strings.Compare(a, b)
		})
		pairs := make([]string, 0, 2*len(forms))
		for _, k := range forms {
			pairs = append(pairs, k, Masked)
		}
		f.replacer = strings.NewReplacer(pairs...)
	}
	r := f.replacer
	f.mu.Unlock()
	return r.Replace(s)
}

// MaskError returns err with its message masked. The error returned wraps
// err, so errors.Is and errors.As still find what err holds; an error
// whose message holds no secret is returned as it is.
func (f *SecretFilter) MaskError(err error) error {
	if err == nil {
		return nil
	}
	if m, ok := err.(*maskedError); ok {
		err = m.err // masked again, with the secrets added since
	}
	msg := err.Error()
	masked := f.Mask(msg)
	if masked == msg {
		return err
	}
	return &maskedError{err: err, msg: masked}
}

// maskedError is an error whose message has its secrets masked.
type maskedError struct {
	err error
	msg string
}

func (e *maskedError) Error() string { return e.msg }

// Unwrap returns the error whose message is masked.
func (e *maskedError) Unwrap() error { return e.err }

// secretForms returns the texts that stand for a secret: the plaintext and
// its JSON and Go escapes, none if it is too short to mask.
func secretForms(s string) []string {
	if len(s) < MinSecretLength || strings.EqualFold(s, "true") || strings.EqualFold(s, "false") {
		return nil
	}
	forms := []string{s}
	if b, err := json.Marshal(s); err == nil {
		if e := string(b[1 : len(b)-1]); e != s {
			forms = append(forms, e)
		}
	}
	if q := strconv.Quote(s); q[1:len(q)-1] != s && !slices.Contains(forms, q[1:len(q)-1]) {
		forms = append(forms, q[1:len(q)-1])
	}
	return forms
}

// collectSecrets appends the plaintexts in v that are secret (all of them
// when inSecret, v being inside a secret).
func collectSecrets(v PropertyValue, inSecret bool, out *[]string) {
	switch v.Kind() {
	case KindSecret:
		collectSecrets(v.SecretElement(), true, out)
	case KindOutput:
		o := v.OutputValue()
		collectSecrets(o.Element, inSecret || o.Secret, out)
	case KindArray:
		for _, e := range v.ArrayValue() {
			collectSecrets(e, inSecret, out)
		}
	case KindObject:
		for _, e := range v.ObjectValue() {
			collectSecrets(e, inSecret, out)
		}
	case KindString:
		if inSecret {
			*out = append(*out, v.StringValue())
		}
	case KindNumber:
		if inSecret {
			*out = append(*out, strconv.FormatFloat(v.NumberValue(), 'f', -1, 64))
		}
	}
}
