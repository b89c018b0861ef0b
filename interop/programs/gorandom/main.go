// Command gorandom is a Pulumi Go SDK program written with pulumi-random's
// Go SDK, one resource of each of its types, deployed by the interop suite
// against groundwork's built-in random provider (no plugin installed). The
// config key "interop:petLength" sets the pet's length (default 2), so a
// test can change one input.
package main

import (
	"github.com/pulumi/pulumi-random/sdk/v4/go/random"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi/config"
)

func main() {
	pulumi.Run(func(ctx *pulumi.Context) error {
		petLength := config.New(ctx, "interop").GetInt("petLength")
		if petLength == 0 {
			petLength = 2
		}
		pet, err := random.NewRandomPet(ctx, "pet", &random.RandomPetArgs{Length: pulumi.Int(petLength)})
		if err != nil {
			return err
		}
		str, err := random.NewRandomString(ctx, "string", &random.RandomStringArgs{Length: pulumi.Int(16), Special: pulumi.Bool(false)})
		if err != nil {
			return err
		}
		pw, err := random.NewRandomPassword(ctx, "password", &random.RandomPasswordArgs{Length: pulumi.Int(20), MinSpecial: pulumi.Int(2)})
		if err != nil {
			return err
		}
		n, err := random.NewRandomInteger(ctx, "integer", &random.RandomIntegerArgs{Min: pulumi.Int(1), Max: pulumi.Int(100), Seed: pulumi.String("interop")})
		if err != nil {
			return err
		}
		id, err := random.NewRandomId(ctx, "id", &random.RandomIdArgs{ByteLength: pulumi.Int(8), Prefix: pulumi.String("p-")})
		if err != nil {
			return err
		}
		uuid, err := random.NewRandomUuid(ctx, "uuid", nil)
		if err != nil {
			return err
		}
		shuffle, err := random.NewRandomShuffle(ctx, "shuffle", &random.RandomShuffleArgs{
			Inputs: pulumi.StringArray{pulumi.String("a"), pulumi.String("b"), pulumi.String("c")}, ResultCount: pulumi.Int(2),
		})
		if err != nil {
			return err
		}
		bytes, err := random.NewRandomBytes(ctx, "bytes", &random.RandomBytesArgs{Length: pulumi.Int(16)})
		if err != nil {
			return err
		}
		ctx.Export("petName", pet.ID())
		ctx.Export("string", str.Result)
		ctx.Export("password", pw.Result)
		ctx.Export("integer", n.Result)
		ctx.Export("b64Url", id.B64Url)
		ctx.Export("uuid", uuid.Result)
		ctx.Export("results", shuffle.Results)
		ctx.Export("hex", bytes.Hex)
		return nil
	})
}
