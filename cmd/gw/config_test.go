package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestConfigCommands sets, reads and removes config values, plain and
// secret, and checks what lands in Pulumi.<stack>.yaml.
func TestConfigCommands(t *testing.T) {
	t.Setenv("GW_PASSPHRASE", "gw-test")
	dir := inSiteProject(t)
	for _, args := range [][]string{
		{"config", "set", "dir", "/tmp/www"},
		{"config", "set", "--secret", "token", "t0k3n"},
		{"config", "set", "aws:region", "eu-west-1"},
		{"config", "set", "-s", "prod", "dir", "/srv/www"},
	} {
		if code, out, errOut := gw(t, args...); code != exitOK {
			t.Fatalf("gw %q: status %d\n%s%s", args, code, out, errOut)
		}
	}
	file, err := os.ReadFile(filepath.Join(dir, "Pulumi.dev.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"encryptionsalt: v1:", "config:\n  site:dir: /tmp/www\n  site:token:\n    secure: v1:", "aws:region: eu-west-1"} {
		if !strings.Contains(string(file), want) {
			t.Errorf("Pulumi.dev.yaml lacks %q:\n%s", want, file)
		}
	}
	if strings.Contains(string(file), "t0k3n") {
		t.Errorf("Pulumi.dev.yaml holds the secret in plaintext:\n%s", file)
	}

	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"config", "get", "dir"}, "/tmp/www\n"},
		{[]string{"config", "get", "site:token"}, "t0k3n\n"},
		{[]string{"config"}, "KEY          VALUE\naws:region   eu-west-1\nsite:dir     /tmp/www\nsite:token   [secret]\n"},
		{[]string{"config", "--show-secrets"}, "KEY          VALUE\naws:region   eu-west-1\nsite:dir     /tmp/www\nsite:token   t0k3n\n"},
		{[]string{"config", "--json"}, `{
  "aws:region": {
    "value": "eu-west-1",
    "secret": false
  },
  "site:dir": {
    "value": "/tmp/www",
    "secret": false
  },
  "site:token": {
    "secret": true
  }
}
`},
		{[]string{"config", "get", "token", "--json"}, "{\n  \"value\": \"t0k3n\",\n  \"secret\": true\n}\n"},
		{[]string{"config", "get", "dir", "--stack", "prod"}, "/srv/www\n"},
	} {
		code, out, errOut := gw(t, tc.args...)
		if code != exitOK || out != tc.want {
			t.Errorf("gw %q: status %d, stdout %q, stderr %q; want %q", tc.args, code, out, errOut, tc.want)
		}
	}

	if code, _, errOut := gw(t, "config", "rm", "dir"); code != exitOK {
		t.Fatalf("config rm: status %d: %s", code, errOut)
	}
	code, _, errOut := gw(t, "config", "get", "dir")
	if want := "error: stack dev has no config value site:dir: set it with \"gw config set dir VALUE\"\n"; code != exitError || errOut != want {
		t.Errorf("config get of a removed key: status %d, stderr %q; want %q", code, errOut, want)
	}
	t.Setenv("GW_PASSPHRASE", "wrong")
	code, _, errOut = gw(t, "config", "get", "token")
	if want := "error: config site:token in Pulumi.dev.yaml: the passphrase is wrong: it does not open the file's secure values\n"; code != exitError || errOut != want {
		t.Errorf("config get with a wrong passphrase: status %d, stderr %q; want %q", code, errOut, want)
	}
}

// TestConfigWrittenByPulumi reads a Pulumi.<stack>.yaml as the Pulumi CLI
// writes it (comments, other namespaces, structured values, a value
// Pulumi encrypted), and changes it without losing any of that.
func TestConfigWrittenByPulumi(t *testing.T) {
	t.Setenv("GW_PASSPHRASE", "")
	t.Setenv("PULUMI_CONFIG_PASSPHRASE", "correct horse")
	dir := inSiteProject(t)
	orig, err := os.ReadFile(filepath.Join(packageDir, "testdata", "pulumi-config", "Pulumi.prod.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "Pulumi.prod.yaml")
	if err := os.WriteFile(path, orig, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"config", "get", "token", "-s", "prod"}, "s3cr3t value\n"},
		{[]string{"config", "get", "limits", "-s", "prod"}, `{"replicas":3,"zones":["a","b"]}` + "\n"},
		{[]string{"config", "-s", "prod"}, "KEY           VALUE\naws:region    eu-west-1\nsite:dir      /srv/www\nsite:limits   {\"replicas\":3,\"zones\":[\"a\",\"b\"]}\nsite:token    [secret]\n"},
	} {
		code, out, errOut := gw(t, tc.args...)
		if code != exitOK || out != tc.want {
			t.Errorf("gw %q: status %d, stdout %q, stderr %q; want %q", tc.args, code, out, errOut, tc.want)
		}
	}
	if code, _, errOut := gw(t, "config", "set", "--secret", "-s", "prod", "password", "hunter2"); code != exitOK {
		t.Fatalf("config set: %d %s", code, errOut)
	}
	got, _ := os.ReadFile(path)
	for _, want := range []string{"# Written as the Pulumi CLI writes", "aws:region: eu-west-1 # the provider's",
		"encryptionsalt: v1:Ka4XYBWDd74=:v1:Uu7LAdqtdZHjf2ZL:j+sN08k9Ryf01psiERbRHZaxSKNL/g==\n",
		"    zones:\n      - a\n", "  site:password:\n    secure: v1:"} {
		if !strings.Contains(string(got), want) {
			t.Errorf("after config set, the file lacks %q:\n%s", want, got)
		}
	}
	if code, out, _ := gw(t, "config", "get", "password", "-s", "prod"); out != "hunter2\n" {
		t.Errorf("config get of the new secret: %d %q", code, out)
	}
}
