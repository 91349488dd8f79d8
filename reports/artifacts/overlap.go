package artifacts

import (
	"errors"
	"io/fs"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/llmbench/llmbench/runtime/failure"
)

// CheckOutputApart refuses an output path that is one of inputs, contains
// one, or lies inside one, naming flag and both paths (exit 2). Every
// command that writes calls it for each output before opening anything
// for writing, because writing where the measured data is read from
// destroys it: `merge s0 s1 --out s0` truncated s0's records.parquet
// before reading it. Paths are compared as the file system resolves
// them — absolute, symbolic links followed as far as the path exists —
// so a relative path, a "..", or a link to the same folder is caught
// too. Empty paths (an output or input not given) are skipped.
func CheckOutputApart(flag, out string, inputs ...string) error {
	if out == "" {
		return nil
	}
	o, err := resolvePath(out)
	if err != nil {
		return failure.Inputf("%s %s: %w", flag, out, err)
	}
	for _, in := range inputs {
		if in == "" {
			continue
		}
		i, err := resolvePath(in)
		if err != nil {
			return failure.Inputf("%s %s: input %s: %w", flag, out, in, err)
		}
		if how := overlap(o, i); how != "" {
			return failure.Inputf("%s %s %s the input %s: choose an output apart from every input, so that nothing read (measured data above all) is written over",
				flag, out, how, in)
		}
	}
	return nil
}

// overlap says how the resolved output o stands to the resolved input i:
// "is", "contains", "lies inside", or "" when they are apart.
func overlap(o, i string) string {
	switch {
	case o == i:
		return "is"
	case below(i, o):
		return "contains"
	case below(o, i):
		return "lies inside"
	}
	return ""
}

// below tells whether path p lies strictly below folder dir (both clean
// and absolute).
func below(p, dir string) bool {
	rel, err := filepath.Rel(dir, p)
	return err == nil && rel != "." && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// resolvePath is path made absolute with the symbolic links of its
// longest existing prefix followed; the part that does not exist yet
// (an output still to be created) is appended as written.
func resolvePath(path string) (string, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", err
	}
	var rest []string
	p := abs
	for {
		real, err := filepath.EvalSymlinks(p)
		if err == nil {
			return filepath.Join(append([]string{real}, rest...)...), nil
		}
		if !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, syscall.ENOTDIR) {
			return "", err
		}
		parent := filepath.Dir(p)
		if parent == p {
			return abs, nil
		}
		rest = append([]string{filepath.Base(p)}, rest...)
		p = parent
	}
}
