package builtins

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"go.starlark.net/starlark"
	"go.starlark.net/starlarktest"
)

// The builtins are tested in Starlark, as starlark-go tests its own:
// every testdata/*.star file is split into chunks at lines holding only
// "---", and each chunk runs as a scenario of its own (line numbers kept)
// with an assert module predeclared. A chunk either runs cleanly — its
// assert.eq/true/fails calls reporting to the Go test — or holds exactly
// one line with a "### error: TEXT" comment, and must then fail with a
// *LoadError on that line of that file whose message contains TEXT.

// testEnv is the environment env() sees in tests, whatever the machine's.
var testEnv = map[string]string{"TEST_TOKEN": "s3cret", "EMPTY": ""}

func testOptions(t *testing.T) Options {
	assert, err := starlarktest.LoadAssertModule()
	if err != nil {
		t.Fatal(err)
	}
	return Options{
		LookupEnv: func(k string) (string, bool) {
			v, ok := testEnv[k]
			return v, ok
		},
		Print:        func(pos, msg string) { t.Logf("print at %s: %s", pos, msg) },
		predeclared:  assert,
		onThread:     func(th *starlark.Thread) { starlarktest.SetReporter(th, t) },
		mainOptional: true,
	}
}

// testVars are the -D values test chunks see; "data" is an absolute path
// given "on the command line", which a scenario may use.
func testVars(t *testing.T) map[string]string {
	abs, err := filepath.Abs("testdata/data/prompts.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	return map[string]string{"requests": "50", "data": abs}
}

func TestStarlarkFiles(t *testing.T) {
	files, err := filepath.Glob("testdata/*.star")
	if err != nil || len(files) == 0 {
		t.Fatalf("no test files: %v", err)
	}
	for _, file := range files {
		t.Run(filepath.Base(file), func(t *testing.T) {
			src, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			for _, c := range splitChunks(string(src)) {
				t.Run(fmt.Sprintf("line%d", c.line), func(t *testing.T) { c.run(t, file) })
			}
		})
	}
}

// chunk is one independently run part of a test file.
type chunk struct {
	line int    // first line, 1-based
	src  string // the whole file's line count up to here, earlier lines blank
	want []marker
}

// marker is an expected error: on line of file (the chunk's own file,
// unless the marker says "### error at lib/x.star:3: TEXT", for an error
// that must be reported inside a loaded file).
type marker struct {
	file string
	line int
	text string
}

const errorMarker = "### error"

func parseMarker(line string, n int) (marker, bool) {
	_, rest, ok := strings.Cut(line, errorMarker)
	if !ok {
		return marker{}, false
	}
	if at, ok := strings.CutPrefix(rest, " at "); ok {
		where, text, _ := strings.Cut(at, ": ")
		file, num, _ := strings.Cut(where, ":")
		line, _ := strconv.Atoi(num)
		return marker{file: filepath.Join("testdata", file), line: line, text: strings.TrimSpace(text)}, true
	}
	return marker{line: n, text: strings.TrimSpace(strings.TrimPrefix(rest, ":"))}, true
}

func splitChunks(src string) []chunk {
	lines := strings.Split(src, "\n")
	var out []chunk
	start := 0
	flush := func(end int) {
		c := chunk{line: start + 1}
		body := make([]string, end)
		copy(body[start:], lines[start:end])
		c.src = strings.Join(body, "\n")
		for i := start; i < end; i++ {
			if m, ok := parseMarker(lines[i], i+1); ok {
				c.want = append(c.want, m)
			}
		}
		out = append(out, c)
	}
	for i, l := range lines {
		if strings.TrimSpace(l) == "---" {
			flush(i)
			start = i + 1
		}
	}
	flush(len(lines))
	return out
}

func (c chunk) run(t *testing.T, file string) {
	_, err := loadSource(file, []byte(c.src), testVars(t), testOptions(t))
	switch {
	case len(c.want) > 1:
		t.Fatalf("chunk at line %d has %d error markers; a chunk stops at its first error", c.line, len(c.want))
	case len(c.want) == 0 && err != nil:
		t.Fatalf("unexpected error:\n%v", err)
	case len(c.want) == 0:
		return
	case err == nil:
		t.Fatalf("%s:%d: no error, want %q", file, c.want[0].line, c.want[0].text)
	}
	var le *LoadError
	if !errors.As(err, &le) {
		t.Fatalf("got %T %v, want *LoadError", err, err)
	}
	w := c.want[0]
	if w.file == "" {
		w.file = file
	}
	if le.File != w.file || le.Line != w.line || !strings.Contains(le.Msg, w.text) {
		t.Errorf("got error at %s:%d: %s\nwant at %s:%d: ...%s...", le.File, le.Line, le.Msg, w.file, w.line, w.text)
	}
}
