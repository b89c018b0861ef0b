//go:build linux

package main

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// hangJS is a Node.js program that starts a child process of its own,
// creates a resource with the testfs plugin, writes the file its config
// names once the resource exists, and then never ends.
const hangJS = `"use strict";
const pulumi = require("@pulumi/pulumi");
const fs = require("fs");
const { spawn } = require("child_process");
spawn("sleep", ["300"], { stdio: "ignore" });
const config = new pulumi.Config();
const f = new pulumi.CustomResource("testfs:index:File", "a", { name: "hang.txt", content: "x", size: undefined });
f.id.apply(id => {
    if (id) fs.writeFileSync(config.require("ready"), "ready");
});
setInterval(() => {}, 1000);
`

// TestKilledGWLeavesNothing: kill -9 of a gw running a Node.js program
// (which started a child of its own) and a plugin leaves none of them
// running.
func TestKilledGWLeavesNothing(t *testing.T) {
	proj, plugins, files := nodeProject(t)
	if err := os.WriteFile(filepath.Join(proj, "hang.js"), []byte(hangJS), 0o644); err != nil {
		t.Fatal(err)
	}
	ready := filepath.Join(t.TempDir(), "ready")
	t.Chdir(proj)
	t.Setenv("GW_PASSPHRASE", "gw-test")
	cmd, out := startGW(t, ready, "up", "--yes", "--state", filepath.Join(proj, "state"), "--plugin-dir", plugins,
		"-c", "testfs:root="+files, "-c", "ready="+ready, "--", "hang.js")
	running := startedBy(t)
	if len(running) < 3 {
		t.Fatalf("gw runs %v; want node, the plugin and node's child at least\n%s", running, out)
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_, _ = cmd.Process.Wait()
	var left []int
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if left = startedBy(t); len(left) == 0 {
			return
		}
	}
	t.Errorf("5s after gw was killed, processes it started still run: %v (of %v)\n%s", left, running, commands(left))
}

// commands returns the command lines of pids, one a line.
func commands(pids []int) string {
	var b strings.Builder
	for _, pid := range pids {
		line, _ := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "cmdline"))
		b.WriteString(strings.ReplaceAll(string(line), "\x00", " ") + "\n")
	}
	return b.String()
}
