package telemetry

import (
	"bytes"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/llmbench/llmbench/metrics"
)

// edgeCases are pages at the corners of the text format, for the
// differential fuzz test's seeds. accepted says whether expfmt reads the
// page; direct, whether the direct reader takes it itself (the rest go
// to expfmt).
var edgeCases = []struct {
	name, page       string
	accepted, direct bool
}{
	{"escapes", "x{path=\"C:\\\\dir\",q=\"say \\\"hi\\\"\\n\"} 1\n", true, true},
	{"bad escape in a label", "x{a=\"\\t\"} 1\n", false, false},
	{"help escapes", "# HELP x a \\\\ b \\n c \\\"\n# TYPE x gauge\nx 1\n", true, true},
	{"bad help escape", "# HELP x a \\t\nx 1\n", false, false},
	{"help ending in a backslash", "# HELP x a \\\nx 1\n", false, false},
	{"second help", "# HELP x a\n# HELP x b\nx 1\n", false, false},
	{"blank helps", "# HELP x\n# HELP x  \n# HELP x a\nx 1\n", true, true},
	{"NaN and infinities", "a NaN\nb +Inf\nc -Inf\nd nan\ne inf\nf -infinity\ng 0x1.8\nh 1e400\n", false, false},
	{"values", "a NaN\nb +Inf\nc -Inf\nd nan\ne inf\nf -Infinity\ng .5\nh -0\ni 1e-400\nj 0x10\nk 1_0\n", false, false},
	{"plain values", "a NaN\nb +Inf\nc -Inf\nd nan\ne inf\nf -Infinity\ng .5\nh -0\ni 1e-400\nj 1E3\n", true, true},
	{"hex float with p", "a 0x1p-2\n", false, false},
	{"timestamps", "a 1 1700000000000\nb{x=\"y\"} 2 -5\nc 3 +7\n", true, true},
	{"bad timestamp", "a 1 1.5\n", false, false},
	{"timestamp out of range", "a 1 99999999999999999999\n", false, false},
	{"blank after timestamp", "a 1 2 \n", false, false},
	{"two timestamps", "a 1 2 3\n", false, false},
	{"histogram without +Inf", "# TYPE a histogram\na_bucket{le=\"1\"} 2\na_count 3\na_sum 1.5\n", true, true},
	{"histogram without count", "# TYPE b histogram\nb_bucket{le=\"1\"} 2\n", true, true},
	{"histogram with float buckets and no count", "# TYPE b histogram\nb_bucket{le=\"1\"} 2.5\nb_bucket{le=\"2\"} 3\n", true, true},
	{"histogram: negative bucket", "# TYPE h histogram\nh_bucket{le=\"1\"} -1\n", false, false},
	{"histogram: negative count", "# TYPE h histogram\nh_count -1\n", false, false},
	{"histogram: -0 bucket", "# TYPE h histogram\nh_bucket{le=\"1\"} -0\nh_count 0.5\n", true, true},
	{"histogram: float then integer count", "# TYPE h histogram\nh_count 1.5\nh_count 2\nh_bucket{le=\"+Inf\"} 2\n", true, true},
	{"histogram: huge and NaN counts", "# TYPE h histogram\nh_bucket{le=\"1\"} 1e30\nh_bucket{le=\"2\"} NaN\nh_count +Inf\n", true, true},
	{"histogram: le twice, le NaN, no le", "# TYPE h histogram\nh_bucket{le=\"1\",le=\"2\"} 1\nh_bucket{le=\"NaN\"} 2\nh_bucket 3\nh{le=\"5\"} 4\n", true, true},
	{"histogram: bad le", "# TYPE h histogram\nh_bucket{le=\"one\"} 1\n", false, false},
	{"histogram: lines of two series interleaved", "# TYPE h histogram\nh_bucket{a=\"1\",le=\"1\"} 1\nh_bucket{a=\"2\",le=\"1\"} 2\nh_bucket{le=\"+Inf\",a=\"1\"} 3\nh_sum{a=\"2\"} 9\nh_count{a=\"1\"} 3\n", true, true},
	{"histogram: empty label value is its own series", "# TYPE h histogram\nh_bucket{a=\"\",le=\"1\"} 1\nh_bucket{le=\"1\"} 2\n", true, true},
	{"gauge histogram", "# TYPE g gaugehistogram\ng_bucket{le=\"1\"} 1\ng_gcount 1\n# TYPE k GAUGE_HISTOGRAM\nk_bucket{le=\"+Inf\"} 2\nk_count 2\n", true, true},
	{"summary", "# TYPE s summary\ns{quantile=\"0.5\"} 1\ns{quantile=\"0.9\",quantile=\"0.99\"} 2\ns{quantile=\"NaN\"} 3\ns 4\ns_sum 5\ns_count 6.7\ns_count -1\n", true, true},
	{"summary: bad quantile", "# TYPE s summary\ns{quantile=\"x\"} 1\n", false, false},
	{"summary: le is a label", "# TYPE s summary\ns{le=\"1\",quantile=\"0.5\"} 1\n", true, true},
	{"untyped", "# TYPE u untyped\nu 1\nv{a=\"b\"} 2\n", true, true},
	{"types in any case", "# TYPE a Counter\na 1\n# TYPE b gAuGe\nb 2\n", true, true},
	{"unknown type", "# TYPE a gaugeish\n", false, false},
	{"type with a trailing blank", "# TYPE a gauge \na 1\n", false, false},
	{"non-ASCII type", "# TYPE a ſummary\na_sum 1\n", true, false},
	{"duplicate TYPE", "# TYPE a gauge\n# TYPE a gauge\na 1\n", false, false},
	{"TYPE of a histogram's _count", "# TYPE h histogram\n# TYPE h_count gauge\n", false, false},
	{"a sample before its TYPE", "a 1\n# TYPE a gauge\n", false, false},
	{"TYPE after a family's _sum line", "x_sum 1\n# TYPE x summary\nx_sum 2\nx_count 3\n", true, true},
	{"HELP of x_sum before x's TYPE", "# HELP x_sum s \n# TYPE x summary\nx_sum 1\nx_count 2\n", true, true},
	{"labels out of order", "a{z=\"1\",a=\"2\",m=\"3\"} 1\n", true, true},
	{"duplicate label", "a{z=\"1\",z=\"2\"} 1\n", false, false},
	{"__name__ label", "a{__name__=\"b\"} 1\n", false, false},
	{"empty label value", "a{b=\"\"} 1\n", true, true},
	{"blanks everywhere allowed", "  a \t{ b = \"c\" , d=\"e\" , } \t 1\n\t\n", true, true},
	{"trailing comma, empty braces", "a{b=\"c\",} 1\nb{} 2\n", true, true},
	{"empty label name", "a{=\"c\"} 1\n", false, false},
	{"colon in a label name", "a{b:c=\"d\"} 1\n", false, false},
	{"trailing spaces after a value", "a 1 \n", false, false},
	{"trailing blanks at the end of the page", "a 1\n  \t", true, true},
	{"CRLF", "a 1\r\nb 2\r\n", false, false},
	{"CRLF in comments", "# HELP a x\r\n# a comment\r\na 1\n", true, true},
	{"no final newline", "a 1", false, false},
	{"comment at the end without newline", "a 1\n# c", false, false},
	{"comments", "#\n# \n#x\n# random text\n# HELP\n# TYPE\n# TYPE \n# TYPE a\na 1\n", true, true},
	{"value glued to the name", "a-1\nb+Inf\nc.5\n", true, true},
	{"bad name", "1a 1\n", false, false},
	{"quoted UTF-8 names", "# TYPE \"gpu.power\" gauge\n{\"gpu.power\",\"gpu.index\"=\"0\"} 412.5\n", true, false},
	{"a quote inside a name", "ab\"c\" 1\n", true, false},
	{"braces without a name", "{} 1\n", false, false},
	{"a name that changes family mid-histogram", "# TYPE h histogram\nh_bucket{le=\"1\"} 1\nh2_bucket{le=\"1\"} 5\nh_bucket{le=\"+Inf\"} 2\nh_count 2\n", true, true},
	{"invalid UTF-8 in a label value", "a{b=\"\xff\"} 1\n", false, false},
	{"UTF-8 in a label value", "a{b=\"é ∑\"} 1\n", true, true},
	{"duplicate series", "a 1\na 2\n# TYPE h histogram\nh_sum 1\nh_sum 2\n", true, true},
	{"empty", "", true, true},
	{"only blank lines", "\n\n  \n", true, true},
}

// samePages checks the direct reader against expfmt on one page: both
// reject it (with the same message), or both read the same samples,
// bit for bit. Each side then reads the page again with its parser
// reused, and the two must agree on which samples share the first
// reading's labels.
func samePages(t *testing.T, page []byte) {
	t.Helper()
	p, ref := newParser(), newRefParser()
	for round := range 2 {
		got, gerr := p.parse(bytes.NewReader(page), "s", int64(round))
		want, werr := ref.parse(bytes.NewReader(page), "s", int64(round))
		if (gerr != nil) != (werr != nil) {
			t.Fatalf("round %d: error %v, expfmt's %v", round, gerr, werr)
		}
		if gerr != nil {
			if gerr.Error() != werr.Error() {
				t.Fatalf("error %q, expfmt's %q", gerr, werr)
			}
			return
		}
		if (got == nil) != (want == nil) || len(got) != len(want) {
			t.Fatalf("round %d: %d samples (nil %v), expfmt %d (nil %v)\n%v\n%v", round, len(got), got == nil, len(want), want == nil, lines(got), lines(want))
		}
		for i := range got {
			if !sameSample(got[i], want[i]) {
				t.Fatalf("round %d, sample %d: %s %v, expfmt %s %v", round, i, line(got[i]), got[i], line(want[i]), want[i])
			}
		}
		if round == 1 {
			first, _ := p.parse(bytes.NewReader(page), "s", 0)
			refFirst, _ := ref.parse(bytes.NewReader(page), "s", 0)
			for i := range got {
				if sharesLabels(first[i], got[i]) != sharesLabels(refFirst[i], want[i]) {
					t.Fatalf("sample %d %s: shares its labels %v, expfmt's %v", i, line(got[i]), sharesLabels(first[i], got[i]), sharesLabels(refFirst[i], want[i]))
				}
			}
		}
	}
}

func sameSample(a, b metrics.TelemetrySample) bool {
	if a.Time != b.Time || a.Source != b.Source || a.Name != b.Name ||
		math.Float64bits(a.Value) != math.Float64bits(b.Value) ||
		(a.Labels == nil) != (b.Labels == nil) || len(a.Labels) != len(b.Labels) || cap(a.Labels) != cap(b.Labels) {
		return false
	}
	for i := range a.Labels {
		if a.Labels[i] != b.Labels[i] {
			return false
		}
	}
	return true
}

func sharesLabels(a, b metrics.TelemetrySample) bool {
	return len(a.Labels) > 0 && len(b.Labels) > 0 && &a.Labels[0] == &b.Labels[0]
}

func fixtures(t testing.TB) map[string][]byte {
	paths, err := filepath.Glob(filepath.Join("testdata", "*.txt"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no fixtures: %v", err)
	}
	out := map[string][]byte{}
	for _, path := range paths {
		body, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		out[filepath.Base(path)] = body
	}
	return out
}

// FuzzParseMatchesExpfmt holds Parse to the expfmt-based parser it
// replaced (reference_test.go) on any bytes: both reject, with the same
// message, or both accept with identical samples.
//
//	go test -run '^$' -fuzz FuzzParseMatchesExpfmt -fuzztime 10m ./transport/telemetry/
func FuzzParseMatchesExpfmt(f *testing.F) {
	for _, page := range fixtures(f) {
		f.Add(page)
	}
	for _, c := range edgeCases {
		f.Add([]byte(c.page))
	}
	f.Fuzz(func(t *testing.T, page []byte) { samePages(t, page) })
}

// The edge cases read as their table says, the same either way.
func TestParseEdgeCasesMatchExpfmt(t *testing.T) {
	for _, c := range edgeCases {
		t.Run(c.name, func(t *testing.T) {
			samePages(t, []byte(c.page))
			if _, err := Parse(bytes.NewReader([]byte(c.page)), "s", 0); (err == nil) != c.accepted {
				t.Errorf("accepted %v, want %v (%v)", err == nil, c.accepted, err)
			}
			p := newParser()
			p.reset()
			if direct := p.read([]byte(c.page)); direct != c.direct {
				t.Errorf("direct reader took it: %v, want %v", direct, c.direct)
			}
		})
	}
}

// Real exporters' pages, and the simulator's, take the direct way, and
// read as expfmt reads them.
func TestDirectReaderTakesRealPages(t *testing.T) {
	pages := fixtures(t)
	pages["sim"] = simPage(t)
	for name, page := range pages {
		t.Run(name, func(t *testing.T) {
			p := newParser()
			p.reset()
			if !p.read(page) {
				t.Error("declined")
			}
			samePages(t, page)
		})
	}
}

// randomPage builds a page from a few names and their _sum, _count and
// _bucket forms, TYPE and HELP lines in any order, le and quantile
// labels, and awkward values: mostly well-formed, so that pages reach
// the family rules (which family a _sum belongs to, what a late TYPE
// does) that byte mutations seldom build.
func randomPage(rng *rand.Rand) []byte {
	pick := func(xs ...string) string { return xs[rng.IntN(len(xs))] }
	var b bytes.Buffer
	for range 1 + rng.IntN(12) {
		name := pick("a", "b", "h", "s") + pick("", "", "_sum", "_count", "_bucket", "_bucket_count")
		switch rng.IntN(6) {
		case 0:
			b.WriteString("# TYPE " + name + " " + pick("counter", "gauge", "untyped", "summary", "histogram", "gaugehistogram", "Histogram", "gauge_histogram") + "\n")
		case 1:
			b.WriteString("# HELP " + name + pick("", " ", " text", " a\\\\b\\n") + "\n")
		default:
			b.WriteString(name)
			if rng.IntN(3) > 0 {
				b.WriteString("{")
				for i := range rng.IntN(4) {
					if i > 0 {
						b.WriteString(",")
					}
					b.WriteString(pick("le", "quantile", "x", "y", "le") + `="` + pick("1", "0.5", "+Inf", "NaN", "", "1.0", "x") + `"`)
				}
				b.WriteString(pick("}", ",}", " }"))
			}
			b.WriteString(" " + pick("1", "2", "0.5", "-1", "-0", "NaN", "+Inf", "1e30", "3", "0"))
			b.WriteString(pick("", "", "", " 123"))
			b.WriteString("\n")
		}
	}
	return b.Bytes()
}

func TestParseRandomPagesMatchExpfmt(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for range 20000 {
		page := randomPage(rng)
		t.Run("", func(t *testing.T) {
			samePages(t, page)
			if t.Failed() {
				t.Logf("page:\n%s", page)
			}
		})
		if t.Failed() {
			return
		}
	}
}
