package wire_test

import (
	"encoding/json"
	"fmt"

	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/groundwork-iac/groundwork/plugin/wire"
	"github.com/groundwork-iac/groundwork/resource"
)

// A peer that does not accept secrets gets their plain values.
func ExampleMarshalProperties() {
	props := resource.PropertyMap{
		"name":     resource.NewString("web"),
		"password": resource.NewSecret(resource.NewString("hunter2")),
	}
	s, err := wire.MarshalProperties(props, wire.Options{KeepUnknowns: true})
	if err != nil {
		panic(err)
	}
	b, _ := protojson.Marshal(s)
	var m map[string]any
	_ = json.Unmarshal(b, &m)
	fmt.Println(m)
	// Output: map[name:web password:hunter2]
}

// Any unknown sentinel reads as the unknown value.
func ExampleUnmarshalValue() {
	v, err := wire.UnmarshalValue(structpb.NewStringValue(wire.UnknownNumberValue), wire.KeepAll())
	fmt.Println(v, err)
	// Output: [unknown] <nil>
}
