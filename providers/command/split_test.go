package command

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestSplitArgs(t *testing.T) {
	tests := []struct {
		line string
		want []string
		// unlike says a shell would read the line otherwise (by
		// expanding it, or ending a command at a newline).
		unlike bool
	}{
		{"echo hello", []string{"echo", "hello"}, false},
		{"  echo \t hello\n world  ", []string{"echo", "hello", "world"}, true},
		{`echo 'a b' "c d"`, []string{"echo", "a b", "c d"}, false},
		{`echo a\ b`, []string{"echo", "a b"}, false},
		{`echo 'it'\''s'`, []string{"echo", "it's"}, false},
		{`echo "say \"hi\""`, []string{"echo", `say "hi"`}, false},
		{`echo "a\nb"`, []string{"echo", `a\nb`}, false},
		{`echo "back\\slash" 'no\escape'`, []string{"echo", `back\slash`, `no\escape`}, false},
		{`echo "\$HOME" '$HOME' $HOME`, []string{"echo", "$HOME", "$HOME", "$HOME"}, true},
		{`echo x"y"'z'`, []string{"echo", "xyz"}, false},
		{`echo "" ''`, []string{"echo", "", ""}, false},
		{"echo one\\\ntwo", []string{"echo", "onetwo"}, false},
		{`grep -e "a|b" *.go > out`, []string{"grep", "-e", "a|b", "*.go", ">", "out"}, true},
		{`echo "multi
line"`, []string{"echo", "multi\nline"}, false},
		{`printf "%s, %s\n" hello 'wide world'`, []string{"printf", `%s, %s\n`, "hello", "wide world"}, false},
	}
	for _, tt := range tests {
		got, err := splitArgs(tt.line)
		if err != nil {
			t.Errorf("splitArgs(%q): %v", tt.line, err)
			continue
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("splitArgs(%q) (-want +got):\n%s", tt.line, diff)
		}
		// Where no expansion is involved, a shell agrees.
		if !tt.unlike {
			if sh := shellWords(t, tt.line); !cmp.Equal(sh, got) {
				t.Errorf("splitArgs(%q) = %q, but /bin/sh splits it into %q", tt.line, got, sh)
			}
		}
	}
}

// shellWords asks /bin/sh how it splits line.
func shellWords(t *testing.T, line string) []string {
	t.Helper()
	out, err := exec.Command("/bin/sh", "-c", "set -- "+line+"\n"+`printf '%s\0' "$@"`).Output()
	if err != nil {
		t.Fatalf("sh: %v", err)
	}
	words := strings.Split(string(out), "\x00")
	return words[:len(words)-1]
}

func TestSplitArgsErrors(t *testing.T) {
	for _, line := range []string{"", "   ", `echo 'open`, `echo "open`, `echo "a\"`, `echo \`} {
		if got, err := splitArgs(line); err == nil {
			t.Errorf("splitArgs(%q) = %q, want an error", line, got)
		}
	}
}

// quote writes word so that splitArgs reads it back as is.
func quote(word string) string {
	return "'" + strings.ReplaceAll(word, "'", `'\''`) + "'"
}

func FuzzSplitArgs(f *testing.F) {
	f.Add("echo", "a b", `it's "x"`)
	f.Add("", "\\", "\n")
	f.Fuzz(func(t *testing.T, a, b, c string) {
		// Any input: an error or words, never a panic.
		splitArgs(a + b + c)
		// Quoted words come back unchanged.
		words := []string{a, b, c}
		line := quote(a) + " " + quote(b) + "\t" + quote(c)
		got, err := splitArgs(line)
		if err != nil {
			t.Fatalf("splitArgs(%q): %v", line, err)
		}
		if !cmp.Equal(words, got) {
			t.Fatalf("splitArgs(%q) = %q, want %q", line, got, words)
		}
	})
}
