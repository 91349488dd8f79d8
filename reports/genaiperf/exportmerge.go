package genaiperf

import (
	"bufio"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/buger/jsonparser"
)

// MergeProfileExports writes to w the profile_export.json of a point
// measured by several shards (`llmbench merge`): the union of the shards'
// exports (ProfileExportWriter's output), as one machine's run would have
// written it. The entries are copied byte for byte; their order is a
// k-way merge of the shards' lists (each already in completion order) by
// last response, then send time, and the failures are merged the same way
// into "llmbench_failed_requests". The experiment, version, service kind
// and endpoint are the first export's (every shard describes the whole
// point, not its share); window_boundaries spans every shard's window.
// One entry per shard is held at a time, so memory does not grow with
// the number of requests.
func MergeProfileExports(w io.Writer, paths []string) error {
	if len(paths) == 0 {
		return errors.New("no export to merge")
	}
	readers := make([]*exportReader, 0, len(paths))
	defer func() {
		for _, r := range readers {
			r.f.Close()
		}
	}()
	for _, p := range paths {
		r, err := openExport(p)
		if err != nil {
			return err
		}
		readers = append(readers, r)
	}
	out := bufio.NewWriterSize(w, 64<<10)
	out.WriteString(`{"experiments":[{"experiment":`)
	out.Write(readers[0].experiment)
	out.WriteString(`,"requests":[`)
	if err := mergeEntries(out, readers); err != nil {
		return err
	}
	var failing []*exportReader
	for _, r := range readers {
		has, err := r.failures()
		if err != nil {
			return err
		}
		if has {
			failing = append(failing, r)
		}
	}
	if len(failing) > 0 {
		out.WriteString(`],"llmbench_failed_requests":[`)
		if err := mergeEntries(out, failing); err != nil {
			return err
		}
	}
	for _, r := range readers {
		if err := r.finish(); err != nil {
			return err
		}
	}
	out.WriteString(`],"window_boundaries":`)
	out.WriteString(mergedWindow(readers))
	first := readers[0]
	fmt.Fprintf(out, `}],"version":%s,"service_kind":%s,"endpoint":%s}`, first.version, first.serviceKind, first.endpoint)
	return out.Flush()
}

// mergeEntries copies the entries of every reader's current list to out,
// earliest finished first, and leaves each reader after its list's end.
func mergeEntries(out *bufio.Writer, readers []*exportReader) error {
	heads := make([]*exportEntry, len(readers))
	for i, r := range readers {
		e, err := r.next()
		if err != nil {
			return err
		}
		heads[i] = e
	}
	for n := 0; ; n++ {
		best := -1
		for i, h := range heads {
			if h != nil && (best < 0 || h.before(heads[best])) {
				best = i
			}
		}
		if best < 0 {
			return nil
		}
		if n > 0 {
			out.WriteByte(',')
		}
		out.Write(heads[best].raw)
		e, err := readers[best].next()
		if err != nil {
			return err
		}
		heads[best] = e
	}
}

// mergedWindow is [earliest first send, latest last response] over the
// shards' windows, or [] when no shard measured a request.
func mergedWindow(readers []*exportReader) string {
	var lo, hi int64
	seen := false
	for _, r := range readers {
		if len(r.window) != 2 {
			continue
		}
		if !seen {
			lo, hi, seen = r.window[0], r.window[1], true
		}
		lo, hi = min(lo, r.window[0]), max(hi, r.window[1])
	}
	if !seen {
		return "[]"
	}
	return fmt.Sprintf("[%d,%d]", lo, hi)
}

// exportEntry is one request entry, raw, with what orders it.
type exportEntry struct {
	raw        json.RawMessage
	done, sent int64
}

func (a *exportEntry) before(b *exportEntry) bool {
	return cmp.Or(cmp.Compare(a.done, b.done), cmp.Compare(a.sent, b.sent)) < 0
}

// exportReader walks one export's document token by token, handing out
// its entries one at a time.
type exportReader struct {
	path                           string
	f                              *os.File
	dec                            *json.Decoder
	experiment                     json.RawMessage
	window                         []int64
	windowRead                     bool
	version, serviceKind, endpoint json.RawMessage
}

// openExport reads an export up to its first request entry.
func openExport(path string) (*exportReader, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	r := &exportReader{path: path, f: f, dec: json.NewDecoder(bufio.NewReaderSize(f, 64<<10))}
	err = r.expect(json.Delim('{'), "experiments", json.Delim('['), json.Delim('{'), "experiment")
	if err == nil {
		err = r.decode(&r.experiment)
	}
	if err == nil {
		err = r.expect("requests", json.Delim('['))
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return r, nil
}

// next is the current list's next entry, or nil past its end.
func (r *exportReader) next() (*exportEntry, error) {
	if !r.dec.More() {
		return nil, r.expect(json.Delim(']'))
	}
	e := &exportEntry{}
	if err := r.decode(&e.raw); err != nil {
		return nil, err
	}
	var err error
	if e.sent, e.done, err = entryOrder(e.raw); err != nil {
		return nil, r.errorf("a request entry: %v", err)
	}
	return e, nil
}

// entryOrder reads an entry's send time and its last response's (the send
// time when it has none), skipping over the rest of the entry unparsed.
func entryOrder(raw []byte) (sent, done int64, err error) {
	if sent, err = jsonparser.GetInt(raw, "timestamp"); err != nil {
		return 0, 0, fmt.Errorf("timestamp: %w", err)
	}
	done = sent
	var bad error
	_, err = jsonparser.ArrayEach(raw, func(v []byte, _ jsonparser.ValueType, _ int, _ error) {
		at, perr := jsonparser.ParseInt(v)
		bad = cmp.Or(bad, perr)
		done = max(done, at)
	}, "response_timestamps")
	if err = cmp.Or(err, bad); err != nil {
		return 0, 0, fmt.Errorf("response_timestamps: %w", err)
	}
	return sent, done, nil
}

// failures moves from the end of the request list into the list of
// failures; false when the export has none.
func (r *exportReader) failures() (bool, error) {
	key, err := r.key()
	switch {
	case err != nil:
		return false, err
	case key == "llmbench_failed_requests":
		return true, r.expect(json.Delim('['))
	case key == "window_boundaries":
		r.windowRead = true
		return false, r.decode(&r.window)
	}
	return false, r.errorf("unexpected key %q after the request list", key)
}

// finish reads the rest of the document: the window, and the version,
// service kind and endpoint.
func (r *exportReader) finish() error {
	if !r.windowRead {
		if err := r.expect("window_boundaries"); err != nil {
			return err
		}
		if err := r.decode(&r.window); err != nil {
			return err
		}
	}
	if err := r.expect(json.Delim('}'), json.Delim(']')); err != nil {
		return err
	}
	for r.dec.More() {
		key, err := r.key()
		if err != nil {
			return err
		}
		var v json.RawMessage
		if err := r.decode(&v); err != nil {
			return err
		}
		switch key {
		case "version":
			r.version = v
		case "service_kind":
			r.serviceKind = v
		case "endpoint":
			r.endpoint = v
		}
	}
	if r.version == nil || r.serviceKind == nil || r.endpoint == nil {
		return r.errorf("no version, service_kind or endpoint")
	}
	return r.expect(json.Delim('}'))
}

// expect reads the tokens wanted: delimiters, and strings for keys.
func (r *exportReader) expect(want ...json.Token) error {
	for _, w := range want {
		tok, err := r.dec.Token()
		if err != nil {
			return r.errorf("%v", err)
		}
		if tok != w {
			return r.errorf("got %v where %v was expected", tok, w)
		}
	}
	return nil
}

func (r *exportReader) key() (string, error) {
	tok, err := r.dec.Token()
	if err != nil {
		return "", r.errorf("%v", err)
	}
	k, ok := tok.(string)
	if !ok {
		return "", r.errorf("got %v where a key was expected", tok)
	}
	return k, nil
}

func (r *exportReader) decode(v any) error {
	if err := r.dec.Decode(v); err != nil {
		return r.errorf("%v", err)
	}
	return nil
}

func (r *exportReader) errorf(format string, args ...any) error {
	return fmt.Errorf("%s: not a profile export llmbench wrote: %s", r.path, fmt.Sprintf(format, args...))
}
