package main

import (
	"context"
	"fmt"
	"os"

	"github.com/groundwork-iac/groundwork/engine"
)

// This file is gw's side of saved plans: "gw preview --save-plan FILE"
// writes what the preview decided, "gw up --plan FILE" applies exactly
// that (package plan).

// previewPlanned previews, saving the plan in file ("" for none).
func previewPlanned(ctx context.Context, eng *engine.Engine, prog engine.Program, opts []engine.Option, file string) (*engine.Result, error) {
	if file == "" {
		return eng.Preview(ctx, prog, opts...)
	}
	res, err := eng.Preview(ctx, prog, append(opts, engine.GeneratePlan())...)
	if err != nil {
		return res, err
	}
	data, err := eng.MarshalPlan(ctx, res.Plan)
	if err == nil {
		err = os.WriteFile(file, data, 0o600)
	}
	if err != nil {
		return res, fmt.Errorf("saving the plan: %w", err)
	}
	return res, nil
}

// withPlan adds the plan saved in file to opts ("" for none).
func withPlan(ctx context.Context, eng *engine.Engine, opts []engine.Option, file string) ([]engine.Option, error) {
	if file == "" {
		return opts, nil
	}
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, fmt.Errorf("reading the plan: %w", err)
	}
	p, err := eng.UnmarshalPlan(ctx, data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	return append(opts, engine.UsePlan(p)), nil
}
