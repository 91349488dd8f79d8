package builtins

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
)

// folder confines a scenario's file access to the folder it lives in
// (SPEC §11): load() and dataset paths are relative and may not climb out,
// not even through a symbolic link (os.Root enforces that). The one way
// out is an absolute path the user typed on the command line as a -D value,
// which they have plainly chosen to expose.
type folder struct {
	// dir is the scenario's folder, absolute; shown is the same folder as
	// the user wrote it, for messages.
	dir, shown string
	root       *os.Root
	// allowed holds the absolute paths given as -D values.
	allowed map[string]bool
}

func openFolder(scenario string, vars map[string]string) (*folder, error) {
	dir, err := filepath.Abs(filepath.Dir(scenario))
	if err != nil {
		return nil, err
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, err
	}
	f := &folder{dir: dir, shown: filepath.Dir(scenario), root: root, allowed: map[string]bool{}}
	for _, v := range vars {
		f.allowOutside(v)
	}
	return f, nil
}

// allowOutside lets the scenario use v as a path when it is absolute: it
// came from outside the file (-D, env()), where the user, not the
// scenario's author, chose it (SPEC §11).
func (f *folder) allowOutside(v string) {
	if filepath.IsAbs(v) {
		f.allowed[filepath.Clean(v)] = true
	}
}

func (f *folder) close() { _ = f.root.Close() }

// key resolves name, written relative to the folder fromDir (a key's
// directory, "." for the scenario's), to a module key: a slash-separated
// path relative to the scenario's folder, or an allowed absolute path.
func (f *folder) key(fromDir, name string) (string, error) {
	if filepath.IsAbs(name) {
		if !f.allowed[filepath.Clean(name)] {
			return "", f.outside(name)
		}
		return filepath.Clean(name), nil
	}
	rel := path.Join(fromDir, name)
	if !filepath.IsLocal(filepath.FromSlash(rel)) {
		return "", f.outside(name)
	}
	return rel, nil
}

func (f *folder) outside(name string) error {
	return fmt.Errorf("%s is outside the scenario's folder %s: a scenario may only use files inside its folder "+
		"(or an absolute path given from outside it, with -D or through env())", name, f.dir)
}

// read returns a file's contents by key.
func (f *folder) read(key string) ([]byte, error) {
	if filepath.IsAbs(key) {
		return os.ReadFile(key)
	}
	src, err := f.root.ReadFile(filepath.FromSlash(key))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%s: no such file", f.display(key))
	}
	return src, err
}

// display names a key as a path the user can type from where they ran
// llmbench.
func (f *folder) display(key string) string {
	if filepath.IsAbs(key) {
		return key
	}
	return filepath.Join(f.shown, filepath.FromSlash(key))
}

// existing resolves a data file path given in the script (relative to the
// scenario's folder) to an absolute path, after checking that it is inside
// the folder and is a regular file, so a typo fails at load time rather
// than in the middle of a run.
func (f *folder) existing(name string) (string, error) {
	if name == "" {
		return "", errors.New("got an empty path, want a file")
	}
	key, err := f.key(".", name)
	if err != nil {
		return "", err
	}
	var info fs.FileInfo
	if filepath.IsAbs(key) {
		info, err = os.Stat(key)
	} else {
		info, err = f.root.Stat(filepath.FromSlash(key))
	}
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "", fmt.Errorf("%s: no such file", f.display(key))
	case err != nil:
		return "", err
	case info.IsDir():
		return "", fmt.Errorf("%s is a folder, want a file", f.display(key))
	}
	if filepath.IsAbs(key) {
		return key, nil
	}
	return filepath.Join(f.dir, filepath.FromSlash(key)), nil
}

// place resolves a path given in the script (relative to the scenario's
// folder, which it may not leave) to one the user can type from where
// they ran llmbench, without requiring it to exist: a baseline folder
// may be missing on a branch's first run, which the command line decides
// about (--allow-missing-baseline).
func (f *folder) place(name string) (string, error) {
	if name == "" {
		return "", errors.New("got an empty path, want a folder")
	}
	key, err := f.key(".", name)
	if err != nil {
		return "", err
	}
	return f.display(key), nil
}
