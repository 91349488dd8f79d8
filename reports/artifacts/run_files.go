package artifacts

import (
	"fmt"
	"io"
	"path/filepath"
)

// FileRef is one file a RunReport writes, named by what it holds.
type FileRef struct{ What, Path string }

// Files are the files Write writes beside the point folders, in the order
// a reader looks for them: the page a person opens, the summary a program
// reads, the verdicts, then the comparison and the files asked for by
// flag. A user who just ran a scenario should not have to guess where
// they went.
func (r *RunReport) Files() []FileRef {
	files := []FileRef{
		{"Report", filepath.Join(r.Dir, htmlFile)},
		{"Summary", filepath.Join(r.Dir, SummaryFile)},
		{"Gates", filepath.Join(r.Dir, gatesFile)},
	}
	if r.Comparison != nil {
		files = append(files, FileRef{"Comparison", filepath.Join(r.Dir, CompareFile)})
	}
	if r.JUnit != "" {
		files = append(files, FileRef{"JUnit", r.JUnit})
	}
	if r.Markdown != "" {
		files = append(files, FileRef{"Markdown", r.Markdown})
	}
	return files
}

// WriteFileList prints Files, one "What: path" a line, aligned.
func (r *RunReport) WriteFileList(w io.Writer) error {
	files := r.Files()
	width := 0
	for _, f := range files {
		width = max(width, len(f.What))
	}
	for _, f := range files {
		if _, err := fmt.Fprintf(w, "%-*s %s\n", width+1, f.What+":", f.Path); err != nil {
			return err
		}
	}
	return nil
}
