package resource

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strings"
)

// archive flattens a into l.entries, naming each member prefix+name.
func (l *lister) archive(prefix string, a *Archive) error {
	switch {
	case a == nil:
		return fmt.Errorf("archive member %q is a nil archive", strings.TrimSuffix(prefix, "/"))
	case a.Path != "" && a.URI != "":
		return fmt.Errorf("archive sets both path %q and URI %q; want exactly one source", a.Path, a.URI)
	case (a.Path != "" || a.URI != "") && len(a.Assets) > 0:
		return fmt.Errorf("archive %s also has asset members; want exactly one source", a.describe())
	case a.Path != "":
		return l.path(prefix, a.Path)
	case a.URI != "":
		return l.uri(prefix, a.URI)
	}
	if l.onStack == nil {
		l.onStack = make(map[*Archive]bool)
	}
	if l.onStack[a] {
		return fmt.Errorf("archive member %q contains itself", strings.TrimSuffix(prefix, "/"))
	}
	l.onStack[a] = true
	defer delete(l.onStack, a)
	for name, m := range a.Assets {
		if err := checkMemberName(name); err != nil {
			return fmt.Errorf("asset archive: %w", err)
		}
		full := prefix + name
		switch {
		case m.Asset != nil && m.Archive == nil:
			asset, ctx := m.Asset, l.ctx
			if err := asset.check(); err != nil {
				return fmt.Errorf("archive member %q: %w", full, err)
			}
			l.entries = append(l.entries, entry{name: full, open: func() (io.ReadCloser, error) {
				return asset.Reader(ctx)
			}})
		case m.Archive != nil && m.Asset == nil:
			if err := l.archive(full+"/", m.Archive); err != nil {
				return err
			}
		default:
			return fmt.Errorf("archive member %q must set exactly one of Asset and Archive", full)
		}
	}
	return nil
}

// Archive file formats, told apart by file name extension.
const (
	formatTar   = "tar"
	formatTarGz = "tar.gz"
	formatZip   = "zip"
)

func archiveFormat(name string) string {
	lower := strings.ToLower(name)
	switch {
	case strings.HasSuffix(lower, ".tar.gz"), strings.HasSuffix(lower, ".tgz"):
		return formatTarGz
	case strings.HasSuffix(lower, ".tar"):
		return formatTar
	case strings.HasSuffix(lower, ".zip"), strings.HasSuffix(lower, ".jar"):
		return formatZip
	}
	return ""
}

func errUnknownFormat(src string) error {
	return fmt.Errorf("cannot tell the archive format of %q: want a folder or a .tar, .tar.gz, .tgz, .zip or .jar file", src)
}

// path lists a folder or an archive file.
func (l *lister) path(prefix, p string) error {
	fi, err := os.Stat(p)
	if err != nil {
		return fmt.Errorf("reading archive: %w", err)
	}
	if fi.IsDir() {
		return l.folder(prefix, p)
	}
	format := archiveFormat(p)
	if format == "" {
		return errUnknownFormat(p)
	}
	if format == formatZip {
		zr, err := zip.OpenReader(p)
		if err != nil {
			return fmt.Errorf("reading zip archive %q: %w", p, err)
		}
		l.closers = append(l.closers, zr)
		return l.zip(prefix, p, &zr.Reader)
	}
	f, err := os.Open(p)
	if err != nil {
		return fmt.Errorf("reading archive: %w", err)
	}
	defer f.Close()
	return l.tar(prefix, p, f, format == formatTarGz)
}

// uri lists an archive named by a URI.
func (l *lister) uri(prefix, uri string) error {
	u, err := url.Parse(uri)
	if err != nil {
		return fmt.Errorf("malformed archive URI %q: %w", uri, err)
	}
	if u.Scheme == "file" {
		p, err := fileURIPath(u)
		if err != nil {
			return err
		}
		return l.path(prefix, p)
	}
	format := archiveFormat(u.Path)
	if format == "" {
		return errUnknownFormat(uri)
	}
	b, err := readAllURI(l.ctx, uri)
	if err != nil {
		return fmt.Errorf("reading archive: %w", err)
	}
	if format == formatZip {
		zr, err := zip.NewReader(bytes.NewReader(b), int64(len(b)))
		if err != nil {
			return fmt.Errorf("reading zip archive %q: %w", uri, err)
		}
		return l.zip(prefix, uri, zr)
	}
	return l.tar(prefix, uri, bytes.NewReader(b), format == formatTarGz)
}

// folder lists the regular files beneath root. Symbolic links to files are
// followed; symbolic links to folders are not (they could form loops).
func (l *lister) folder(prefix, root string) error {
	// WalkDir does not follow a root that is itself a symbolic link.
	if resolved, err := filepath.EvalSymlinks(root); err == nil {
		root = resolved
	}
	return filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return fmt.Errorf("reading archive folder %q: %w", root, err)
		}
		if err := l.ctx.Err(); err != nil {
			return err
		}
		if d.IsDir() {
			return nil
		}
		if d.Type()&fs.ModeSymlink != 0 {
			fi, err := os.Stat(p)
			if err != nil {
				return fmt.Errorf("reading archive folder %q: %w", root, err)
			}
			if !fi.Mode().IsRegular() {
				return nil
			}
		} else if !d.Type().IsRegular() {
			return nil
		}
		rel, err := filepath.Rel(root, p)
		if err != nil {
			return fmt.Errorf("reading archive folder %q: %w", root, err)
		}
		name := filepath.ToSlash(rel)
		if err := checkMemberName(name); err != nil {
			return fmt.Errorf("archive folder %q: %w", root, err)
		}
		l.entries = append(l.entries, entry{name: prefix + name, open: func() (io.ReadCloser, error) {
			return os.Open(p)
		}})
		return nil
	})
}

// memberName normalizes a name found in a tar or zip file; skip is set for
// the entry of the archive's root folder.
func memberName(raw string) (name string, skip bool) {
	name = raw
	for strings.HasPrefix(name, "./") {
		name = name[2:]
	}
	return name, name == "" || name == "."
}

func (l *lister) tar(prefix, src string, r io.Reader, gzipped bool) error {
	if gzipped {
		zr, err := gzip.NewReader(r)
		if err != nil {
			return fmt.Errorf("reading tar.gz archive %q: %w", src, err)
		}
		defer zr.Close()
		r = zr
	}
	tr := tar.NewReader(r)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return fmt.Errorf("reading tar archive %q: %w", src, err)
		}
		name, skip := memberName(h.Name)
		switch h.Typeflag {
		case tar.TypeDir, tar.TypeXGlobalHeader:
			continue
		case tar.TypeReg, '\x00':
		default:
			return fmt.Errorf("tar archive %q: member %q is not a regular file (type %q); only files and folders are supported", src, h.Name, h.Typeflag)
		}
		if skip {
			continue
		}
		if err := checkMemberName(name); err != nil {
			return fmt.Errorf("tar archive %q: %w", src, err)
		}
		if err := l.addStream(prefix+name, tr); err != nil {
			return fmt.Errorf("tar archive %q: %w", src, err)
		}
	}
}

func (l *lister) zip(prefix, src string, zr *zip.Reader) error {
	for _, f := range zr.File {
		if f.FileInfo().IsDir() {
			continue
		}
		if !f.Mode().IsRegular() {
			return fmt.Errorf("zip archive %q: member %q is not a regular file (mode %v); only files and folders are supported", src, f.Name, f.Mode())
		}
		name, skip := memberName(f.Name)
		if skip {
			continue
		}
		if err := checkMemberName(name); err != nil {
			return fmt.Errorf("zip archive %q: %w", src, err)
		}
		l.entries = append(l.entries, entry{name: prefix + name, open: f.Open})
	}
	return nil
}
