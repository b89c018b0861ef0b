package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/groundwork-iac/groundwork/resource"
	"github.com/groundwork-iac/groundwork/state/secrets"
)

// stackConfig is a stack's Pulumi.<stack>.yaml, in the format the Pulumi
// CLI writes: "config" maps "namespace:key" to a value (a scalar, a
// structure, or {secure: CIPHERTEXT}), and "encryptionsalt" is the salt of
// the passphrase that sealed the secure values. The file is kept as a YAML
// tree, so that writing it back keeps its comments, its order and the keys
// gw does not know.
type stackConfig struct {
	path string
	doc  *yaml.Node // the document's top-level mapping
	// passphrase gives the passphrase when a secure value is read or
	// written; nil means there is none.
	passphrase func() (string, error)
	mgr        *secrets.PulumiPassphrase
}

// configFileName is the name of a stack's config file.
func configFileName(stack string) string { return "Pulumi." + stack + ".yaml" }

// updateStackConfig changes the stack's config file in dir: it reads the
// file, lets change edit it and writes it back (by an atomic rename), all
// under the lock of the hidden file .Pulumi.<stack>.yaml.lock beside it,
// so that concurrent changes (gw config set run twenty times at once)
// all land.
func updateStackConfig(ctx context.Context, dir, stack string, passphrase func() (string, error), change func(*stackConfig) error) error {
	unlock, err := lockFile(ctx, filepath.Join(dir, "."+configFileName(stack)+".lock"))
	if err != nil {
		return err
	}
	defer unlock()
	cfg, err := loadStackConfig(dir, stack, passphrase)
	if err != nil {
		return err
	}
	if err := change(cfg); err != nil {
		return err
	}
	return cfg.save()
}

// loadStackConfig reads the stack's config file in dir. A stack without
// one has an empty configuration.
func loadStackConfig(dir, stack string, passphrase func() (string, error)) (*stackConfig, error) {
	c := &stackConfig{path: filepath.Join(dir, configFileName(stack)), passphrase: passphrase,
		doc: &yaml.Node{Kind: yaml.MappingNode}}
	// Named from the working folder, in messages too.
	if wd, err := os.Getwd(); err == nil {
		if rel, err := filepath.Rel(wd, c.path); err == nil {
			c.path = rel
		}
	}
	data, err := os.ReadFile(c.path)
	if errors.Is(err, os.ErrNotExist) {
		return c, nil
	}
	if err != nil {
		return nil, err
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("reading %s: %w", c.path, err)
	}
	if len(doc.Content) == 0 {
		return c, nil // an empty file
	}
	if top := doc.Content[0]; top.Kind == yaml.MappingNode {
		c.doc = top
		return c, nil
	}
	return nil, fmt.Errorf("reading %s: the file is not a mapping of settings", c.path)
}

// lookup returns the value node of key in mapping m, or nil.
func lookup(m *yaml.Node, key string) *yaml.Node {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i+1]
		}
	}
	return nil
}

// settings is the "config" mapping, made if make is set and it is missing.
func (c *stackConfig) settings(make bool) (*yaml.Node, error) {
	m := lookup(c.doc, "config")
	switch {
	case m != nil && m.Kind == yaml.MappingNode:
		return m, nil
	case m != nil && !(m.Kind == yaml.ScalarNode && m.Tag == "!!null"):
		return nil, fmt.Errorf("%s: \"config\" is not a mapping of keys to values", c.path)
	case !make:
		return &yaml.Node{Kind: yaml.MappingNode}, nil
	case m != nil:
		*m = yaml.Node{Kind: yaml.MappingNode}
		return m, nil
	}
	m = &yaml.Node{Kind: yaml.MappingNode}
	c.doc.Content = append(c.doc.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: "config"}, m)
	return m, nil
}

// keys returns the config keys, sorted.
func (c *stackConfig) keys() ([]string, error) {
	m, err := c.settings(false)
	if err != nil {
		return nil, err
	}
	var ks []string
	for i := 0; i+1 < len(m.Content); i += 2 {
		ks = append(ks, m.Content[i].Value)
	}
	sort.Strings(ks)
	return ks, nil
}

// get returns the value of key, secure values decrypted and secret, and
// whether the key is set.
func (c *stackConfig) get(ctx context.Context, key string) (resource.PropertyValue, bool, error) {
	m, err := c.settings(false)
	if err != nil {
		return resource.PropertyValue{}, false, err
	}
	n := lookup(m, key)
	if n == nil {
		return resource.PropertyValue{}, false, nil
	}
	v, err := c.value(ctx, n, true)
	if err != nil {
		return resource.PropertyValue{}, false, fmt.Errorf("config %s in %s: %w", key, c.path, err)
	}
	return v, true, nil
}

// isSecure reports whether key's value is an encrypted one.
func (c *stackConfig) isSecure(key string) bool {
	m, err := c.settings(false)
	if err != nil {
		return false
	}
	n := lookup(m, key)
	return n != nil && n.Kind == yaml.MappingNode && len(n.Content) == 2 && n.Content[0].Value == "secure"
}

// values returns every config value.
func (c *stackConfig) values(ctx context.Context) (map[string]resource.PropertyValue, error) {
	ks, err := c.keys()
	if err != nil {
		return nil, err
	}
	out := make(map[string]resource.PropertyValue, len(ks))
	for _, k := range ks {
		v, _, err := c.get(ctx, k)
		if err != nil {
			return nil, err
		}
		out[k] = v
	}
	return out, nil
}

// value converts a YAML value: a scalar at the top is a string, as Pulumi
// gives config to programs; inside a structure scalars keep their type.
func (c *stackConfig) value(ctx context.Context, n *yaml.Node, top bool) (resource.PropertyValue, error) {
	switch n.Kind {
	case yaml.AliasNode:
		return c.value(ctx, n.Alias, top)
	case yaml.ScalarNode:
		if top {
			return resource.NewString(n.Value), nil
		}
		return scalarValue(n), nil
	case yaml.SequenceNode:
		elems := make([]resource.PropertyValue, len(n.Content))
		for i, e := range n.Content {
			v, err := c.value(ctx, e, false)
			if err != nil {
				return resource.PropertyValue{}, err
			}
			elems[i] = v
		}
		return resource.NewArray(elems...), nil
	case yaml.MappingNode:
		if len(n.Content) == 2 && n.Content[0].Value == "secure" && n.Content[1].Kind == yaml.ScalarNode {
			return c.decrypt(ctx, n.Content[1].Value)
		}
		obj := make(resource.PropertyMap, len(n.Content)/2)
		for i := 0; i+1 < len(n.Content); i += 2 {
			v, err := c.value(ctx, n.Content[i+1], false)
			if err != nil {
				return resource.PropertyValue{}, err
			}
			obj[resource.PropertyKey(n.Content[i].Value)] = v
		}
		return resource.NewObject(obj), nil
	}
	return resource.NewNull(), nil
}

// scalarValue is a typed YAML scalar.
func scalarValue(n *yaml.Node) resource.PropertyValue {
	switch n.ShortTag() {
	case "!!null":
		return resource.NewNull()
	case "!!bool":
		if b, err := strconv.ParseBool(n.Value); err == nil {
			return resource.NewBool(b)
		}
	case "!!int", "!!float":
		if f, err := strconv.ParseFloat(n.Value, 64); err == nil {
			return resource.NewNumber(f)
		}
	}
	return resource.NewString(n.Value)
}

// manager returns the passphrase manager of the file's encryptionsalt,
// making a salt (for a file that has none) if create is set.
func (c *stackConfig) manager(create bool) (*secrets.PulumiPassphrase, error) {
	if c.mgr != nil {
		return c.mgr, nil
	}
	if sp := lookup(c.doc, "secretsprovider"); sp != nil && sp.Value != "" && sp.Value != "passphrase" {
		return nil, fmt.Errorf("its secrets are kept with %q, and gw reads only passphrase-encrypted config", sp.Value)
	}
	phrase := ""
	if c.passphrase != nil {
		var err error
		if phrase, err = c.passphrase(); err != nil {
			return nil, err
		}
	}
	if phrase == "" {
		return nil, errors.New("secure config needs the passphrase: set GW_PASSPHRASE (or PULUMI_CONFIG_PASSPHRASE, or PULUMI_CONFIG_PASSPHRASE_FILE)")
	}
	var err error
	switch salt := lookup(c.doc, "encryptionsalt"); {
	case salt != nil && salt.Value != "":
		c.mgr, err = secrets.OpenPulumiPassphrase(phrase, salt.Value)
		if errors.Is(err, secrets.ErrWrongPassphrase) {
			err = errors.New("the passphrase is wrong: it does not open the file's secure values")
		}
	case create:
		c.mgr, err = secrets.NewPulumiPassphrase(phrase)
		if err == nil {
			c.doc.Content = append([]*yaml.Node{
				{Kind: yaml.ScalarNode, Value: "encryptionsalt"},
				{Kind: yaml.ScalarNode, Value: c.mgr.EncryptionSalt()},
			}, c.doc.Content...)
		}
	default:
		err = errors.New("the file has secure values but no encryptionsalt to open them with")
	}
	return c.mgr, err
}

func (c *stackConfig) decrypt(ctx context.Context, ciphertext string) (resource.PropertyValue, error) {
	mgr, err := c.manager(false)
	if err != nil {
		return resource.PropertyValue{}, err
	}
	plain, err := mgr.Decrypt(ctx, ciphertext)
	if err != nil {
		return resource.PropertyValue{}, errors.New("the secure value cannot be decrypted with this passphrase")
	}
	return resource.NewSecret(resource.NewString(string(plain))), nil
}

// stringNode is value as a YAML string: quoted where a YAML reader would
// take it for another type ("0123", "0x1F", "1e3", "null", "~", "yes",
// "2"), as the Pulumi CLI writes it, so that Pulumi's SDKs and CLI read
// back the same string.
func stringNode(value string) *yaml.Node {
	n := &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: value}
	if !readsAsString(value) {
		n.Style = yaml.DoubleQuotedStyle
	}
	return n
}

// readsAsString reports whether value, written plain, reads back as that
// string, both in YAML 1.2 and in YAML 1.1 (whose booleans include yes,
// no, on, off, y and n).
func readsAsString(value string) bool {
	switch strings.ToLower(value) {
	case "y", "yes", "n", "no", "on", "off":
		return false
	}
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte(value), &doc); err != nil || len(doc.Content) != 1 {
		return false
	}
	n := doc.Content[0]
	return n.Kind == yaml.ScalarNode && n.ShortTag() == "!!str" && n.Style == 0 && n.Value == value
}

// valueNode is the node of key's string value, encrypted if secret.
func (c *stackConfig) valueNode(ctx context.Context, key, value string, secret bool) (*yaml.Node, error) {
	if !secret {
		return stringNode(value), nil
	}
	mgr, err := c.manager(true)
	if err != nil {
		return nil, fmt.Errorf("setting config %s in %s: %w", key, c.path, err)
	}
	ct, err := mgr.Encrypt(ctx, []byte(value))
	if err != nil {
		return nil, err
	}
	return &yaml.Node{Kind: yaml.MappingNode, Content: []*yaml.Node{
		{Kind: yaml.ScalarNode, Value: "secure"}, {Kind: yaml.ScalarNode, Value: ct},
	}}, nil
}

// set gives key a string value, encrypted if secret.
func (c *stackConfig) set(ctx context.Context, key, value string, secret bool) error {
	node, err := c.valueNode(ctx, key, value, secret)
	if err != nil {
		return err
	}
	m, err := c.settings(true)
	if err != nil {
		return err
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			m.Content[i+1] = node
			return nil
		}
	}
	m.Content = append(m.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: key}, node)
	return nil
}

// remove deletes key and reports whether it was set.
func (c *stackConfig) remove(key string) (bool, error) {
	m, err := c.settings(false)
	if err != nil {
		return false, err
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			m.Content = append(m.Content[:i], m.Content[i+2:]...)
			return true, nil
		}
	}
	return false, nil
}

// save writes the file back, atomically.
func (c *stackConfig) save() error {
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2) // as the Pulumi CLI writes it
	if err := enc.Encode(&yaml.Node{Kind: yaml.DocumentNode, Content: []*yaml.Node{c.doc}}); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(c.path), ".Pulumi.*.yaml")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(buf.Bytes()); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Chmod(0o644); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), c.path)
}

// fullKey gives a key without a namespace the project's, as the Pulumi
// CLI does ("region" is "<project>:region").
func fullKey(project, key string) string {
	if strings.Contains(key, ":") {
		return key
	}
	return project + ":" + key
}

// rekey encrypts the file's secure values again with a new passphrase
// under a new encryptionsalt: each is decrypted with the file's
// passphrase first, so a value the old passphrase does not open fails
// the whole change and nothing is written.
func (c *stackConfig) rekey(ctx context.Context, newPassphrase string) error {
	var secure []*yaml.Node // the ciphertext nodes
	var walk func(n *yaml.Node)
	walk = func(n *yaml.Node) {
		switch {
		case n.Kind == yaml.MappingNode && len(n.Content) == 2 && n.Content[0].Value == "secure" && n.Content[1].Kind == yaml.ScalarNode:
			secure = append(secure, n.Content[1])
		case n.Kind == yaml.MappingNode || n.Kind == yaml.SequenceNode:
			for _, e := range n.Content {
				walk(e)
			}
		}
	}
	if m := lookup(c.doc, "config"); m != nil {
		walk(m)
	}
	plain := make([][]byte, len(secure))
	if len(secure) > 0 {
		mgr, err := c.manager(false)
		if err != nil {
			return fmt.Errorf("%s: %w", c.path, err)
		}
		for i, n := range secure {
			if plain[i], err = mgr.Decrypt(ctx, n.Value); err != nil {
				return fmt.Errorf("%s: a secure value cannot be decrypted with the current passphrase", c.path)
			}
		}
	}
	// A new salt for the new passphrase.
	for i := 0; i+1 < len(c.doc.Content); i += 2 {
		if c.doc.Content[i].Value == "encryptionsalt" {
			c.doc.Content = append(c.doc.Content[:i], c.doc.Content[i+2:]...)
			break
		}
	}
	c.mgr = nil
	c.passphrase = func() (string, error) { return newPassphrase, nil }
	mgr, err := c.manager(true)
	if err != nil {
		return err
	}
	for i, n := range secure {
		if n.Value, err = mgr.Encrypt(ctx, plain[i]); err != nil {
			return err
		}
	}
	return nil
}
