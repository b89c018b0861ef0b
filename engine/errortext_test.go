package engine_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/groundwork-iac/groundwork/engine"
	"github.com/groundwork-iac/groundwork/enginetest"
	"github.com/groundwork-iac/groundwork/providers/random"
	"github.com/groundwork-iac/groundwork/resource"
	"github.com/groundwork-iac/groundwork/state"
	"github.com/groundwork-iac/groundwork/state/filestore"
)

// TestErrorText pins the exact text of representative errors: each reads
// once, as one chain, without package names.
func TestErrorText(t *testing.T) {
	t.Run("a wrong passphrase", func(t *testing.T) {
		root := t.TempDir()
		env := newEnv(t, newCloud())
		open := func(pass string) state.Store {
			s, err := filestore.New(root, state.WithSecrets(state.PassphraseSecrets(pass)))
			if err != nil {
				t.Fatal(err)
			}
			return s
		}
		env.Store = open("right")
		if _, err := env.Up(func(ctx *engine.Context) error {
			ctx.Register(thing, "a", engine.Props{"password": resource.NewSecret(resource.NewString("hunter2"))})
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		env.Store = open("wrong")
		_, err := env.Up(func(ctx *engine.Context) error { return nil })
		want := `loading stack "` + env.StackID().String() + `": the passphrase is wrong: it does not decrypt the check value recorded with this stack's state`
		if err == nil || err.Error() != want {
			t.Errorf("error = %v\nwant    %s", err, want)
		}
	})
	t.Run("a cancelled update", func(t *testing.T) {
		_, _, err := upCancelledDuringB(t)
		want := "the update was cancelled (interrupted): no new step was started; " +
			"the steps already running finished, and the state records every change made (create: 3)"
		if err == nil || err.Error() != want {
			t.Errorf("error = %v\nwant    %s", err, want)
		}
		var ce *engine.CancelledError
		if !errors.As(err, &ce) || ce.Recorded[engine.StepCreate] != 3 {
			t.Errorf("error = %#v; want a *CancelledError recording the 3 creates (the stack, a, b; the default provider is not counted)", err)
		}
	})
	t.Run("a resource type its provider does not have", func(t *testing.T) {
		env := enginetest.New(t)
		env.Provider("random", "", random.New())
		_, err := env.Up(func(ctx *engine.Context) error {
			ctx.Register("random:index:Dice", "d", engine.Props{})
			return nil
		})
		urn := env.URN("random:index:Dice", "d")
		want := "checking " + string(urn) + ": the random provider has no resource type \"random:index:Dice\" " +
			"(it manages random:index/randomBytes:RandomBytes, random:index/randomId:RandomId, random:index/randomInteger:RandomInteger, " +
			"random:index/randomPassword:RandomPassword, random:index/randomPet:RandomPet, random:index/randomShuffle:RandomShuffle, " +
			"random:index/randomString:RandomString, random:index/randomUuid4:RandomUuid4, random:index/randomUuid7:RandomUuid7, random:index/randomUuid:RandomUuid, " +
			"random:index:Integer, random:index:Pet, random:index:String, random:index:UUID)"
		if err == nil || err.Error() != want || strings.Count(err.Error(), string(urn)) != 1 {
			t.Errorf("error = %v\nwant    %s", err, want)
		}
	})
	t.Run("a cancelled preview", func(t *testing.T) {
		env := newEnv(t, newCloud())
		ctx, cancel := context.WithCancelCause(context.Background())
		cancel(errors.New("interrupted"))
		_, err := env.Engine().Preview(ctx, func(c *engine.Context) error { return nil })
		want := "the preview was cancelled (interrupted): no new step was started, and nothing was changed"
		if err == nil || err.Error() != want {
			t.Errorf("error = %v\nwant    %s", err, want)
		}
	})
}
