package random

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"math/big"
	mrand "math/rand/v2"
	"strings"

	"github.com/groundwork-iac/groundwork/resource"
)

// randomID is RandomId: random bytes written four ways, each after the
// prefix; its ID is b64Url.
type randomID struct{ pulumiKind }

func (randomID) keys() []string { return []string{"byteLength", "keepers", "prefix"} }

func (randomID) computed() []string { return []string{"b64Std", "b64Url", "dec", "hex"} }

func (randomID) read(r *reader) func() (value, error) {
	r.keepers()
	n := r.RequiredInt("byteLength", 1, maxPulumiLength)
	prefix := r.Str("prefix")
	if r.Unknown() || len(r.Failures()) > 0 {
		return nil
	}
	return func() (value, error) {
		b := make([]byte, n.Value)
		rand.Read(b) // never fails
		return idValue(prefix.Value, b), nil
	}
}

func idValue(prefix string, b []byte) value {
	str := func(s string) resource.PropertyValue { return resource.NewString(prefix + s) }
	url := prefix + base64.RawURLEncoding.EncodeToString(b)
	return value{id: resource.ID(url), outputs: resource.PropertyMap{
		"b64Std": str(base64.StdEncoding.EncodeToString(b)),
		"b64Url": resource.NewString(url),
		"dec":    str(new(big.Int).SetBytes(b).String()),
		"hex":    str(hex.EncodeToString(b)),
	}}
}

// parseID adopts "B64URL" or "PREFIX,B64URL", as pulumi-random documents.
func (randomID) parseID(id string) (resource.PropertyMap, value, error) {
	prefix, url := "", id
	if i := strings.LastIndexByte(id, ','); i >= 0 {
		prefix, url = id[:i], id[i+1:]
	}
	b, err := base64.RawURLEncoding.DecodeString(url)
	if err != nil || len(b) == 0 {
		return nil, value{}, fmt.Errorf("the ID of a RandomId to import is %q, want its b64Url without the prefix, optionally after the prefix and a comma (\"p-9E6Bsr84rkk\" or \"web-,p-9E6Bsr84rkk\")", id)
	}
	inputs := resource.PropertyMap{"byteLength": resource.NewNumber(float64(len(b)))}
	if prefix != "" {
		inputs["prefix"] = resource.NewString(prefix)
	}
	return inputs, idValue(prefix, b), nil
}

// randomBytes is RandomBytes: random bytes in base64 and hex, both
// secret; its ID is "none".
type randomBytes struct{ pulumiKind }

func (randomBytes) keys() []string { return []string{"keepers", "length"} }

func (randomBytes) computed() []string { return []string{"base64", "hex"} }

func (randomBytes) read(r *reader) func() (value, error) {
	r.keepers()
	n := r.RequiredInt("length", 1, maxPulumiLength)
	if r.Unknown() || len(r.Failures()) > 0 {
		return nil
	}
	return func() (value, error) {
		b := make([]byte, n.Value)
		rand.Read(b) // never fails
		return bytesValue(b), nil
	}
}

func bytesValue(b []byte) value {
	secret := func(s string) resource.PropertyValue { return resource.NewSecret(resource.NewString(s)) }
	return value{id: noneID, outputs: resource.PropertyMap{
		"base64": secret(base64.StdEncoding.EncodeToString(b)),
		"hex":    secret(hex.EncodeToString(b)),
	}}
}

// parseID adopts the ID as the bytes in (standard, padded) base64.
func (randomBytes) parseID(id string) (resource.PropertyMap, value, error) {
	b, err := base64.StdEncoding.DecodeString(id)
	if err != nil || len(b) == 0 {
		return nil, value{}, fmt.Errorf("the ID of a RandomBytes to import is the bytes in base64, such as \"aGVsbG8=\"")
	}
	return resource.PropertyMap{"length": resource.NewNumber(float64(len(b)))}, bytesValue(b), nil
}

// shuffleID is the ID pulumi-random gives every RandomShuffle.
const shuffleID resource.ID = "-"

// randomShuffle is RandomShuffle: results are resultCount strings from
// inputs (when not given, or 0: as many as there are), in random order; asking for
// more than there are repeats them, one whole permutation after another.
type randomShuffle struct{ pulumiKind }

func (randomShuffle) keys() []string { return []string{"inputs", "keepers", "resultCount", "seed"} }

func (randomShuffle) computed() []string { return []string{"results"} }

func (randomShuffle) read(r *reader) func() (value, error) {
	r.keepers()
	list, unknown := r.strings("inputs")
	count := r.optionalInt("resultCount", 0, maxPulumiLength)
	seed := r.Str("seed")
	if unknown || r.Unknown() || len(r.Failures()) > 0 {
		return nil
	}
	n := len(list)
	if count.Value > 0 { // 0 means as many as there are, as in pulumi-random
		n = int(count.Value)
	}
	return func() (value, error) {
		perm := cryptoPerm
		if seed.Set {
			sum := sha256.Sum256([]byte(seed.Value))
			seeded := mrand.New(mrand.NewChaCha8(sum))
			perm = func(n int) ([]int, error) { return seeded.Perm(n), nil }
		}
		results := make([]resource.PropertyValue, 0, n)
		for len(list) > 0 && len(results) < n {
			order, err := perm(len(list))
			if err != nil {
				return value{}, err
			}
			for _, i := range order[:min(len(order), n-len(results))] {
				results = append(results, resource.NewString(list[i]))
			}
		}
		return value{id: shuffleID, outputs: resource.PropertyMap{"results": resource.NewArray(results...)}}, nil
	}
}

func (randomShuffle) parseID(id string) (resource.PropertyMap, value, error) {
	return nil, value{}, fmt.Errorf("a RandomShuffle cannot be imported (pulumi-random cannot import one either); declare it and let it be created")
}

// cryptoPerm is a random permutation of [0, n) from crypto/rand.
func cryptoPerm(n int) ([]int, error) {
	p := make([]int, n)
	for i := range p {
		p[i] = i
	}
	return p, shuffle(p)
}

// shuffle puts s in a uniformly random order, from crypto/rand.
func shuffle[T any](s []T) error {
	for i := len(s) - 1; i > 0; i-- {
		j, err := intn(int64(i + 1))
		if err != nil {
			return err
		}
		s[i], s[j] = s[j], s[i]
	}
	return nil
}
