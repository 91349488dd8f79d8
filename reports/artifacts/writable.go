package artifacts

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
)

// CheckDir reports whether dir can be used as an output folder: it exists
// as a writable folder, or it can be created under the nearest folder
// that exists. Nothing is left behind: a missing dir is not created here.
func CheckDir(dir string) error {
	base, err := nearestExisting(dir)
	if err != nil {
		return err
	}
	if base != filepath.Clean(dir) {
		return probe(base, fmt.Sprintf("cannot create %s", dir))
	}
	return probe(dir, fmt.Sprintf("cannot write into %s", dir))
}

// CheckFile reports whether a file can be written at path: its folder
// exists and is writable, and path is not a folder.
func CheckFile(path string) error {
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		return fmt.Errorf("%s is a folder, want a file path", path)
	}
	dir := filepath.Dir(path)
	fi, err := os.Stat(dir)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return fmt.Errorf("cannot write %s: folder %s does not exist", path, dir)
	case err != nil:
		return fmt.Errorf("cannot write %s: %w", path, err)
	case !fi.IsDir():
		return fmt.Errorf("cannot write %s: %s is not a folder", path, dir)
	}
	return probe(dir, fmt.Sprintf("cannot write %s", path))
}

// nearestExisting is path or its nearest ancestor that exists, which must
// be a folder.
func nearestExisting(path string) (string, error) {
	p := filepath.Clean(path)
	for {
		fi, err := os.Stat(p)
		switch {
		case err == nil && fi.IsDir():
			return p, nil
		case err == nil:
			return "", fmt.Errorf("cannot create %s: %s is a file, not a folder", path, p)
		case !errors.Is(err, os.ErrNotExist) && !errors.Is(err, syscall.ENOTDIR):
			return "", fmt.Errorf("cannot create %s: %w", path, err)
		}
		parent := filepath.Dir(p)
		if parent == p {
			return "", fmt.Errorf("cannot create %s: no part of it exists", path)
		}
		p = parent
	}
}

// probe creates and removes a file in dir: the one test of writability
// that permissions, read-only mounts and quotas all answer truthfully.
func probe(dir, what string) error {
	f, err := os.CreateTemp(dir, ".llmbench-probe-*")
	if err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	name := f.Name()
	f.Close()
	return os.Remove(name)
}
