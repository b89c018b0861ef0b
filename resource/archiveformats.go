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
			asset, ctx, src := m.Asset, l.ctx, l.src
			if err := asset.check(); err != nil {
				return fmt.Errorf("archive member %q: %w", full, err)
			}
			l.entries = append(l.entries, entry{name: full, open: func() (io.ReadCloser, error) {
				return asset.Reader(ctx, src)
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

// path lists a folder or an archive file at a local path.
func (l *lister) path(prefix, p string) error {
	if l.src == nil {
		return fmt.Errorf("reading archive %q: %w", p, ErrNoSource)
	}
	f, err := l.src.Open(l.ctx, p)
	if err != nil {
		return fmt.Errorf("reading archive: %w", err)
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return fmt.Errorf("reading archive: %w", err)
	}
	if fi.IsDir() {
		return l.folder(prefix, p, f)
	}
	format := archiveFormat(p)
	if format == "" {
		f.Close()
		return errUnknownFormat(p)
	}
	if format == formatZip {
		// A zip is read out of order: from the file itself where the
		// Source's files allow it, else from memory.
		if ra, ok := f.(io.ReaderAt); ok {
			l.closers = append(l.closers, f)
			zr, err := zip.NewReader(ra, fi.Size())
			if err != nil {
				return fmt.Errorf("reading zip archive %q: %w", p, err)
			}
			return l.zip(prefix, p, zr)
		}
		defer f.Close()
		return l.zipBytes(prefix, p, f)
	}
	defer f.Close()
	return l.tar(prefix, p, f, format == formatTarGz)
}

// uri lists an archive named by a URI.
func (l *lister) uri(prefix, uri string) error {
	loc, err := locate("", uri)
	if err != nil {
		return fmt.Errorf("reading archive: %w", err)
	}
	if loc.path != "" {
		return l.path(prefix, loc.path)
	}
	u, _ := url.Parse(uri) // locate parsed it
	format := archiveFormat(u.Path)
	if format == "" {
		return errUnknownFormat(uri)
	}
	r, err := loc.open(l.ctx, l.src)
	if err != nil {
		return fmt.Errorf("reading archive %s: %w", uri, err)
	}
	defer r.Close()
	if format == formatZip {
		return l.zipBytes(prefix, uri, r)
	}
	return l.tar(prefix, uri, r, format == formatTarGz)
}

// zipBytes lists a zip archive read whole into memory from r.
func (l *lister) zipBytes(prefix, src string, r io.Reader) error {
	b, err := io.ReadAll(r)
	if err != nil {
		return fmt.Errorf("reading archive %q: %w", src, err)
	}
	zr, err := zip.NewReader(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		return fmt.Errorf("reading zip archive %q: %w", src, err)
	}
	return l.zip(prefix, src, zr)
}

// folder lists the regular files beneath the folder at path, which dir
// holds open (folder closes it). Symbolic links to files are followed;
// symbolic links to folders are not (they could form loops).
func (l *lister) folder(prefix, path string, dir fs.File) error {
	rd, ok := dir.(fs.ReadDirFile)
	if !ok {
		dir.Close()
		return fmt.Errorf("reading archive folder %q: the Source cannot list it", path)
	}
	entries, err := rd.ReadDir(-1)
	dir.Close()
	if err != nil {
		return fmt.Errorf("reading archive folder %q: %w", path, err)
	}
	for _, e := range entries {
		if err := l.ctx.Err(); err != nil {
			return err
		}
		p, name := filepath.Join(path, e.Name()), prefix+e.Name()
		if err := checkMemberName(name); err != nil {
			return fmt.Errorf("archive folder %q: %w", path, err)
		}
		if err := l.folderEntry(name, p, e.Type()); err != nil {
			return err
		}
	}
	return nil
}

// folderEntry lists one entry of a folder: name is its member name, p its
// path and typ the type its folder listed it with.
func (l *lister) folderEntry(name, p string, typ fs.FileMode) error {
	if typ.IsDir() || typ&fs.ModeSymlink != 0 {
		f, err := l.src.Open(l.ctx, p)
		if err != nil {
			return fmt.Errorf("reading archive folder: %w", err)
		}
		fi, err := f.Stat()
		switch {
		case err != nil:
			f.Close()
			return fmt.Errorf("reading archive folder: %w", err)
		case typ.IsDir():
			return l.folder(name+"/", p, f)
		}
		f.Close()
		if !fi.Mode().IsRegular() {
			return nil // a link to a folder, or to something stranger
		}
	} else if !typ.IsRegular() {
		return nil
	}
	src, ctx := l.src, l.ctx
	l.entries = append(l.entries, entry{name: name, open: func() (io.ReadCloser, error) {
		return src.Open(ctx, p)
	}})
	return nil
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
