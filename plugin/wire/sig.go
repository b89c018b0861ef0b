package wire

// SignatureKey is the reserved object key whose value says that an object on
// the wire is not a plain object but an encoded secret, asset, archive,
// resource reference or output value. Its value is one of the signatures
// below.
const SignatureKey = "4dabf18193072939515e22adb298388d"

// The signatures: the value of SignatureKey in an encoded object.
const (
	// SecretSig marks a secret: {sig, "value": element}.
	SecretSig = "1b47061264138c4ac30d75fd1eb44270"
	// AssetSig marks an asset: {sig, "hash", and one of "text", "path",
	// "uri"}.
	AssetSig = "c44067f5952c0a294b673a41bacd8c17"
	// ArchiveSig marks an archive: {sig, "hash", and one of "assets" (an
	// object of member name to asset or archive), "path", "uri"}.
	ArchiveSig = "0def7320c3a5731c473e5ecbe6d01bc7"
	// ResourceReferenceSig marks a resource reference: {sig, "urn", "id"
	// for custom resources ("" when not known yet), "packageVersion"}.
	ResourceReferenceSig = "5cf8f73096256a8f31e491e813e4eb8e"
	// OutputValueSig marks an output value: {sig, "value" when known,
	// "secret": bool, "dependencies": [URN...]}.
	OutputValueSig = "d0e6a833031e9bbcd3f4e8bde6ca49a4"
)

// The unknown sentinels: strings that stand for a value not known yet.
// Each names the type the value will have; groundwork's unknown carries no
// type, so it reads all of them as unknown and writes UnknownStringValue.
const (
	UnknownBoolValue    = "1c4a061d-8072-4f0a-a4cb-0ff528b18fe7"
	UnknownNumberValue  = "3eeb2bf0-c639-47a8-9e75-3b44932eb421"
	UnknownStringValue  = "04da6b54-80e4-46f7-96ec-b56ff0331ba9"
	UnknownArrayValue   = "6a19a0b0-7e62-4c92-b797-7f8e31da9cc2"
	UnknownAssetValue   = "030794c1-ac77-496b-92df-f27374a8bd58"
	UnknownArchiveValue = "e48ece36-62e2-4504-bad9-02848725956a"
	UnknownObjectValue  = "dd056dcd-154b-4c76-9bd3-c8f88648b5ff"
)

// IsUnknownSentinel reports whether s is one of the unknown sentinels.
func IsUnknownSentinel(s string) bool {
	switch s {
	case UnknownBoolValue, UnknownNumberValue, UnknownStringValue, UnknownArrayValue,
		UnknownAssetValue, UnknownArchiveValue, UnknownObjectValue:
		return true
	}
	return false
}

// Options says which kinds of value the peer understands. A kind the peer
// does not understand is degraded, in both directions, to what it stands for:
//
//   - without KeepUnknowns, an unknown is left out of its object, and is null
//     in an array;
//   - without KeepSecrets, a secret is its plain element;
//   - without KeepResources, a resource reference is its ID (a custom
//     resource; unknown when the ID is not known yet) or its URN (a
//     component);
//   - without KeepOutputValues, an output value is its element, unknown when
//     it is not known, wrapped as a secret when it is secret.
//
// SkipNulls leaves null properties out of marshaled objects.
type Options struct {
	KeepUnknowns     bool
	KeepSecrets      bool
	KeepResources    bool
	KeepOutputValues bool
	SkipNulls        bool
}

// KeepAll returns the options of a peer that understands every kind of
// value: nothing is degraded and nulls are kept.
func KeepAll() Options {
	return Options{KeepUnknowns: true, KeepSecrets: true, KeepResources: true, KeepOutputValues: true}
}
