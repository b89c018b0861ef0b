package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/pulumi/pulumi/sdk/v3/go/common/resource/config"
	"gopkg.in/yaml.v3"
)

// TestConfigReadByPulumi sets values a YAML reader would take for another
// type: the Pulumi SDK's own reading of Pulumi.dev.yaml's config (its
// config.Map, read from YAML as the Pulumi CLI reads the file) gives back
// the same strings.
func TestConfigReadByPulumi(t *testing.T) {
	dir := inSiteProject(t)
	values := []string{"0123", "0x1F", "1e3", "null", "yes", "~", "2", "true", "", "on", "-1", ".inf", "plain", "a: b", "- x", "#c"}
	for i, v := range values {
		if code, out, errOut := gw(t, "config", "set", fmt.Sprintf("k%d", i), "--", v); code != exitOK {
			t.Fatalf("config set k%d %q: %d\n%s%s", i, v, code, out, errOut)
		}
	}
	file, err := os.ReadFile(filepath.Join(dir, "Pulumi.dev.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var stack struct {
		Config config.Map `yaml:"config"`
	}
	if err := yaml.Unmarshal(file, &stack); err != nil {
		t.Fatal(err)
	}
	got, err := stack.Config.Decrypt(config.NewPanicCrypter())
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range values {
		if g, ok := got[config.MustParseKey(fmt.Sprintf("site:k%d", i))]; !ok || g != v {
			t.Errorf("Pulumi reads site:k%d as %q (set: %v); gw set %q\n%s", i, g, ok, v, file)
		}
		// And gw reads them back too.
		if code, out, _ := gw(t, "config", "get", fmt.Sprintf("k%d", i)); code != exitOK || out != v+"\n" {
			t.Errorf("gw config get k%d: %d %q; want %q", i, code, out, v)
		}
	}
}

// TestConcurrentConfigSet runs 20 gw config set at once, half of them
// secrets, on one stack: every key lands.
func TestConcurrentConfigSet(t *testing.T) {
	t.Parallel()
	bin := gwBinary(t)
	dir := siteProject(t)
	const n = 20
	var wg sync.WaitGroup
	errs := make([]error, n)
	outs := make([][]byte, n)
	for i := range n {
		wg.Go(func() {
			args := []string{"config", "set", fmt.Sprintf("k%d", i), fmt.Sprintf("v%d", i)}
			if i%2 == 1 {
				args = append(args, "--secret")
			}
			cmd := exec.Command(bin, args...)
			cmd.Dir = dir
			cmd.Env = append(os.Environ(), "GW_PASSPHRASE=gw-test")
			outs[i], errs[i] = cmd.CombinedOutput()
		})
	}
	wg.Wait()
	for i := range n {
		if errs[i] != nil {
			t.Errorf("config set k%d: %v\n%s", i, errs[i], outs[i])
		}
	}
	code, out := gwIn(t, dir, []string{"GW_PASSPHRASE=gw-test"}, "config", "--show-secrets")
	if code != exitOK {
		t.Fatalf("config: %d %s", code, out)
	}
	for i := range n {
		if want := fmt.Sprintf("site:k%d ", i); !strings.Contains(out, want) || !strings.Contains(out, fmt.Sprintf(" v%d\n", i)) {
			t.Errorf("key k%d was lost:\n%s", i, out)
		}
	}
}

// TestConfigPath sets, reads and removes values inside structures, as
// "pulumi config set --path" does, and Pulumi reads them back.
func TestConfigPath(t *testing.T) {
	t.Setenv("GW_PASSPHRASE", "gw-test")
	dir := inSiteProject(t)
	for _, args := range [][]string{
		{"config", "set", "--path", "servers[0].host", "a.example"},
		{"config", "set", "--path", "servers[0].port", "8080"},
		{"config", "set", "--path", "servers[1].host", "b.example"},
		{"config", "set", "--path", "servers[1].tls", "true"},
		{"config", "set", "--path", "zip", "0123"},
		{"config", "set", "--path", `tags["app.kubernetes.io/name"]`, "web"},
		{"config", "set", "--path", "--secret", "db.password", "hunter2"},
	} {
		if code, out, errOut := gw(t, args...); code != exitOK {
			t.Fatalf("gw %q: %d\n%s%s", args, code, out, errOut)
		}
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"config", "get", "--path", "servers[1].host"}, "b.example\n"},
		{[]string{"config", "get", "--path", "servers[0].port"}, "8080\n"},
		{[]string{"config", "get", "servers"}, `[{"host":"a.example","port":8080},{"host":"b.example","tls":true}]` + "\n"},
		{[]string{"config", "get", "--path", "servers[1].tls"}, "true\n"},
		{[]string{"config", "get", "--path", `tags["app.kubernetes.io/name"]`}, "web\n"},
		{[]string{"config", "get", "--path", "db.password"}, "hunter2\n"},
	} {
		if code, out, errOut := gw(t, tc.args...); code != exitOK || out != tc.want {
			t.Errorf("gw %q: %d %q %q; want %q", tc.args, code, out, errOut, tc.want)
		}
	}
	file, _ := os.ReadFile(filepath.Join(dir, "Pulumi.dev.yaml"))
	if strings.Contains(string(file), "hunter2") || !strings.Contains(string(file), "port: 8080\n") {
		t.Errorf("Pulumi.dev.yaml:\n%s", file)
	}
	// The Pulumi SDK reads the structure as gw wrote it.
	var stack struct {
		Config config.Map `yaml:"config"`
	}
	if err := yaml.Unmarshal(file, &stack); err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]string{"site:servers[0].port": "8080", "site:servers[1].tls": "true",
		`site:tags["app.kubernetes.io/name"]`: "web", "site:zip": "0123"} {
		key, err := config.ParseKey(path)
		if err != nil {
			t.Fatal(err)
		}
		got, ok, err := stack.Config.Get(key, true)
		if err != nil || !ok {
			t.Errorf("Pulumi does not read %s: %v %v", path, ok, err)
			continue
		}
		if s, err := got.Value(config.NewPanicCrypter()); err != nil || s != want {
			t.Errorf("Pulumi reads %s as %q (%v); want %q", path, s, err, want)
		}
	}
	if code, _, errOut := gw(t, "config", "rm", "--path", "servers[0]"); code != exitOK {
		t.Fatalf("config rm --path: %d %s", code, errOut)
	}
	if code, out, _ := gw(t, "config", "get", "--path", "servers[0].host"); code != exitOK || out != "b.example\n" {
		t.Errorf("after rm servers[0]: %d %q", code, out)
	}
	for _, bad := range []string{"servers[x]", "a..b", `["open`, "[0]"} {
		if code, _, errOut := gw(t, "config", "set", "--path", bad, "v"); code != exitUsage {
			t.Errorf("config set --path %q: %d %s; want a usage error", bad, code, errOut)
		}
	}
}
