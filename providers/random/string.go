package random

import (
	"crypto/rand"
	"fmt"
	"math/big"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/groundwork-iac/groundwork/providers/internal/props"
	"github.com/groundwork-iac/groundwork/resource"
)

// The character classes of a String.
const (
	upperChars   = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
	lowerChars   = "abcdefghijklmnopqrstuvwxyz"
	numericChars = "0123456789"
	// specialChars are the special characters used unless overrideSpecial
	// names others.
	specialChars = "!#%&*()-_=+[]{}<>:?"
)

// maxStringLength bounds a String's length.
const maxStringLength = 4096

// stringKind is random:index:String.
type stringKind struct{}

func (stringKind) keys() []string {
	return []string{"length", "upper", "lower", "numeric", "special", "minUpper", "minLower", "minNumeric", "minSpecial", "overrideSpecial", "keepers"}
}

// charClass is one class of characters a String may draw from.
type charClass struct {
	name    string
	enabled props.Field[bool]
	min     props.Field[int64]
	chars   []rune
}

func (stringKind) readResult(r *reader) func() (resource.PropertyValue, error) {
	r.keepers()
	length := r.RequiredInt("length", 1, maxStringLength)
	special := r.Str("overrideSpecial")
	specials := specialChars
	if special.Set && !special.Unknown && special.Value != "" {
		specials = special.Value
	}
	classes := []charClass{
		{name: "upper", chars: []rune(upperChars)},
		{name: "lower", chars: []rune(lowerChars)},
		{name: "numeric", chars: []rune(numericChars)},
		{name: "special", chars: uniqueRunes(specials)},
	}
	anyEnabled, knownAll, minSum := false, true, int64(0)
	for i := range classes {
		c := &classes[i]
		minKey := "min" + strings.ToUpper(c.name[:1]) + c.name[1:]
		c.enabled = r.Bool(c.name, true)
		c.min = r.IntDefault(minKey, 0, maxStringLength, 0)
		knownAll = knownAll && !c.enabled.Unknown && !c.min.Unknown
		anyEnabled = anyEnabled || c.enabled.Unknown || c.enabled.Value
		if !c.enabled.Unknown && !c.enabled.Value && c.min.Value > 0 {
			r.Fail(minKey, "is %d, but %s is false", c.min.Value, c.name)
		}
		minSum += c.min.Value
	}
	if !anyEnabled {
		r.Fail("", "at least one of upper, lower, numeric and special must be true")
	}
	if knownAll && !length.Unknown && length.Set && minSum > length.Value {
		r.Fail("length", "is %d, fewer than the %d characters the min* inputs ask for together", length.Value, minSum)
	}
	if r.Unknown() || len(r.Failures()) > 0 {
		return nil
	}
	return func() (resource.PropertyValue, error) {
		s, err := generateString(int(length.Value), classes)
		if err != nil {
			return resource.PropertyValue{}, err
		}
		return resource.NewSecret(resource.NewString(s)), nil
	}
}

func uniqueRunes(s string) []rune {
	rs := []rune(s)
	slices.Sort(rs)
	return slices.Compact(rs)
}

// generateString draws each class's minimum from that class, fills up to
// length from every enabled class together, and shuffles the result.
func generateString(length int, classes []charClass) (string, error) {
	out := make([]rune, 0, length)
	var pool []rune
	for _, c := range classes {
		if !c.enabled.Value {
			continue
		}
		pool = append(pool, c.chars...)
		for range c.min.Value {
			ch, err := pick(c.chars)
			if err != nil {
				return "", err
			}
			out = append(out, ch)
		}
	}
	for len(out) < length {
		ch, err := pick(pool)
		if err != nil {
			return "", err
		}
		out = append(out, ch)
	}
	for i := len(out) - 1; i > 0; i-- {
		j, err := intn(int64(i + 1))
		if err != nil {
			return "", err
		}
		out[i], out[j] = out[j], out[i]
	}
	return string(out), nil
}

func pick[T any](from []T) (T, error) {
	i, err := intn(int64(len(from)))
	if err != nil {
		var zero T
		return zero, err
	}
	return from[i], nil
}

// intn returns a uniform random number in [0, n) from crypto/rand.
func intn(n int64) (int64, error) {
	v, err := rand.Int(rand.Reader, big.NewInt(n))
	if err != nil {
		return 0, fmt.Errorf("reading randomness: %w", err)
	}
	return v.Int64(), nil
}

// parseID adopts the ID itself as the string. Its length is the ID's and
// the other inputs take their defaults.
func (stringKind) parseResult(id string) (resource.PropertyMap, resource.PropertyValue, error) {
	if id == "" {
		return nil, resource.PropertyValue{}, fmt.Errorf("the ID of a String to import is the string itself, and it is empty")
	}
	inputs := resource.PropertyMap{"length": resource.NewNumber(float64(utf8.RuneCountInString(id)))}
	return inputs, resource.NewSecret(resource.NewString(id)), nil
}
