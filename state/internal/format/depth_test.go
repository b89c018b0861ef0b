package format

import (
	"context"
	"errors"
	"testing"

	"github.com/groundwork-iac/groundwork/resource"
)

// nest wraps leaf in levels-1 containers of the kinds given, in turn, so
// that leaf is at depth levels (a top-level property is at depth 1).
func nest(levels int, leaf resource.PropertyValue, kinds ...string) resource.PropertyValue {
	v := leaf
	for i := 1; i < levels; i++ {
		switch kinds[i%len(kinds)] {
		case "array":
			v = resource.NewArray(v)
		case "object":
			v = resource.NewObject(resource.PropertyMap{"k": v})
		case "tag-shaped object":
			v = resource.NewObject(resource.PropertyMap{"$k": v})
		case "secret":
			v = resource.NewSecret(v)
		case "output":
			v = resource.NewOutput(resource.Output{Element: v, Known: true, Dependencies: []resource.URN{"urn:pulumi:a::b::c::d"}})
		}
	}
	return v
}

// The encoder writes every value nested up to resource.MaxDepth levels,
// which the decoder reads back, and refuses one level more before writing
// anything the decoder would refuse: a stack is never left unreadable.
func TestEncoderRefusesWhatTheDecoderCannotRead(t *testing.T) {
	ctx := context.Background()
	mgr := testManager(t)
	for _, kinds := range [][]string{
		// Every kind of level once: decoding nested tags takes time
		// quadratic in their depth, so the tagged kinds share one value.
		{"array"}, {"object"}, {"output", "tag-shaped object", "array"},
	} {
		leaves := []resource.PropertyValue{resource.NewString("x"), resource.NewArray()}
		if len(kinds) > 1 {
			leaves = leaves[:1]
		}
		for _, leaf := range leaves {
			t.Run(kinds[0]+"/"+leaf.Kind().String(), func(t *testing.T) {
				for _, levels := range []int{resource.MaxDepth, resource.MaxDepth + 1, 10000} {
					in := resource.PropertyMap{"v": nest(levels, leaf, kinds...)}
					if len(kinds) > 1 {
						// A secret at the top: its element is encoded by
						// an encoder of its own, which goes on counting.
						in["v"] = nest(levels-1, leaf, kinds...)
						in["v"] = resource.NewSecret(in["v"])
					}
					fits := levels <= resource.MaxDepth || (levels == resource.MaxDepth+1 && leaf.IsString())
					if err := in.CheckDepth(); (err == nil) != fits {
						t.Errorf("%d levels: CheckDepth = %v; want an error: %t", levels, err, !fits)
					}
					for _, unsorted := range []bool{false, true} {
						e := valueEncoder{mgr: mgr, unsorted: unsorted}
						data, err := e.appendMap(ctx, nil, in)
						if !fits {
							if !errors.Is(err, errTooDeep) {
								t.Errorf("%d levels: encode = %v; want errTooDeep", levels, err)
							}
							continue
						}
						if err != nil {
							t.Fatalf("%d levels: encode: %v", levels, err)
						}
						if _, err := decodeMap(ctx, data, mgr); err != nil {
							t.Fatalf("%d levels: the decoder refuses what the encoder wrote: %v", levels, err)
						}
					}
				}
			})
		}
	}
}
