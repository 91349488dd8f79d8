package genaiperf

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
)

// requestsKey opens the request list of ProfileExportWriter's output.
var requestsKey = []byte(`,"requests":[`)

// RepairProfileExport makes a profile_export.json that a killed run left
// cut mid-write valid again: it keeps the request entries written whole
// whose send time is in sent (the completed requests records.parquet
// holds, so the export and the records describe the same requests; nil
// keeps every whole one), drops the torn one, and closes the document as
// Close would have, window_boundaries from the kept entries. The failures
// that waited in the killed run's temporary file are lost. A valid file is
// left alone. It reports how many requests the repaired file holds.
func RepairProfileExport(path string, r *Run, sent map[int64]bool) (kept int, repaired bool, err error) {
	b, err := os.ReadFile(path)
	if err != nil || json.Valid(b) {
		return 0, false, err
	}
	start := bytes.Index(b, requestsKey)
	if start < 0 {
		return 0, false, fmt.Errorf("%s: not an llmbench profile export (no request list)", path)
	}
	start += len(requestsKey)
	e := encoder{style: rapidCompact, buf: append([]byte(nil), b[:start]...)}
	var times []entryTimes
	for _, el := range wholeElements(b[start:]) {
		var t entryTimes
		if err := json.Unmarshal(el, &t); err != nil {
			return 0, false, fmt.Errorf("%s: %w", path, err)
		}
		if sent != nil && !sent[t.Timestamp] {
			continue
		}
		if len(times) > 0 {
			e.buf = append(e.buf, ',')
		}
		e.buf = append(e.buf, el...)
		times = append(times, t)
	}
	e.buf = append(e.buf, `],"window_boundaries":`...)
	e.encode(window(times), 0)
	e.buf = append(e.buf, `}],"version":`...)
	e.encode(r.Version, 0)
	e.buf = append(e.buf, `,"service_kind":`...)
	e.encode(r.serviceKind(), 0)
	e.buf = append(e.buf, `,"endpoint":`...)
	e.encode(r.endpointPath(), 0)
	e.buf = append(e.buf, '}')
	if err := os.WriteFile(path, e.buf, 0o644); err != nil {
		return 0, false, err
	}
	return len(times), true, nil
}

// entryTimes are the times of one request entry of the export.
type entryTimes struct {
	Timestamp          int64   `json:"timestamp"`
	ResponseTimestamps []int64 `json:"response_timestamps"`
}

// window is [first request sent, last response] of the entries, or [].
func window(times []entryTimes) []any {
	if len(times) == 0 {
		return []any{}
	}
	first, last := times[0].Timestamp, times[0].Timestamp
	for _, t := range times {
		first = min(first, t.Timestamp)
		for _, at := range t.ResponseTimestamps {
			last = max(last, at)
		}
	}
	return []any{first, last}
}

// wholeElements are the complete elements of a JSON array body (what
// follows '['), in order, up to the first one cut short or the array's
// end. It follows strings and nesting, so a payload holding "}" or ","
// does not end an element early.
func wholeElements(body []byte) [][]byte {
	var out [][]byte
	depth, inString, escaped, from := 0, false, false, 0
	for i, c := range body {
		switch {
		case inString:
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
		case c == '"':
			inString = true
		case c == '{' || c == '[':
			if depth == 0 {
				from = i
			}
			depth++
		case c == '}' || c == ']':
			depth--
			if depth < 0 {
				return out
			}
			if depth == 0 {
				out = append(out, body[from:i+1])
			}
		}
	}
	return out
}
