package command

import (
	"context"
	"fmt"

	"github.com/groundwork-iac/groundwork/providers"
	"github.com/groundwork-iac/groundwork/providers/internal/props"
)

// localRunKeys are the arguments of the command:local:run function.
var localRunKeys = append([]string{"command"}, localBaseKeys...)

// invokeRun runs the command of a command:local:run call, in a preview as
// in an update, and returns its arguments, stdout and stderr (and the
// assets and archive its paths ask for), as pulumi-command does. wd is the
// provider's working folder (see WorkDir). A command
// that fails fails the call.
func invokeRun(ctx context.Context, wd string, req providers.InvokeRequest) (providers.InvokeResponse, error) {
	r := reader{props.NewReader(req.Args)}
	r.Only(localRunKeys...)
	b := readLocalBase(r, req.Args)
	line := r.RequiredStr("command")
	if failures := r.Failures(); len(failures) > 0 {
		return providers.InvokeResponse{Failures: failures}, nil
	}
	if !b.known() || line.Unknown {
		return providers.InvokeResponse{}, fmt.Errorf("%s: the arguments have unknown values", RunFunction)
	}
	res, err := b.exec(ctx, wd, "run", line.Value, nil)
	if err != nil {
		return providers.InvokeResponse{}, fmt.Errorf("%s: %w", RunFunction, err)
	}
	return providers.InvokeResponse{Return: b.outputs(req.Args, res)}, nil
}
