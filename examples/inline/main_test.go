package main

import (
	"bytes"
	"context"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/groundwork-iac/groundwork/display"
	"github.com/groundwork-iac/groundwork/engine"
)

// changes lists a result's steps that change a resource of the program, as
// "op name", sorted.
func changes(res *engine.Result) []string {
	var out []string
	for _, st := range res.Steps {
		if st.Op == engine.StepSame || st.Op == engine.StepOutputs || !strings.HasPrefix(st.URN.Type(), "random:") {
			continue
		}
		out = append(out, string(st.Op)+" "+st.URN.Name())
	}
	slices.Sort(out)
	return out
}

// The inline SDK program deploys against the built-in random provider, a
// rerun changes nothing, a longer name replaces the pet and the password
// kept by it (and not the number), and a destroy removes everything; the
// password never reaches the state in the clear.
func TestMascotLifecycle(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	o := options{dir: dir, words: 2, mode: display.ModePlain}

	first, _, err := run(ctx, o, io.Discard)
	if err != nil {
		t.Fatalf("create: %v", err)
	}
	if diff := cmp.Diff([]string{"create lucky", "create mascot", "create password"}, changes(first)); diff != "" {
		t.Errorf("create: steps (-want +got):\n%s", diff)
	}
	name := first.Outputs["mascot"]
	if !name.IsString() || len(strings.Split(name.StringValue(), "-")) != 2 {
		t.Errorf("the mascot is %v; want a name of two words", name)
	}
	if n := first.Outputs["lucky"]; !n.IsNumber() || n.NumberValue() < 1 || n.NumberValue() > 99 {
		t.Errorf("the lucky number is %v; want 1 to 99", n)
	}
	password := first.Outputs["password"]
	if !password.IsSecret() {
		t.Fatalf("the password output is %v; want a secret", password)
	}
	plain := password.SecretElement().StringValue()
	if len(plain) != 20 {
		t.Errorf("the password has %d characters; want 20", len(plain))
	}

	second, _, err := run(ctx, o, io.Discard)
	if err != nil {
		t.Fatalf("rerun: %v", err)
	}
	if second.HasChanges() {
		t.Errorf("the rerun changed something: %v", changes(second))
	}

	o.words = 3
	third, _, err := run(ctx, o, io.Discard)
	if err != nil {
		t.Fatalf("update: %v", err)
	}
	if diff := cmp.Diff([]string{
		"create-replacement mascot", "create-replacement password",
		"delete-replaced mascot", "delete-replaced password",
		"replace mascot", "replace password",
	}, changes(third)); diff != "" {
		t.Errorf("update: steps (-want +got):\n%s", diff)
	}
	if got := third.Outputs["mascot"]; !got.IsString() || len(strings.Split(got.StringValue(), "-")) != 3 {
		t.Errorf("the new mascot is %v; want a name of three words", got)
	}

	err = filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if bytes.Contains(b, []byte(plain)) {
			t.Errorf("%s holds the password in the clear", path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}

	o.destroy = true
	gone, _, err := run(ctx, o, io.Discard)
	if err != nil {
		t.Fatalf("destroy: %v", err)
	}
	if diff := cmp.Diff([]string{"delete lucky", "delete mascot", "delete password"}, changes(gone)); diff != "" {
		t.Errorf("destroy: steps (-want +got):\n%s", diff)
	}
}

// The command prints each thing once: the display shows the outputs and
// an operation's error, and the command adds neither again. (A resource
// refused before its step also has a line of its own as it happens, as a
// failed step does; the count is of the summary: the outputs, the
// resources' counts and what follows.)
func TestCLIPrintsOnce(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		args       []string
		code       int
		once, none string
	}{
		{[]string{"-dir", dir}, 0, "\nOutputs:", "\nerror:"},
		{[]string{"-dir", dir, "-words", "0"}, 1, "\nerror:", "\nOutputs:"},
	} {
		var out, errOut strings.Builder
		code := cli(context.Background(), tc.args, &out, &errOut)
		all := "\n" + out.String() + errOut.String() // each "once" and "none" starts a line
		summary := all[strings.Index(all, "\nResources:"):]
		if i := strings.Index(all, "\nOutputs:"); i >= 0 {
			summary = all[i:]
		}
		if code != tc.code || strings.Count(summary, tc.once) != 1 || strings.Contains(all, tc.none) || errOut.Len() != 0 {
			t.Errorf("%q: exit %d; want %d, %q once in the summary, no %q, and nothing on stderr:\n%s", tc.args, code, tc.code, tc.once, tc.none, all)
		}
	}
}
