package random

import (
	"fmt"
	"slices"
	"strings"

	"github.com/groundwork-iac/groundwork/resource"
)

// maxPetLength bounds the number of words in a Pet name.
const maxPetLength = 64

// petKind is random:index:Pet.
type petKind struct{}

func (petKind) keys() []string { return []string{"length", "separator", "prefix", "keepers"} }

func (petKind) readResult(r *reader) func() (resource.PropertyValue, error) {
	r.keepers()
	length := r.IntDefault("length", 1, maxPetLength, 2)
	sep := r.StrDefault("separator", "-")
	prefix := r.Str("prefix")
	if r.Unknown() || len(r.Failures()) > 0 {
		return nil
	}
	return func() (resource.PropertyValue, error) {
		name, err := petName(int(length.Value), sep.Value, prefix.Value)
		return resource.NewString(name), err
	}
}

// petName is the prefix (if any), length-1 adjectives and an animal,
// joined by sep.
func petName(length int, sep, prefix string) (string, error) {
	words := make([]string, 0, length+1)
	if prefix != "" {
		words = append(words, prefix)
	}
	for range length - 1 {
		w, err := pick(adjectives)
		if err != nil {
			return "", err
		}
		words = append(words, w)
	}
	w, err := pick(animals)
	if err != nil {
		return "", err
	}
	return strings.Join(append(words, w), sep), nil
}

// parseID adopts the ID as the name, its words separated by "-". Leading
// words that could not have been generated (before the adjectives that
// precede a known animal) are taken as the prefix; the rest count towards
// the length.
func (petKind) parseResult(id string) (resource.PropertyMap, resource.PropertyValue, error) {
	words := strings.Split(id, "-")
	if slices.Contains(words, "") {
		return nil, resource.PropertyValue{}, fmt.Errorf("the ID of a Pet to import is %q, want its name: words separated by \"-\", such as \"brave-otter\"", id)
	}
	start := 0
	if last := len(words) - 1; slices.Contains(animals, words[last]) {
		start = last
		for start > 0 && slices.Contains(adjectives, words[start-1]) {
			start--
		}
	}
	inputs := resource.PropertyMap{"length": resource.NewNumber(float64(len(words) - start))}
	if start > 0 {
		inputs["prefix"] = resource.NewString(strings.Join(words[:start], "-"))
	}
	if len(words)-start > maxPetLength {
		return nil, resource.PropertyValue{}, fmt.Errorf("the ID of a Pet to import is %q, which has more than %d words", id, maxPetLength)
	}
	return inputs, resource.NewString(id), nil
}
