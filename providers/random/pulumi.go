package random

import (
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"golang.org/x/crypto/bcrypt"

	"github.com/groundwork-iac/groundwork/providers/internal/props"

	"github.com/groundwork-iac/groundwork/resource"
)

// PulumiVersion is the version of pulumi-random whose resource types the
// provider serves (the RandomPet types below), under which Register also
// records it. It claims every 4.x version (see providers.ClaimMajor).
const PulumiVersion = "4.21.1"

// The resource types of pulumi-random (major version 4) that the provider
// serves, with the inputs, outputs and IDs that package documents.
const (
	RandomPetType      = "random:index/randomPet:RandomPet"
	RandomStringType   = "random:index/randomString:RandomString"
	RandomPasswordType = "random:index/randomPassword:RandomPassword"
	RandomIntegerType  = "random:index/randomInteger:RandomInteger"
	RandomIDType       = "random:index/randomId:RandomId"
	RandomUUIDType     = "random:index/randomUuid:RandomUuid"
	RandomUUID4Type    = "random:index/randomUuid4:RandomUuid4"
	RandomUUID7Type    = "random:index/randomUuid7:RandomUuid7"
	RandomShuffleType  = "random:index/randomShuffle:RandomShuffle"
	RandomBytesType    = "random:index/randomBytes:RandomBytes"
)

// pulumiKinds are the kinds of pulumi-random's types.
func pulumiKinds() map[string]kind {
	return map[string]kind{
		RandomPetType:      randomPet{},
		RandomStringType:   randomString{},
		RandomPasswordType: randomString{password: true},
		RandomIntegerType:  randomInteger{},
		RandomIDType:       randomID{},
		RandomUUIDType:     randomUUID{},
		RandomUUID4Type:    randomUUID{},
		RandomUUID7Type:    randomUUID{v7: true},
		RandomShuffleType:  randomShuffle{},
		RandomBytesType:    randomBytes{},
	}
}

// pulumiKind holds what pulumi-random's types share: the checked inputs
// are what the program gave; the defaults show in the outputs.
type pulumiKind struct{}

func (pulumiKind) inputDefaults() bool { return false }

// noneID is the ID pulumi-random gives every resource whose value must
// not show in it (a password, bytes).
const noneID resource.ID = "none"

// maxPulumiLength bounds the length of a RandomString, RandomPassword,
// RandomId and RandomBytes (pulumi-random sets no bound; this one keeps a
// typo from asking for gigabytes).
const maxPulumiLength = 1 << 16

// randomPet is RandomPet: its name is its ID, and no output holds it.
type randomPet struct{ pulumiKind }

func (randomPet) keys() []string { return []string{"keepers", "length", "prefix", "separator"} }

func (randomPet) computed() []string { return nil }

func (randomPet) read(r *reader) func() (value, error) {
	generate := petKind{}.readResult(r)
	if generate == nil {
		return nil
	}
	return func() (value, error) {
		name, err := generate()
		return value{id: resource.ID(name.StringValue()), outputs: resource.PropertyMap{}}, err
	}
}

func (randomPet) parseID(id string) (resource.PropertyMap, value, error) {
	inputs, _, err := petKind{}.parseResult(id)
	return inputs, value{id: resource.ID(id), outputs: resource.PropertyMap{}}, err
}

// pulumiSpecial are the special characters of a RandomString or
// RandomPassword unless overrideSpecial names others.
const pulumiSpecial = "!@#$%&*()-_=+[]{}<>:?"

// randomString is RandomString, or RandomPassword when password is set: a
// password's result is secret, it has a bcrypt hash of it, and its ID is
// "none"; a string's ID is the string.
type randomString struct {
	pulumiKind
	password bool
}

func (randomString) keys() []string {
	return []string{"keepers", "length", "lower", "minLower", "minNumeric", "minSpecial", "minUpper", "number", "numeric", "overrideSpecial", "special", "upper"}
}

func (s randomString) computed() []string {
	if s.password {
		return []string{"result", "bcryptHash"}
	}
	return []string{"result"}
}

func (s randomString) read(r *reader) func() (value, error) {
	r.keepers()
	length := r.RequiredInt("length", 1, maxPulumiLength)
	override := r.Str("overrideSpecial")
	specials := pulumiSpecial
	if override.Value != "" {
		specials = override.Value
	}
	numeric := r.numeric()
	classes := []charClass{
		{name: "upper", enabled: r.Bool("upper", true), chars: []rune(upperChars)},
		{name: "lower", enabled: r.Bool("lower", true), chars: []rune(lowerChars)},
		{name: "numeric", enabled: numeric, chars: []rune(numericChars)},
		{name: "special", enabled: r.Bool("special", true), chars: uniqueRunes(specials)},
	}
	anyEnabled, knownAll, minSum := false, !length.Unknown, int64(0)
	for i := range classes {
		c := &classes[i]
		c.min = r.IntDefault("min"+strings.ToUpper(c.name[:1])+c.name[1:], 0, maxPulumiLength, 0)
		knownAll = knownAll && !c.min.Unknown
		anyEnabled = anyEnabled || c.enabled.Unknown || c.enabled.Value
		minSum += c.min.Value
	}
	if !anyEnabled {
		r.Fail("", "at least one of upper, lower, numeric and special must be true")
	}
	if knownAll && length.Set && minSum > length.Value {
		r.Fail("length", "is %d, fewer than the %d characters minUpper, minLower, minNumeric and minSpecial ask for together", length.Value, minSum)
	}
	if r.Unknown() || len(r.Failures()) > 0 {
		return nil
	}
	return func() (value, error) {
		result, err := drawString(int(length.Value), classes)
		if err != nil {
			return value{}, err
		}
		return s.value(result)
	}
}

// numeric reads numeric and number, the old name of the same input: each
// defaults to the other, then to true.
func (r *reader) numeric() (numeric props.Field[bool]) {
	_, numericSet, _ := r.Value("numeric")
	_, numberSet, _ := r.Value("number")
	switch {
	case numericSet && !numberSet:
		numeric = r.Bool("numeric", true)
		r.SetDefault("number", r.Out()["numeric"])
	case numberSet && !numericSet:
		numeric = r.Bool("number", true)
		r.SetDefault("numeric", r.Out()["number"])
	default:
		numeric = r.Bool("numeric", true)
		number := r.Bool("number", true)
		if !numeric.Unknown && !number.Unknown && numeric.Value != number.Value {
			r.Fail("number", "is %v but numeric is %v; number is the deprecated name of numeric: give only numeric", number.Value, numeric.Value)
		}
	}
	return numeric
}

// drawString draws each class's minimum from that class (enabled or not,
// as pulumi-random does), fills up to length from the enabled classes
// together, and shuffles the result.
func drawString(length int, classes []charClass) (string, error) {
	out := make([]rune, 0, length)
	var pool []rune
	for _, c := range classes {
		if c.enabled.Value {
			pool = append(pool, c.chars...)
		}
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
	if err := shuffle(out); err != nil {
		return "", err
	}
	return string(out), nil
}

// value is the string's outputs and ID.
func (s randomString) value(result string) (value, error) {
	if !s.password {
		return value{id: resource.ID(result), outputs: resource.PropertyMap{"result": resource.NewString(result)}}, nil
	}
	// bcrypt reads at most 72 bytes; pulumi-random hashes the first 72.
	b := []byte(result)
	if len(b) > 72 {
		b = b[:72]
	}
	hash, err := bcrypt.GenerateFromPassword(b, bcrypt.DefaultCost)
	if err != nil {
		return value{}, fmt.Errorf("hashing the password: %w", err)
	}
	return value{id: noneID, outputs: resource.PropertyMap{
		"result":     resource.NewSecret(resource.NewString(result)),
		"bcryptHash": resource.NewSecret(resource.NewString(string(hash))),
	}}, nil
}

// parseID adopts the ID as the string; its length is the ID's, the other
// inputs take their defaults.
func (s randomString) parseID(id string) (resource.PropertyMap, value, error) {
	if id == "" {
		return nil, value{}, fmt.Errorf("the ID of a string to import is the string itself, and it is empty")
	}
	v, err := s.value(id)
	return resource.PropertyMap{"length": resource.NewNumber(float64(utf8.RuneCountInString(id)))}, v, err
}

// randomInteger is RandomInteger: its ID is the number in decimal.
type randomInteger struct{ pulumiKind }

func (randomInteger) keys() []string { return []string{"keepers", "max", "min", "seed"} }

func (randomInteger) computed() []string { return []string{"result"} }

func (randomInteger) read(r *reader) func() (value, error) {
	generate := integerKind{}.readResult(r)
	if generate == nil {
		return nil
	}
	return func() (value, error) {
		n, err := generate()
		return integerValue(int64(n.NumberValue())), err
	}
}

func integerValue(n int64) value {
	return value{id: resource.ID(strconv.FormatInt(n, 10)), outputs: resource.PropertyMap{"result": resource.NewNumber(float64(n))}}
}

// parseID adopts "RESULT,MIN,MAX" or "RESULT,MIN,MAX,SEED", as
// pulumi-random documents.
func (randomInteger) parseID(id string) (resource.PropertyMap, value, error) {
	parts := strings.SplitN(id, ",", 4)
	if len(parts) < 3 {
		return nil, value{}, fmt.Errorf("the ID of a RandomInteger to import is %q, want the number, min and max, and optionally the seed, separated by commas (\"7,1,10\" or \"7,1,10,seed\")", id)
	}
	inputs, n, err := integerKind{}.parseResult(strings.Join(parts[:3], ","))
	if err != nil {
		return nil, value{}, err
	}
	if len(parts) == 4 {
		inputs["seed"] = resource.NewString(parts[3])
	}
	return inputs, integerValue(int64(n.NumberValue())), nil
}

// randomUUID is RandomUuid and RandomUuid4 (a version 4 UUID), or
// RandomUuid7 when v7 is set (a version 7 UUID, which begins with the time
// it was made): its ID is the UUID. Any UUID can be imported as any of
// them.
type randomUUID struct {
	pulumiKind
	v7 bool
}

func (randomUUID) keys() []string { return []string{"keepers"} }

func (randomUUID) computed() []string { return []string{"result"} }

func (u randomUUID) read(r *reader) func() (value, error) {
	if generate := (uuidKind{}).readResult(r); generate == nil {
		return nil
	}
	if u.v7 {
		return func() (value, error) { return uuidValue(newUUID7(time.Now())), nil }
	}
	return func() (value, error) { return uuidValue(newUUID()), nil }
}

func uuidValue(u string) value {
	return value{id: resource.ID(u), outputs: resource.PropertyMap{"result": resource.NewString(u)}}
}

func (randomUUID) parseID(id string) (resource.PropertyMap, value, error) {
	inputs, u, err := uuidKind{}.parseResult(id)
	if err != nil {
		return nil, value{}, err
	}
	return inputs, uuidValue(u.StringValue()), nil
}
