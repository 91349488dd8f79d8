package records

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/llmbench/llmbench/metrics"
	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/compress/zstd"
)

// TelemetryFile is the name of a point's telemetry samples file.
const TelemetryFile = "telemetry.parquet"

// telemetryRow is one sample as telemetry.parquet holds it (SPEC §8:
// time, source, host, gpu, metric, value), flat so DuckDB, pandas and
// Polars read it without unnesting. host and gpu are the DCGM labels
// (Hostname, gpu) pulled out because every GPU query groups by them;
// labels keeps every label, so nothing is lost (histogram buckets' le,
// model_name, UUID). simulated flags the rows of a source that served
// llmbench's simulator's made-up metrics (metrics.SimulatedMarker).
type telemetryRow struct {
	TimeNs    int64   `parquet:"time_ns,timestamp(nanosecond)"`
	Source    string  `parquet:"source,dict"`
	Host      string  `parquet:"host,dict"`
	GPU       string  `parquet:"gpu,dict"`
	Metric    string  `parquet:"metric,dict"`
	Value     float64 `parquet:"value"`
	Labels    string  `parquet:"labels"`
	Simulated bool    `parquet:"simulated"`
}

// telemetryAccountKey is the file metadata key holding how the scrapes
// went (sources, failures, gaps, warnings) as JSON, so a point rebuilt
// from the file reports them as the run did.
const telemetryAccountKey = "llmbench.telemetry.account"

// WriteTelemetry writes a point's samples as telemetry.parquet, with
// account (the scrapes' own report, JSON; "" for none) in the file's
// metadata. Samples are written whole at the point's end: they are few (a
// few hundred per scrape) next to the requests, whose file streams.
func WriteTelemetry(w io.Writer, samples []metrics.TelemetrySample, account string) error {
	opts := []parquet.WriterOption{parquet.Compression(&zstd.Codec{Level: zstd.SpeedDefault})}
	if account != "" {
		opts = append(opts, parquet.KeyValueMetadata(telemetryAccountKey, account))
	}
	pw := parquet.NewGenericWriter[telemetryRow](w, opts...)
	rows := make([]telemetryRow, 0, 4096)
	flush := func() error {
		_, err := pw.Write(rows)
		rows = rows[:0]
		return err
	}
	encoded := labelsEncoder{}
	simulated := metrics.SimulatedSources(samples)
	for i := range samples {
		s := &samples[i]
		rows = append(rows, telemetryRow{TimeNs: s.Time, Source: s.Source, Host: s.Label("Hostname"), GPU: s.Label("gpu"),
			Metric: s.Name, Value: s.Value, Labels: encoded.of(s.Labels), Simulated: slices.Contains(simulated, s.Source)})
		if len(rows) == cap(rows) {
			if err := flush(); err != nil {
				return err
			}
		}
	}
	if err := flush(); err != nil {
		return err
	}
	return pw.Close()
}

// ReadTelemetry reads telemetry.parquet back (llmbench report rebuilds a
// point's telemetry from it): the samples and the scrapes' account.
func ReadTelemetry(r io.ReaderAt, size int64) ([]metrics.TelemetrySample, string, error) {
	var f *parquet.File
	err := guard("its footer", func() (err error) {
		f, err = parquet.OpenFile(r, size)
		return err
	})
	if err != nil {
		return nil, "", fmt.Errorf("%s: %w", TelemetryFile, err)
	}
	account, _ := f.Lookup(telemetryAccountKey)
	samples, err := readTelemetryRows(f)
	return samples, account, err
}

func readTelemetryRows(f *parquet.File) ([]metrics.TelemetrySample, error) {
	var pr *parquet.GenericReader[telemetryRow]
	if err := guard("its schema", func() error {
		pr = parquet.NewGenericReader[telemetryRow](f)
		return nil
	}); err != nil {
		return nil, fmt.Errorf("%s: %w", TelemetryFile, err)
	}
	defer guard("its end", pr.Close) //nolint:errcheck // the rows were read
	var out []metrics.TelemetrySample
	in := newSeriesInterner()
	buf := make([]telemetryRow, 1024)
	for {
		var n int
		err := guard(fmt.Sprintf("rows from %d", len(out)+1), func() (err error) {
			n, err = pr.Read(buf)
			return err
		})
		for _, row := range buf[:n] {
			labels, lerr := in.labels(row.Labels)
			if lerr != nil {
				return nil, fmt.Errorf("%s: %w", TelemetryFile, lerr)
			}
			out = append(out, metrics.TelemetrySample{Time: row.TimeNs, Source: in.text(row.Source), Name: in.text(row.Metric),
				Labels: labels, Value: row.Value})
		}
		switch {
		case errors.Is(err, io.EOF):
			return out, nil
		case err != nil:
			return nil, fmt.Errorf("%s: %w", TelemetryFile, err)
		case n == 0:
			// A damaged page can make the reader return no rows and no
			// error for ever: the read would never end.
			return nil, fmt.Errorf("%s: %w", TelemetryFile, &corruptError{where: fmt.Sprintf("row %d of %d", len(out)+1, f.NumRows()),
				what: "the Parquet reader returned no rows and no end"})
		}
	}
}

// seriesInterner gives every row of a series the same source and metric
// strings and the same labels slice, as the scraper's samples share them:
// a long point read back then costs a sample's fixed size per row, not
// its labels again, and each distinct labels text is decoded once.
type seriesInterner struct {
	texts     map[string]string
	labelSets map[string][]metrics.Label
}

// maxInterned bounds what an interner remembers: past it (a file whose
// label values never repeat) rows get their own copies.
const maxInterned = 1 << 16

func newSeriesInterner() *seriesInterner {
	return &seriesInterner{texts: map[string]string{}, labelSets: map[string][]metrics.Label{}}
}

func (in *seriesInterner) text(s string) string {
	if t, ok := in.texts[s]; ok {
		return t
	}
	if len(in.texts) < maxInterned {
		in.texts[s] = s
	}
	return s
}

// labels decodes an encoded label set, capped at its length so that a
// consumer appending to one sample's labels copies them.
func (in *seriesInterner) labels(encoded string) ([]metrics.Label, error) {
	if ls, ok := in.labelSets[encoded]; ok {
		return ls, nil
	}
	ls, err := decodeLabels(encoded)
	if err != nil {
		return nil, err
	}
	ls = ls[:len(ls):len(ls)]
	if len(in.labelSets) < maxInterned {
		in.labelSets[encoded] = ls
	}
	return ls, nil
}

// labelsEncoder encodes each labels slice once: the scraper gives every
// sample of a series the same slice, and encoding per sample had been
// most of a long point's write time. A slice is known by where it starts
// and its length; samples are not changed while they are written.
type labelsEncoder map[labelsAt]string

type labelsAt struct {
	first *metrics.Label
	n     int
}

func (e labelsEncoder) of(labels []metrics.Label) string {
	if len(labels) == 0 {
		return ""
	}
	at := labelsAt{&labels[0], len(labels)}
	text, ok := e[at]
	if !ok {
		text = encodeLabels(labels)
		if len(e) < maxInterned { // slices not shared: stop remembering
			e[at] = text
		}
	}
	return text
}

// encodeLabels writes labels as name="value" pairs joined by commas,
// values quoted as in the exposition they came from, so the column reads
// like the Prometheus series it was. A name other than a classic
// Prometheus one (letters, digits, _) is quoted too, as the exposition
// quotes it: a page may send {"a=b"="v"}, and unquoted its = and , would
// make the file unreadable.
func encodeLabels(labels []metrics.Label) string {
	var b strings.Builder
	for i, l := range labels {
		if i > 0 {
			b.WriteByte(',')
		}
		if plainLabelName(l.Name) {
			b.WriteString(l.Name)
		} else {
			b.WriteString(strconv.Quote(l.Name))
		}
		b.WriteByte('=')
		b.WriteString(strconv.Quote(l.Value))
	}
	return b.String()
}

// plainLabelName reports a classic Prometheus label name,
// [a-zA-Z_][a-zA-Z0-9_]*, which encodeLabels writes unquoted.
func plainLabelName(s string) bool {
	for i, r := range s {
		if !(r == '_' || 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || i > 0 && '0' <= r && r <= '9') {
			return false
		}
	}
	return s != ""
}

// cutLabelName reads the name at the start of s, quoted or not, and
// returns what follows its "=".
func cutLabelName(s string) (name, rest string, err error) {
	if s[0] != '"' {
		name, rest, ok := strings.Cut(s, "=")
		if !ok {
			return "", "", fmt.Errorf("labels: want name=\"value\", got %q", s)
		}
		return name, rest, nil
	}
	end := closingQuote(s)
	if end < 0 {
		return "", "", fmt.Errorf("labels: unterminated name in %q", s)
	}
	if name, err = strconv.Unquote(s[:end+1]); err != nil {
		return "", "", fmt.Errorf("labels: name %s: %w", s[:end+1], err)
	}
	rest, ok := strings.CutPrefix(s[end+1:], "=")
	if !ok {
		return "", "", fmt.Errorf("labels: want \"name\"=\"value\", got %q", s)
	}
	return name, rest, nil
}

func decodeLabels(s string) ([]metrics.Label, error) {
	var out []metrics.Label
	for s != "" {
		name, rest, err := cutLabelName(s)
		if err != nil {
			return nil, err
		}
		if rest == "" || rest[0] != '"' {
			return nil, fmt.Errorf("labels: want name=\"value\", got %q", s)
		}
		end := closingQuote(rest)
		if end < 0 {
			return nil, fmt.Errorf("labels: unterminated value in %q", s)
		}
		var value string
		if _, err := fmt.Sscanf(rest[:end+1], "%q", &value); err != nil {
			return nil, fmt.Errorf("labels: %q: %w", rest[:end+1], err)
		}
		out = append(out, metrics.Label{Name: name, Value: value})
		s = strings.TrimPrefix(rest[end+1:], ",")
	}
	return out, nil
}

// closingQuote is the index of the quote ending the Go-quoted string at
// the start of s, or -1.
func closingQuote(s string) int {
	for i := 1; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case '"':
			return i
		}
	}
	return -1
}
