//go:build unix

package plugin_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/groundwork-iac/groundwork/plugin"
)

// A plugin that fails to start is reported once: its error quotes the end
// of its stderr, and those lines are not also passed to Diagnostics. What
// the error does not quote still is: stdout lines, and stderr lines
// older than the quoted tail. A plugin that starts has every line it
// wrote before its port passed on, in order.
func TestStartOutputSaidOnce(t *testing.T) {
	var many strings.Builder
	for i := range 25 {
		fmt.Fprintf(&many, "echo 'line %d' >&2\n", i)
	}
	tests := []struct {
		name     string
		script   string
		opts     plugin.Options
		wantErr  []string // what the error says
		wantDiag []string // the lines passed to Diagnostics
	}{
		{
			name:     "exits before its port",
			script:   "echo 'hello from stdout'\necho 'error: no credentials' >&2\nexit 1\n",
			wantErr:  []string{"exited unexpectedly", "exit status 1", "error: no credentials"},
			wantDiag: []string{"hello from stdout"},
		},
		{
			name:     "more stderr than its error quotes",
			script:   many.String() + "exit 3\n",
			wantErr:  []string{"exit status 3", "line 5", "line 24"},
			wantDiag: []string{"line 0", "line 1", "line 2", "line 3", "line 4"},
		},
		{
			name:     "never prints its port",
			script:   "echo 'waiting for nothing' >&2\nexec sleep 30\n",
			opts:     plugin.Options{StartTimeout: 300 * time.Millisecond},
			wantErr:  []string{"did not print its port", "waiting for nothing"},
			wantDiag: nil,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			path := filepath.Join(t.TempDir(), "pulumi-resource-broken")
			if err := os.WriteFile(path, []byte("#!/bin/sh\n"+tt.script), 0o755); err != nil {
				t.Fatal(err)
			}
			var diag lines
			opts := tt.opts
			opts.Diagnostics = diag.add
			p, err := plugin.Start(t.Context(), "broken", path, opts)
			if err == nil {
				p.Close(t.Context())
				t.Fatal("Start succeeded")
			}
			for _, want := range tt.wantErr {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("Start = %v; want it to say %q", err, want)
				}
			}
			if diff := cmp.Diff(tt.wantDiag, diag.all()); diff != "" {
				t.Errorf("diagnostics (-want +got):\n%s", diff)
			}
		})
	}

	t.Run("starts", func(t *testing.T) {
		var diag lines
		p := launch(t, plugin.Options{Env: withMode("chatty"), Diagnostics: diag.add})
		configure(t, p, nil)
		got := diag.all()
		var stdout []string
		pid := false
		for _, l := range got {
			if strings.HasPrefix(l, "testplugin: pid=") {
				pid = true
			} else if !strings.HasPrefix(l, "testplugin:") {
				stdout = append(stdout, l)
			}
		}
		if !pid {
			t.Errorf("diagnostics = %q; want the stderr line written before the port", got)
		}
		if diff := cmp.Diff([]string{"starting up", "port coming next"}, stdout); diff != "" {
			t.Errorf("stdout lines passed on (-want +got):\n%s", diff)
		}
	})
}
