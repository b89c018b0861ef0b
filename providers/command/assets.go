package command

import (
	"archive/tar"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path"
	"regexp"
	"slices"
	"strings"

	"github.com/groundwork-iac/groundwork/resource"
	"github.com/groundwork-iac/groundwork/resource/contents"
)

// The asset and archive paths of pulumi-command's local types are globs
// over the files under the commands' directory, with "/" as the separator:
//
//   - * matches any run of characters but /, ? any one character but /;
//   - ** matches any run of characters, / included;
//   - [abc], [a-z] match one of the characters, [!abc] one not among them;
//   - {a,b} matches either alternative (each a glob itself);
//   - \ takes the next character as it is.
//
// A glob that starts with ! excludes what it matches. The globs apply in
// order to each file's path relative to the directory (without a leading
// "./"), so an exclusion removes what the globs before it included.

// glob is one compiled asset or archive path.
type glob struct {
	exclude bool
	re      *regexp.Regexp
}

// compileGlob compiles pattern, saying what is wrong with a malformed one.
func compileGlob(pattern string) (glob, error) {
	g := glob{exclude: strings.HasPrefix(pattern, "!")}
	body := strings.TrimPrefix(pattern, "!")
	var b strings.Builder
	b.WriteString("^")
	if _, err := globRegexp(&b, body, false); err != nil {
		return glob{}, fmt.Errorf("glob %q: %w", pattern, err)
	}
	b.WriteString("$")
	var err error
	g.re, err = regexp.Compile(b.String())
	if err != nil {
		return glob{}, fmt.Errorf("glob %q: %w", pattern, err)
	}
	return g, nil
}

// globRegexp writes the regular expression of s to b. Inside braces
// (inBraces) it stops at the "," or "}" that ends the alternative and
// returns the rest of s from there; outside them both are plain
// characters.
func globRegexp(b *strings.Builder, s string, inBraces bool) (string, error) {
	for len(s) > 0 {
		c := s[0]
		switch {
		case inBraces && (c == ',' || c == '}'):
			return s, nil
		case strings.HasPrefix(s, "**"):
			b.WriteString(".*")
			s = s[2:]
		case c == '*':
			b.WriteString("[^/]*")
			s = s[1:]
		case c == '?':
			b.WriteString("[^/]")
			s = s[1:]
		case c == '\\':
			if len(s) < 2 {
				return "", fmt.Errorf("it ends with a lone \\")
			}
			b.WriteString(regexp.QuoteMeta(s[1:2]))
			s = s[2:]
		case c == '[':
			end := strings.IndexByte(s[1:], ']')
			if end < 0 {
				return "", fmt.Errorf("a [ is never closed")
			}
			class := s[1 : end+1]
			s = s[end+2:]
			neg := strings.HasPrefix(class, "!")
			class = strings.TrimPrefix(class, "!")
			if class == "" {
				return "", fmt.Errorf("an empty [] matches nothing")
			}
			b.WriteString("[")
			if neg {
				b.WriteString("^")
			}
			b.WriteString(strings.NewReplacer(`\`, `\\`, "[", `\[`, "^", `\^`).Replace(class))
			b.WriteString("]")
		case c == '{':
			b.WriteString("(?:")
			s = s[1:]
			for {
				var err error
				if s, err = globRegexp(b, s, true); err != nil {
					return "", err
				}
				if s == "" {
					return "", fmt.Errorf("a { is never closed")
				}
				if s[0] == '}' {
					s = s[1:]
					break
				}
				b.WriteString("|")
				s = s[1:]
			}
			b.WriteString(")")
		default:
			b.WriteString(regexp.QuoteMeta(s[:1]))
			s = s[1:]
		}
	}
	return "", nil
}

// matchFiles returns the files under dir that the globs select, as paths
// relative to dir.
func matchFiles(dir string, patterns []string) ([]string, error) {
	globs := make([]glob, len(patterns))
	for i, p := range patterns {
		g, err := compileGlob(p)
		if err != nil {
			return nil, err
		}
		globs[i] = g
	}
	var files []string
	err := fs.WalkDir(os.DirFS(dir), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		in := false
		for _, g := range globs {
			if g.re.MatchString(p) {
				in = !g.exclude
			}
		}
		if in {
			files = append(files, p)
		}
		return nil
	})
	return files, err
}

// pathAssets returns the files the globs select as path assets, by their
// path relative to dir, with their hashes computed.
func pathAssets(ctx context.Context, dir string, patterns []string) (map[string]*resource.Asset, error) {
	files, err := matchFiles(dir, patterns)
	if err != nil {
		return nil, err
	}
	assets := make(map[string]*resource.Asset, len(files))
	for _, f := range files {
		a := resource.NewPathAsset(path.Join(dir, f))
		if err := a.EnsureHash(ctx, contents.Source{}); err != nil {
			return nil, err
		}
		assets[f] = a
	}
	return assets, nil
}

// assetsValue is the assets output: an object of path assets.
func assetsValue(ctx context.Context, dir string, patterns []string) (resource.PropertyValue, error) {
	assets, err := pathAssets(ctx, dir, patterns)
	if err != nil {
		return resource.PropertyValue{}, err
	}
	m := make(resource.PropertyMap, len(assets))
	for p, a := range assets {
		m[resource.PropertyKey(p)] = resource.NewAssetValue(a)
	}
	return resource.NewObject(m), nil
}

// archiveValue is the archive output: an archive of the path assets.
func archiveValue(ctx context.Context, dir string, patterns []string) (resource.PropertyValue, error) {
	assets, err := pathAssets(ctx, dir, patterns)
	if err != nil {
		return resource.PropertyValue{}, err
	}
	members := make(map[string]resource.AssetOrArchive, len(assets))
	for p, a := range assets {
		members[p] = resource.AssetOrArchive{Asset: a}
	}
	archive, err := resource.NewAssetArchive(members)
	if err != nil {
		return resource.PropertyValue{}, err
	}
	if archive.Hash, err = tarHash(ctx, assets); err != nil {
		return resource.PropertyValue{}, err
	}
	return resource.NewArchiveValue(archive), nil
}

// tarHash is the hash pulumi-command records for an archive of assets, as
// Pulumi's SDK computes it: the hex-encoded SHA-256 of a tar stream of the
// members in name order, each with a header of its name, mode 0600 and
// size only. It is set on the archive so that the state records what the
// plugin would.
func tarHash(ctx context.Context, assets map[string]*resource.Asset) (string, error) {
	h := sha256.New()
	tw := tar.NewWriter(h)
	for _, name := range slices.Sorted(maps.Keys(assets)) {
		b, err := assets[name].Bytes(ctx, contents.Source{})
		if err != nil {
			return "", err
		}
		if err := tw.WriteHeader(&tar.Header{Name: name, Mode: 0o600, Size: int64(len(b))}); err != nil {
			return "", err
		}
		if _, err := tw.Write(b); err != nil {
			return "", err
		}
	}
	if err := tw.Close(); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}
