package langhost

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"strconv"
	"strings"

	"github.com/groundwork-iac/groundwork/engine"
)

// NodeRunModule is the module of the @pulumi/pulumi package that runs a
// Node.js program against an engine: the entry point Pulumi's own Node.js
// language host starts with node.
const NodeRunModule = "@pulumi/pulumi/cmd/run"

// nodeArgv returns the command line of a Node.js program, and a function
// that removes the file it preloads:
//
//	node --require <preload> <run entry> --monitor ADDR --engine ADDR --organization ORG
//	     --project P --stack S --root-directory DIR --pwd DIR
//	     --parallel N [--dry-run] <entry> [args...]
//
// The run entry is NodeRunModule as node resolves it from the program's
// folder, i.e. the copy of @pulumi/pulumi the program itself loads. The
// run entry reads the flags (everything from <entry> on is the program's)
// and sets up the SDK's runtime with them; the configuration comes from
// PULUMI_CONFIG and PULUMI_CONFIG_SECRET_KEYS as for every SDK. Unless
// Program.NoTypeScript, PULUMI_NODEJS_TYPESCRIPT is set, as Pulumi's
// Node.js language host sets it by default: the run entry then compiles
// TypeScript modules with ts-node (see Program.NoTypeScript). The
// preload works around a Node.js bug that delays the report of an uncaught
// error by a minute (see nodePlainErrors).
func (p *Program) nodeArgv(ctx context.Context, c *engine.Context, addr string) ([]string, func(), error) {
	node := p.Node
	if node == "" {
		path, err := exec.LookPath("node")
		if err != nil {
			return nil, nil, fmt.Errorf("running a Node.js program needs node on PATH (or Program.Node): %w", err)
		}
		node = path
	}
	run, err := resolveNodeModule(ctx, node, p.Dir, NodeRunModule)
	if err != nil {
		return nil, nil, err
	}
	preload, remove, err := writeNodePreload()
	if err != nil {
		return nil, nil, err
	}
	org := p.Organization
	if org == "" {
		org = DefaultOrganization
	}
	argv := []string{node, "--require", preload, run,
		"--monitor", addr, "--engine", addr, "--organization", org,
		"--project", c.Project(), "--stack", c.Stack(), "--parallel", strconv.Itoa(parallel(c)),
	}
	if p.RootDirectory != "" {
		argv = append(argv, "--root-directory", p.RootDirectory)
	}
	if p.Dir != "" {
		argv = append(argv, "--pwd", p.Dir)
	}
	if c.Preview() {
		argv = append(argv, "--dry-run")
	}
	return append(argv, p.Command...), remove, nil
}

// resolveNodeModule asks node where module is, as the program in dir
// would load it.
func resolveNodeModule(ctx context.Context, node, dir, module string) (string, error) {
	cmd := exec.CommandContext(ctx, node, "-e", "process.stdout.write(require.resolve(process.argv[1]))", module)
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		where := dir
		if where == "" {
			where = "the current folder"
		}
		return "", fmt.Errorf("node cannot find %s from %s (install the program's dependencies, e.g. npm install @pulumi/pulumi): %w: %s",
			module, where, err, strings.TrimSpace(lastLine(stderr.String())))
	}
	return strings.TrimSpace(string(out)), nil
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		if l := strings.TrimSpace(lines[i]); l != "" {
			return l
		}
	}
	return ""
}
