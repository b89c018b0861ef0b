package main

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/groundwork-iac/groundwork/resource"
)

// This file is "gw config --path": a key that is a path into a structured
// value, as the Pulumi CLI reads it: names joined by dots, list indexes in
// brackets, and names that hold dots in brackets and quotes
// ('servers[0].host', 'tags["app.kubernetes.io/name"]'). As in the Pulumi
// CLI, a value set inside a structure that reads as a boolean or an
// integer is written as one.

// pathStep is one step of a config path: a name, or an index.
type pathStep struct {
	name  string
	index int // -1 for a name
}

// parsePath reads a config path. Its first step is a name: the config
// key.
func parsePath(path string) ([]pathStep, error) {
	var steps []pathStep
	bad := func(why string) error { return usagef("config path %q: %s", path, why) }
	for rest := path; rest != ""; {
		switch {
		case strings.HasPrefix(rest, `["`):
			end := strings.Index(rest, `"]`)
			if end < 0 {
				return nil, bad(`a ["name"] is not closed`)
			}
			steps = append(steps, pathStep{name: rest[2:end], index: -1})
			rest = rest[end+2:]
		case rest[0] == '[':
			end := strings.IndexByte(rest, ']')
			if end < 0 {
				return nil, bad("an [index] is not closed")
			}
			i, err := strconv.Atoi(rest[1:end])
			if err != nil || i < 0 {
				return nil, bad(fmt.Sprintf("%q is not a list index", rest[1:end]))
			}
			steps = append(steps, pathStep{index: i})
			rest = rest[end+1:]
		default:
			end := strings.IndexAny(rest, ".[")
			if end < 0 {
				end = len(rest)
			}
			if end == 0 {
				return nil, bad("a name is empty")
			}
			steps = append(steps, pathStep{name: rest[:end], index: -1})
			rest = rest[end:]
		}
		if strings.HasPrefix(rest, ".") {
			rest = rest[1:]
			if rest == "" || rest[0] == '.' || rest[0] == '[' {
				return nil, bad("a name is empty")
			}
		}
	}
	if len(steps) == 0 || steps[0].index >= 0 {
		return nil, bad("it must start with the config key")
	}
	return steps, nil
}

// child returns the node step leads to from n, making it (and n's
// structure) when make is set; nil if it is missing.
func child(n *yaml.Node, step pathStep, make bool) (*yaml.Node, error) {
	if step.index < 0 {
		if n.Kind != yaml.MappingNode {
			if !make || !isEmpty(n) {
				return nil, fmt.Errorf("%q is not in a map", step.name)
			}
			*n = yaml.Node{Kind: yaml.MappingNode}
		}
		if v := lookup(n, step.name); v != nil || !make {
			return v, nil
		}
		v := &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!null"}
		n.Content = append(n.Content, stringNode(step.name), v)
		return v, nil
	}
	if n.Kind != yaml.SequenceNode {
		if !make || !isEmpty(n) {
			return nil, fmt.Errorf("[%d] is not in a list", step.index)
		}
		*n = yaml.Node{Kind: yaml.SequenceNode}
	}
	switch {
	case step.index < len(n.Content):
		return n.Content[step.index], nil
	case !make:
		return nil, nil
	case step.index > len(n.Content):
		return nil, fmt.Errorf("[%d] is past the end of a list of %d", step.index, len(n.Content))
	}
	v := &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!null"}
	n.Content = append(n.Content, v)
	return v, nil
}

// isEmpty reports whether n holds nothing yet (a null placeholder).
func isEmpty(n *yaml.Node) bool {
	return n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null"
}

// setPath sets the value at a path below key, making the maps and lists
// on the way, encrypted if secret.
func (c *stackConfig) setPath(ctx context.Context, key string, steps []pathStep, value string, secret bool) error {
	m, err := c.settings(true)
	if err != nil {
		return err
	}
	n, err := child(m, pathStep{name: key, index: -1}, true)
	if err != nil {
		return err
	}
	for _, s := range steps {
		if n, err = child(n, s, true); err != nil {
			return fmt.Errorf("config %s in %s: %w", key, c.path, err)
		}
	}
	v, err := c.valueNode(ctx, key, value, secret)
	if err != nil {
		return err
	}
	if tag, ok := coerced(value); ok && !secret {
		v = &yaml.Node{Kind: yaml.ScalarNode, Tag: tag, Value: value}
	}
	*n = *v
	return nil
}

// coerced says whether a value set inside a structure is written as a
// boolean or a number, as the Pulumi CLI writes it: "true" and "false",
// and base-10 integers that do not start with 0, return their YAML tag.
func coerced(value string) (string, bool) {
	switch {
	case value == "true" || value == "false":
		return "!!bool", true
	case len(value) > 1 && value[0] == '0':
		return "", false
	}
	if _, err := strconv.ParseInt(value, 10, 64); err == nil {
		return "!!int", true
	}
	if _, err := strconv.ParseUint(value, 10, 64); err == nil {
		return "!!int", true
	}
	return "", false
}

// getPath returns the value at a path below key, and whether it is set.
func (c *stackConfig) getPath(ctx context.Context, key string, steps []pathStep) (resource.PropertyValue, bool, error) {
	m, err := c.settings(false)
	if err != nil {
		return resource.PropertyValue{}, false, err
	}
	n := lookup(m, key)
	for _, s := range steps {
		if n == nil {
			break
		}
		if n, err = child(n, s, false); err != nil {
			return resource.PropertyValue{}, false, fmt.Errorf("config %s in %s: %w", key, c.path, err)
		}
	}
	if n == nil {
		return resource.PropertyValue{}, false, nil
	}
	v, err := c.value(ctx, n, len(steps) == 0)
	if err != nil {
		return resource.PropertyValue{}, false, fmt.Errorf("config %s in %s: %w", key, c.path, err)
	}
	return v, true, nil
}

// removePath removes the value at a path below key and reports whether
// it was set.
func (c *stackConfig) removePath(key string, steps []pathStep) (bool, error) {
	if len(steps) == 0 {
		return c.remove(key)
	}
	m, err := c.settings(false)
	if err != nil {
		return false, err
	}
	n := lookup(m, key)
	for _, s := range steps[:len(steps)-1] {
		if n == nil {
			return false, nil
		}
		if n, err = child(n, s, false); err != nil {
			return false, fmt.Errorf("config %s in %s: %w", key, c.path, err)
		}
	}
	last := steps[len(steps)-1]
	switch {
	case n == nil:
		return false, nil
	case last.index < 0 && n.Kind == yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			if n.Content[i].Value == last.name {
				n.Content = append(n.Content[:i], n.Content[i+2:]...)
				return true, nil
			}
		}
	case last.index >= 0 && n.Kind == yaml.SequenceNode && last.index < len(n.Content):
		n.Content = append(n.Content[:last.index], n.Content[last.index+1:]...)
		return true, nil
	}
	return false, nil
}

// configKey splits the KEY argument of config set, get and rm into the
// config key (with the project's namespace if it has none) and, with
// --path, the steps below it.
func configKey(o *options, arg string) (string, []pathStep, error) {
	if !o.path {
		return fullKey(o.project, arg), nil, nil
	}
	steps, err := parsePath(arg)
	if err != nil {
		return "", nil, err
	}
	return fullKey(o.project, steps[0].name), steps[1:], nil
}
