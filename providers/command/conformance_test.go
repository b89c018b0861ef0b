package command_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/groundwork-iac/groundwork/providers"
	"github.com/groundwork-iac/groundwork/providers/command"
	"github.com/groundwork-iac/groundwork/providers/providertest"
	"github.com/groundwork-iac/groundwork/resource"
)

// The suite's resources are files: create makes one with a unique name and
// prints it, update prints the name again, delete removes what create
// printed.
func TestConformance(t *testing.T) {
	dir := t.TempDir()
	inputs := func(extra resource.PropertyMap) resource.PropertyMap {
		m := resource.PropertyMap{
			"create": str("mktemp " + filepath.Join(dir, "res.XXXXXX")),
			"update": str(`echo "$GROUNDWORK_STDOUT"`),
			"delete": str(`rm -- "$GROUNDWORK_STDOUT"`),
			"shell":  resource.NewBool(true),
		}
		for k, v := range extra {
			m[k] = v
		}
		return m
	}
	providertest.Run(t, providertest.Harness{
		New:     func(*testing.T) providers.Provider { return command.New() },
		Type:    command.CommandType,
		Inputs:  inputs(nil),
		Update:  inputs(resource.PropertyMap{"environment": resource.NewObject(resource.PropertyMap{"X": str("1")})}),
		Replace: inputs(resource.PropertyMap{"triggers": resource.NewArray(resource.NewNumber(1))}),
		Count: func() int {
			entries, err := os.ReadDir(dir)
			if err != nil {
				t.Fatal(err)
			}
			return len(entries)
		},
		RespectsCancellation: true,
	})
}

// The suite against pulumi-command's local Command: the same files, with
// pulumi-command's environment variables.
func TestLocalConformance(t *testing.T) {
	dir := t.TempDir()
	inputs := func(extra resource.PropertyMap) resource.PropertyMap {
		m := resource.PropertyMap{
			"create": str("mktemp " + filepath.Join(dir, "res.XXXXXX")),
			"update": str(`echo "$PULUMI_COMMAND_STDOUT"`),
			"delete": str(`rm -- "$PULUMI_COMMAND_STDOUT"`),
		}
		for k, v := range extra {
			m[k] = v
		}
		return m
	}
	providertest.Run(t, providertest.Harness{
		New:     func(*testing.T) providers.Provider { return command.New() },
		Type:    command.LocalCommandType,
		Inputs:  inputs(nil),
		Update:  inputs(resource.PropertyMap{"environment": resource.NewObject(resource.PropertyMap{"X": str("1")})}),
		Replace: inputs(resource.PropertyMap{"triggers": resource.NewArray(resource.NewNumber(1))}),
		Count: func() int {
			entries, err := os.ReadDir(dir)
			if err != nil {
				t.Fatal(err)
			}
			return len(entries)
		},
		RespectsCancellation: true,
	})
}
