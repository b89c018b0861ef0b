package providers_test

import (
	"regexp"
	"testing"

	"github.com/groundwork-iac/groundwork/providers"
	"github.com/groundwork-iac/groundwork/resource"
)

func TestAutoName(t *testing.T) {
	stack := []byte("stack-seed")
	urnA := resource.URN("urn:pulumi:dev::proj::aws:s3/bucket:Bucket::a")
	urnB := resource.URN("urn:pulumi:dev::proj::aws:s3/bucket:Bucket::b")
	seedA, seedB := providers.NewRandomSeed(urnA, stack), providers.NewRandomSeed(urnB, stack)
	if len(seedA) != 32 || string(seedA) == string(seedB) {
		t.Fatalf("seeds must be 32 bytes and differ per resource: %x %x", seedA, seedB)
	}
	if string(providers.NewRandomSeed(urnA, stack)) != string(seedA) {
		t.Fatal("NewRandomSeed is not deterministic")
	}
	if string(providers.NewRandomSeed(urnA, []byte("other"))) == string(seedA) {
		t.Fatal("NewRandomSeed ignores the stack seed")
	}

	name := providers.AutoName("bucket", seedA, 8)
	if !regexp.MustCompile(`^bucket-[0-9a-f]{8}$`).MatchString(name) {
		t.Errorf("AutoName = %q, want bucket-<8 hex>", name)
	}
	if again := providers.AutoName("bucket", seedA, 8); again != name {
		t.Errorf("AutoName is not deterministic: %q then %q", name, again)
	}
	if other := providers.AutoName("bucket", seedB, 8); other == name {
		t.Errorf("different seeds gave the same name %q", name)
	}
	for _, n := range []int{-1, 0, 1, 64, 65, 100, 1000} {
		want := n
		switch {
		case n <= 0:
			want = providers.DefaultAutoNameLength
		case n > 256:
			want = 256
		}
		if got := providers.AutoName("x", nil, n); len(got) != len("x-")+want {
			t.Errorf("AutoName(x, nil, %d) has length %d, want %d", n, len(got), len("x-")+want)
		}
	}
}
