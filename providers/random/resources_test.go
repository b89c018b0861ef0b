package random_test

import (
	"strings"
	"testing"

	"github.com/groundwork-iac/groundwork/engine"
	"github.com/groundwork-iac/groundwork/enginetest"
	"github.com/groundwork-iac/groundwork/providers/random"
)

// Every typed constructor's outputs decode into their fields.
func TestTypedResources(t *testing.T) {
	env := enginetest.New(t)
	env.Provider(random.Package, random.Version, random.New())
	var got struct {
		str, pet, sep, uuid string
		strLen, n, lo, hi   int
		petLen              int
	}
	_, err := env.Up(func(ctx *engine.Context) error {
		s := random.NewString(ctx, "s", random.StringArgs{Length: engine.Val(12), Special: engine.Val(false)})
		i := random.NewInteger(ctx, "i", random.IntegerArgs{Min: engine.Val(1), Max: engine.Val(6)})
		u := random.NewUUID(ctx, "u", random.UUIDArgs{Keepers: engine.Val(map[string]any{"v": 1})})
		p := random.NewPet(ctx, "p", random.PetArgs{Prefix: engine.Val("mr")})
		c := ctx.Context()
		var err error
		for _, step := range []func() error{
			func() error { got.str, err = s.Result.Await(c); return err },
			func() error { got.strLen, err = s.Length.Await(c); return err },
			func() error { got.n, err = i.Result.Await(c); return err },
			func() error { got.lo, err = i.Min.Await(c); return err },
			func() error { got.hi, err = i.Max.Await(c); return err },
			func() error { got.uuid, err = u.Result.Await(c); return err },
			func() error { got.pet, err = p.Result.Await(c); return err },
			func() error { got.petLen, err = p.Length.Await(c); return err },
			func() error { got.sep, err = p.Separator.Await(c); return err },
		} {
			if err := step(); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(got.str) != 12 || got.strLen != 12 || got.n < 1 || got.n > 6 || got.lo != 1 || got.hi != 6 ||
		len(got.uuid) != 36 || !strings.HasPrefix(got.pet, "mr-") || got.petLen != 2 || got.sep != "-" {
		t.Errorf("outputs %+v", got)
	}
	if s := env.Resource(env.URN(random.StringType, "s")); !s.Outputs["result"].IsSecret() {
		t.Errorf("the string's result is not secret in the state")
	}
}
