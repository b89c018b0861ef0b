package command

import (
	"errors"
	"strings"
)

// splitArgs splits a command line into its words the way a POSIX shell
// quotes, and does nothing else a shell does: no variables, globs,
// redirections or pipes ("$HOME", "*" and "|" are plain text).
//
//   - Unquoted blanks (spaces, tabs, newlines) separate words.
//   - Single quotes keep everything up to the next single quote as is.
//   - Double quotes keep everything up to the next unescaped double quote;
//     inside them a backslash escapes only $, `, ", \ and a newline.
//   - Outside quotes a backslash keeps the next character as is; a
//     backslash before a newline joins the lines.
//   - Quoted and unquoted parts next to each other make one word, and a
//     pair of quotes with nothing between them is an empty word.
func splitArgs(line string) ([]string, error) {
	var (
		words []string
		cur   strings.Builder
		// inWord is set once the current word has begun, so that an empty
		// quoted word still counts.
		inWord bool
	)
	end := func() {
		if inWord {
			words = append(words, cur.String())
		}
		cur.Reset()
		inWord = false
	}
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch c {
		case ' ', '\t', '\n', '\r':
			end()
		case '\\':
			i++
			if i == len(line) {
				return nil, errors.New("the command line ends with a backslash that escapes nothing")
			}
			if line[i] != '\n' {
				cur.WriteByte(line[i])
				inWord = true
			}
		case '\'':
			j := strings.IndexByte(line[i+1:], '\'')
			if j < 0 {
				return nil, errors.New("the command line has a single quote (') that is never closed")
			}
			cur.WriteString(line[i+1 : i+1+j])
			i += j + 1
			inWord = true
		case '"':
			n, err := doubleQuoted(line[i+1:], &cur)
			if err != nil {
				return nil, err
			}
			i += n
			inWord = true
		default:
			cur.WriteByte(c)
			inWord = true
		}
	}
	end()
	if len(words) == 0 {
		return nil, errors.New("the command line has no words: it names no program")
	}
	return words, nil
}

// doubleQuoted copies the inside of a double-quoted part of s (which starts
// just after the opening quote) to b and returns how many bytes of s it
// used, including the closing quote.
func doubleQuoted(s string, b *strings.Builder) (int, error) {
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '"':
			return i + 1, nil
		case '\\':
			if i+1 < len(s) && strings.IndexByte("$`\"\\\n", s[i+1]) >= 0 {
				i++
				if s[i] != '\n' {
					b.WriteByte(s[i])
				}
				continue
			}
			b.WriteByte(c)
		default:
			b.WriteByte(c)
		}
	}
	return 0, errors.New("the command line has a double quote (\") that is never closed")
}
