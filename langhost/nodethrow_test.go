package langhost_test

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/groundwork-iac/groundwork/langhost"
)

// A Node.js program that throws is reported as failed, with the error it
// threw, as soon as it has thrown: within seconds, not the minute that
// Node.js's formatting of the SDK's stack frames can take (see
// nodePlainErrors). The program prints when it throws; the bound is on
// the time from then, so that a slow start of node on a busy machine does
// not count.
func TestNodeProgramThrows(t *testing.T) {
	sdk, err := filepath.Abs(filepath.Join(nodeProgramDir(t), "node_modules"))
	if err != nil {
		t.Fatal(err)
	}
	const throwing = `console.log("throwing at " + Date.now()); throw new Error("boom");`
	tests := []struct{ name, body string }{
		{"at the top level", throwing},
		{"after registering a resource", `new pulumi.ComponentResource("proj:index:Thing", "thing");` + throwing},
		{"in an apply", `pulumi.output("x").apply(() => { ` + throwing + ` });`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			files := map[string]string{
				"package.json": `{"name": "throws", "private": true, "main": "index.js"}`,
				"index.js":     "\"use strict\";\nconst pulumi = require(\"@pulumi/pulumi\");\n" + tt.body + "\n",
			}
			for name, body := range files {
				if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			if err := os.Symlink(sdk, filepath.Join(dir, "node_modules")); err != nil {
				t.Fatal(err)
			}
			eng, diags := shellEngine(t, nil)
			prog := langhost.Node(".")
			prog.Dir, prog.NoTypeScript = dir, true
			start := time.Now()
			_, err := eng.Up(testContext(t), prog.Run)
			reported := time.Now()
			all := strings.Join(diags(), "\n")
			if err == nil || !strings.Contains(err.Error()+all, "Error: boom") {
				t.Fatalf("up = %v; want a failure quoting the error thrown\n%s", err, all)
			}
			var thrown time.Time
			for _, d := range diags() {
				if ms, ok := strings.CutPrefix(d, "throwing at "); ok {
					n, err := strconv.ParseInt(ms, 10, 64)
					if err != nil {
						t.Fatalf("the program printed %q", d)
					}
					thrown = time.UnixMilli(n)
				}
			}
			if thrown.IsZero() {
				t.Fatalf("the program did not say when it threw\n%s", all)
			}
			if d := reported.Sub(thrown); d > 5*time.Second {
				t.Errorf("the failure was reported %v after the program threw (%v after the start)", d, reported.Sub(start))
			}
		})
	}
}
