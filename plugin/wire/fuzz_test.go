package wire_test

import (
	"encoding/json"
	"testing"

	"google.golang.org/protobuf/types/known/structpb"

	"github.com/groundwork-iac/groundwork/plugin/wire"
)

// FuzzUnmarshal feeds arbitrary JSON, read as a wire value, to the
// unmarshaler under several option sets. It must never panic, and whatever
// it accepts must marshal and unmarshal back to the same value.
func FuzzUnmarshal(f *testing.F) {
	for _, tt := range roundTrips {
		f.Add(tt.json)
	}
	f.Add(`{"a":[1,2,{"b":"` + wire.UnknownObjectValue + `"}]}`)
	f.Add(sigJSON(wire.OutputValueSig, `"value":`+sigJSON(wire.SecretSig, `"value":`+sigJSON(wire.ResourceReferenceSig, `"urn":"u","id":""`))))
	f.Add(sigJSON(wire.ArchiveSig, `"assets":{"x":`+sigJSON(wire.ArchiveSig, `"assets":{}`)+`}`))
	f.Fuzz(func(t *testing.T, data string) {
		var decoded any
		if json.Unmarshal([]byte(data), &decoded) != nil {
			return
		}
		w, err := structpb.NewValue(decoded)
		if err != nil {
			return
		}
		all := wire.KeepAll()
		for _, opts := range []wire.Options{all, {}, {KeepUnknowns: true}, {KeepSecrets: true, KeepOutputValues: true}} {
			v, err := wire.UnmarshalValue(w, opts)
			if err != nil {
				continue
			}
			back, err := wire.MarshalValue(v, all)
			if err != nil {
				t.Fatalf("MarshalValue of unmarshaled %v: %v", v, err)
			}
			again, err := wire.UnmarshalValue(back, all)
			if err != nil {
				t.Fatalf("UnmarshalValue of remarshaled %v: %v", v, err)
			}
			if !again.DeepEquals(v) {
				t.Fatalf("round trip changed the value:\nfirst:  %v\nsecond: %v", v, again)
			}
		}
		if s := w.GetStructValue(); s != nil {
			_, _ = wire.UnmarshalProperties(s, all)
		}
	})
}
