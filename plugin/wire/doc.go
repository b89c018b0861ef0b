// Package wire converts property values to and from the form they take on
// the Pulumi gRPC wire protocol: google.protobuf.Struct and Value. It is the
// only place that knows that form; the plugin client and server call it, and
// nothing in resource, stepgen or dag ever sees a protobuf type.
//
// # What is on the wire
//
// Null, bool, number, string, array and object map to the protobuf kinds
// of the same name. The other kinds travel as ordinary values that the
// receiver recognizes:
//
//   - An unknown is a sentinel string. There is one per type (bool, number,
//     string, array, asset, archive, object: UnknownBoolValue, ...); all of
//     them read as unknown, and an unknown is written as UnknownStringValue.
//   - A secret, an asset, an archive, a resource reference and an output
//     value are objects with the reserved key SignatureKey, whose value is
//     the kind's signature (SecretSig, AssetSig, ...), beside the kind's
//     fields: "value" for a secret; "hash", "text", "path", "uri" for an
//     asset; "hash", "assets", "path", "uri" for an archive; "urn", "id"
//     (custom resources only, "" while unknown) and "packageVersion" for a
//     resource reference; "value" (only when known), "secret" and
//     "dependencies" for an output value.
//
// # Options: what the peer understands
//
// A peer declares what it accepts (a plugin in its Handshake and Configure
// answers, the engine in its Configure request). Options carry that
// declaration; what the peer does not accept is degraded to what it stands
// for rather than sent in a form it would misread — see Options. The
// degradation applies in both directions, so a side that does not want, say,
// output values can unmarshal with KeepOutputValues off and still read a
// peer that sends them.
//
// Malformed input (an unknown signature, a field of the wrong type) is an
// *Error that names the property path where it was found; unmarshaling never
// panics, whatever it is given (see FuzzUnmarshal).
//
// ConfigVariables and ParseConfigVariables handle the legacy string form of
// provider configuration that older plugins read from Configure.
package wire
