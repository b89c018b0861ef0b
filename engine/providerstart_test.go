package engine_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/groundwork-iac/groundwork/engine"
	"github.com/groundwork-iac/groundwork/enginetest"
	"github.com/groundwork-iac/groundwork/providers"
)

// loggedError is the failure of a program out of process that logged its
// cause before it exited, as langhost reports it: it has LoggedCauses.
type loggedError struct{ causes []string }

func (e *loggedError) Error() string          { return strings.Join(e.causes, "\n") }
func (e *loggedError) LoggedCauses() []string { return e.causes }

// TestFailedProviderStartReadsOnce runs programs whose resource's default
// provider fails its configuration's check: the loop records the failure
// and the registration's reply carries it back to the program, which
// fails with it; the operation's error says the cause once, whether the
// program returns the error it was given (in process) or only logged its
// text, with the monitor's words before it (an SDK program).
func TestFailedProviderStartReadsOnce(t *testing.T) {
	const cause = "the broken provider's configuration is invalid"
	for _, tc := range []struct {
		name string
		fail func(registered error) error
		want string
	}{
		{
			name: "returned",
			fail: func(registered error) error { return registered },
			want: `the program failed: resource "extra": default provider for package broken: ` +
				"check provider urn:pulumi:dev::test::pulumi:providers:broken::default: " + cause,
		},
		{
			name: "logged",
			fail: func(registered error) error { return &loggedError{causes: []string{registered.Error()}} },
			want: "check provider urn:pulumi:dev::test::pulumi:providers:broken::default: " + cause,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env := enginetest.New(t)
			env.Provider("broken", "", &providers.Func{
				CheckConfigF: func(context.Context, providers.CheckRequest) (providers.CheckResponse, error) {
					return providers.CheckResponse{}, errors.New(cause)
				},
			})
			_, err := env.Up(func(ctx *engine.Context) error {
				if err := ctx.Register("broken:index:Thing", "extra", engine.Props{}).Wait(); err != nil {
					return tc.fail(err)
				}
				return nil
			})
			if err == nil || err.Error() != tc.want || strings.Count(err.Error(), cause) != 1 {
				t.Errorf("error = %v\nwant    %s", err, tc.want)
			}
		})
	}
}
