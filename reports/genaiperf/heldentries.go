package genaiperf

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
)

// HeldExportFile is where an auto point's export entries wait for its
// warm-up cut, in the export's spill folder (the point's): laid out as
// the export's own beginning, so the file a killed auto point leaves is
// an export cut short, which RepairProfileExport makes valid (its
// warm-up cut was never decided: every request it holds is kept). Cut
// removes it.
const HeldExportFile = "profile_export.held.json"

// heldEntries are the encoded entries of an auto point's requests, in
// the order written, kept in a file until the point ends and its warm-up
// (the first of them) is known: perf_analyzer's export holds no warm-up
// request, and a request's entry cannot be taken back once streamed.
// Memory holds what the window needs of each (exported), not its entry,
// so it grows by a few bytes a request.
type heldEntries struct {
	header []byte   // the export's beginning, up to its request list
	file   *os.File // created at the first entry
	buf    *bufio.Writer
	sizes  []int
	meta   []exported
}

// Hold keeps every entry written from now on out of the export until
// Cut, which is given how many of them were warm-up. Call it before the
// first Write.
func (p *ProfileExportWriter) Hold() {
	if p.held == nil {
		p.held = &heldEntries{header: slices.Clone(p.e.buf)}
	}
}

// Cut writes the held entries into the export, leaving the first warmup
// of them out, and ends the hold; without Hold it does nothing.
func (p *ProfileExportWriter) Cut(warmup int) error {
	h := p.held
	if h == nil {
		return nil
	}
	p.held = nil
	defer h.remove()
	if h.file == nil {
		return nil
	}
	if err := h.buf.Flush(); err != nil {
		return err
	}
	if _, err := h.file.Seek(0, io.SeekStart); err != nil {
		return err
	}
	in := bufio.NewReaderSize(h.file, 64<<10)
	if _, err := in.Discard(len(h.header)); err != nil {
		return fmt.Errorf("genaiperf: held export entries: %w", err)
	}
	var entry []byte
	for i, size := range h.sizes {
		if i > 0 {
			size++ // the comma before it
		}
		if cap(entry) < size {
			entry = make([]byte, size)
		}
		entry = entry[:size]
		if _, err := io.ReadFull(in, entry); err != nil {
			return fmt.Errorf("genaiperf: held export entries: %w", err)
		}
		if i < warmup {
			continue
		}
		if err := p.put(entry[size-h.sizes[i]:], h.meta[i]); err != nil {
			return err
		}
	}
	return nil
}

// add keeps one encoded entry, creating the file (HeldExportFile in dir,
// a temporary file when dir is "") at the first.
func (h *heldEntries) add(dir string, entry []byte, e exported) error {
	if h.file == nil {
		if err := h.create(dir); err != nil {
			return err
		}
	}
	if len(h.sizes) > 0 {
		if err := h.buf.WriteByte(','); err != nil {
			return err
		}
	}
	if _, err := h.buf.Write(entry); err != nil {
		return err
	}
	h.sizes, h.meta = append(h.sizes, len(entry)), append(h.meta, e)
	return nil
}

func (h *heldEntries) create(dir string) (err error) {
	var f *os.File
	if dir == "" {
		f, err = os.CreateTemp("", "profile_export.held-*.json")
	} else {
		f, err = os.Create(filepath.Join(dir, HeldExportFile))
	}
	if err != nil {
		return err
	}
	h.file, h.buf = f, bufio.NewWriterSize(f, 64<<10)
	_, err = h.buf.Write(h.header)
	return err
}

// remove deletes the file; a nil hold has none.
func (h *heldEntries) remove() {
	if h != nil && h.file != nil {
		h.file.Close()
		os.Remove(h.file.Name())
		h.file = nil
	}
}
