package main

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// project is what gw reads of a Pulumi.yaml: the project's name, its
// runtime and its options, and where its program is (main).
type project struct {
	// Dir is the project's folder, where its Pulumi.yaml is (the working
	// folder when there is none); the stacks' config files are there.
	Dir     string
	Name    string
	Runtime string
	Main    string
	// Options are the runtime's options (runtime.options), as strings.
	Options map[string]string
}

// readProject reads dir/Pulumi.yaml (or Pulumi.yml). A folder without one
// gives a zero project and no error.
func readProject(dir string) (project, error) {
	for _, name := range []string{"Pulumi.yaml", "Pulumi.yml"} {
		path := filepath.Join(dir, name)
		f, err := os.Open(path)
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			return project{}, err
		}
		defer f.Close()
		p, err := parseProject(bufio.NewScanner(f))
		if err != nil {
			return project{}, fmt.Errorf("%s: %w", path, err)
		}
		return p, nil
	}
	return project{}, nil
}

// findProject reads the Pulumi.yaml of start or of the nearest folder
// above it that has one, as the Pulumi CLI looks for it. Without one
// anywhere, the project is empty and its folder is start.
func findProject(start string) (project, error) {
	for dir := start; ; {
		for _, name := range []string{"Pulumi.yaml", "Pulumi.yml"} {
			if _, err := os.Stat(filepath.Join(dir, name)); err == nil {
				p, err := readProject(dir)
				p.Dir = dir
				return p, err
			}
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return project{Dir: start}, nil
		}
		dir = parent
	}
}

// parseProject reads the small part of YAML that a Pulumi.yaml's top
// level uses for these keys: "key: value" lines, a value possibly quoted
// and followed by a comment, and the mapping form of runtime ("runtime:"
// then an indented "name: nodejs" and an "options:" block of
// "key: value" lines indented further). Everything else is skipped, which
// is why gw needs no YAML library.
func parseProject(sc *bufio.Scanner) (project, error) {
	var (
		p       project
		section string // the top-level key whose indented block we are in
		options = -1   // the indentation of runtime's "options:", -1 outside it
	)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if strings.TrimSpace(line) == "" || strings.HasPrefix(strings.TrimSpace(line), "#") {
			continue
		}
		indent := len(line) - len(strings.TrimLeft(line, " \t"))
		key, value, ok := strings.Cut(strings.TrimSpace(line), ":")
		if !ok {
			continue // a list item or a continuation: not ours
		}
		key = strings.TrimSpace(key)
		value, err := scalar(value)
		if err != nil {
			return project{}, fmt.Errorf("line %d: %w", n, err)
		}
		if indent > 0 {
			switch {
			case section != "runtime":
			case options >= 0 && indent > options:
				if p.Options == nil {
					p.Options = map[string]string{}
				}
				p.Options[key] = value
			case key == "name":
				p.Runtime, options = value, -1
			case key == "options" && value == "":
				options = indent
			default:
				options = -1
			}
			continue
		}
		section, options = key, -1
		switch key {
		case "name":
			p.Name = value
		case "runtime":
			p.Runtime = value
		case "main":
			p.Main = value
		}
	}
	return p, sc.Err()
}

// scalar reads a plain or quoted YAML scalar, dropping a trailing comment.
func scalar(s string) (string, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return "", nil
	}
	if q := s[0]; q == '"' || q == '\'' {
		end := strings.IndexByte(s[1:], q)
		if end < 0 {
			return "", fmt.Errorf("unterminated quoted value %s", s)
		}
		return s[1 : end+1], nil
	}
	if i := strings.Index(s, " #"); i >= 0 {
		s = s[:i]
	}
	return strings.TrimSpace(s), nil
}

// programDir returns the folder the program runs in and its entry, as
// Pulumi does with main: without one, the project's folder and "."; with
// a folder, that folder and "."; with a file, the file's folder and its
// name.
func programDir(p project) (dir, entry string, err error) {
	wd := p.Dir
	if wd == "" {
		if wd, err = os.Getwd(); err != nil {
			return "", "", err
		}
	}
	if p.Main == "" {
		return wd, ".", nil
	}
	main := filepath.FromSlash(p.Main)
	if !filepath.IsAbs(main) {
		main = filepath.Join(wd, main)
	}
	info, err := os.Stat(main)
	if err != nil {
		return "", "", fmt.Errorf("the project's main cannot be read: %w", err)
	}
	if info.IsDir() {
		return main, ".", nil
	}
	return filepath.Dir(main), filepath.Base(main), nil
}
