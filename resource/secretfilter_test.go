package resource_test

import (
	"errors"
	"fmt"
	"io/fs"
	"sync"
	"testing"

	"github.com/groundwork-iac/groundwork/resource"
)

func TestSecretFilterMask(t *testing.T) {
	secret := func(v resource.PropertyValue) resource.PropertyValue { return resource.NewSecret(v) }
	str := resource.NewString
	tests := []struct {
		name string
		add  resource.PropertyValue
		in   string
		want string
	}{
		{"a plaintext", secret(str("hunter2")), "login hunter2 refused", "login [secret] refused"},
		{"every occurrence", secret(str("hunter2")), "hunter2/hunter2", "[secret]/[secret]"},
		{"quoted with %q", secret(str(`p"w\d`)), fmt.Sprintf("bad %q", `p"w\d`), `bad "[secret]"`},
		{"a number", secret(resource.NewNumber(4242)), "port 4242 closed", "port [secret] closed"},
		{"nested in an object", secret(resource.NewObject(resource.PropertyMap{"k": str("deep-value")})), "got deep-value", "got [secret]"},
		{"a secret inside a plain object", resource.NewObject(resource.PropertyMap{"k": secret(str("inner-value")), "p": str("plain-value")}),
			"inner-value plain-value", "[secret] plain-value"},
		{"a secret output", resource.NewOutput(resource.Output{Element: str("out-secret"), Known: true, Secret: true}), "x out-secret", "x [secret]"},
		{"a plain value is not a secret", str("public"), "public", "public"},
		{"too short to mask", secret(str("ab")), "abc ab", "abc ab"},
		{"a boolean is not masked", secret(resource.NewBool(true)), "true", "true"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var f resource.SecretFilter
			f.Add(tt.add)
			if got := f.Mask(tt.in); got != tt.want {
				t.Errorf("Mask(%q) = %q; want %q", tt.in, got, tt.want)
			}
		})
	}
}

// TestSecretFilterLongestFirst: a secret that begins another does not leave
// the other's tail in plain text.
func TestSecretFilterLongestFirst(t *testing.T) {
	var f resource.SecretFilter
	f.AddStrings("abc", "abcdef")
	if got := f.Mask("x abcdef y abc"); got != "x [secret] y [secret]" {
		t.Errorf("Mask = %q", got)
	}
}

func TestSecretFilterMaskError(t *testing.T) {
	var f resource.SecretFilter
	f.AddStrings("hunter2")
	cause := &fs.PathError{Op: "open", Path: "/etc/hunter2", Err: fs.ErrNotExist}
	err := f.MaskError(fmt.Errorf("reading: %w", cause))
	if got, want := err.Error(), "reading: open /etc/[secret]: file does not exist"; got != want {
		t.Errorf("Error() = %q; want %q", got, want)
	}
	var pe *fs.PathError
	if !errors.As(err, &pe) || !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the masked error %#v does not wrap its cause", err)
	}
	// Masked again once more secrets are known: the message is masked
	// afresh, not the masked one wrapped twice.
	f.AddStrings("reading")
	again := f.MaskError(err)
	if got, want := again.Error(), "[secret]: open /etc/[secret]: file does not exist"; got != want {
		t.Errorf("Error() = %q; want %q", got, want)
	}
	if errors.Unwrap(again) != errors.Unwrap(err) {
		t.Error("a masked error masked again wraps the mask, not the cause")
	}
	plain := errors.New("nothing secret")
	if f.MaskError(plain) != plain {
		t.Error("an error holding no secret is not returned as it is")
	}
	var none *resource.SecretFilter
	if none.Mask("hunter2") != "hunter2" || none.MaskError(plain) != plain {
		t.Error("a nil filter masks")
	}
}

func TestSecretFilterConcurrent(t *testing.T) {
	var f resource.SecretFilter
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s := fmt.Sprintf("secret-%d", i)
			f.AddStrings(s)
			if got := f.Mask("is " + s); got != "is [secret]" {
				t.Errorf("Mask = %q", got)
			}
		}()
	}
	wg.Wait()
}

func ExampleSecretFilter() {
	var f resource.SecretFilter
	f.AddMap(resource.PropertyMap{
		"user":     resource.NewString("admin"),
		"password": resource.NewSecret(resource.NewString("hunter2")),
	})
	err := f.MaskError(fmt.Errorf("login of %s refused: wrong password %q", "admin", "hunter2"))
	fmt.Println(err)
	// Output: login of admin refused: wrong password "[secret]"
}
