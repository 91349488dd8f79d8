package main

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
)

// The CI recipes of docs/ci.md are YAML the test must read without a YAML
// library in go.mod. yamlNode holds the subset the recipes use, read by
// indentation: mappings (`key: value`, `key:` with deeper lines), lists
// (`- value`, `- key: value` items that are mappings), literal blocks
// (`|`), comments and blank lines. Flow lists (`[a, b]`) stay scalars for
// flowList. Anything else is an error naming the line, so a recipe edited
// beyond the subset fails the test instead of being misread.
type yamlNode struct {
	Key   string
	Value string      // a scalar, or a literal block's text
	Map   []*yamlNode // mapping entries, in order
	Items []*yamlNode // list items, in order
}

// get returns the entry named key, or an empty node (so chains of get
// read as "absent" without nil checks).
func (n *yamlNode) get(key string) *yamlNode {
	if n != nil {
		for _, e := range n.Map {
			if e.Key == key {
				return e
			}
		}
	}
	return &yamlNode{}
}

type yamlParser struct{ lines []string }

func parseYAMLSubset(src string) (*yamlNode, error) {
	p := &yamlParser{lines: strings.Split(src, "\n")}
	root := &yamlNode{}
	i, err := p.entries(0, -1, root)
	if err == nil && i < len(p.lines) {
		err = fmt.Errorf("line %d: unexpected indentation", i+1)
	}
	return root, err
}

func indentOf(s string) int { return len(s) - len(strings.TrimLeft(s, " ")) }

// yamlKey is a mapping key as the recipes write them; a list item like
// `- curl --header "JOB-TOKEN: $T"` has a colon but no such key.
var yamlKey = regexp.MustCompile(`^([A-Za-z_][A-Za-z0-9_.-]*):(?: (.*))?$`)

// entries reads the lines from i indented deeper than parent, all at one
// indentation, into n as mapping entries or list items; it returns the
// first line it did not take.
func (p *yamlParser) entries(i, parent int, n *yamlNode) (int, error) {
	indent := -1
	for i < len(p.lines) {
		raw := p.lines[i]
		text := strings.TrimSpace(raw)
		if text == "" || strings.HasPrefix(text, "#") {
			i++
			continue
		}
		ind := indentOf(raw)
		if ind <= parent {
			break
		}
		if indent < 0 {
			indent = ind
		}
		if ind != indent {
			return i, fmt.Errorf("line %d: indentation %d, want %d", i+1, ind, indent)
		}
		var err error
		if text == "-" || strings.HasPrefix(text, "- ") {
			item := &yamlNode{}
			n.Items = append(n.Items, item)
			rest := strings.TrimLeft(text[1:], " ")
			col := ind + len(text) - len(rest) // where the item's content starts
			if m := yamlKey.FindStringSubmatch(rest); m != nil {
				entry := &yamlNode{Key: m[1]}
				item.Map = append(item.Map, entry)
				if i, err = p.value(i, col, m[2], entry); err != nil {
					return i, err
				}
				i, err = p.entries(i, col-1, item) // the item's other entries, at col
			} else {
				i, err = p.value(i, ind, rest, item)
			}
		} else if m := yamlKey.FindStringSubmatch(text); m != nil {
			entry := &yamlNode{Key: m[1]}
			n.Map = append(n.Map, entry)
			i, err = p.value(i, ind, m[2], entry)
		} else {
			err = fmt.Errorf("line %d: neither `key:` nor `- item`: %q", i+1, text)
		}
		if err != nil {
			return i, err
		}
	}
	return i, nil
}

// value reads what follows `key:` or `- ` on line i, owned by column
// owner: a scalar, a literal block (the deeper lines, their common
// indentation removed) or nested entries.
func (p *yamlParser) value(i, owner int, v string, n *yamlNode) (int, error) {
	v = stripYAMLComment(v)
	switch v {
	case "":
		return p.entries(i+1, owner, n)
	case "|", "|-":
		var body []string
		block := -1
		j := i + 1
		for ; j < len(p.lines); j++ {
			raw := p.lines[j]
			if strings.TrimSpace(raw) == "" {
				body = append(body, "")
				continue
			}
			ind := indentOf(raw)
			if ind <= owner {
				break
			}
			if block < 0 {
				block = ind
			}
			if ind < block {
				return j, fmt.Errorf("line %d: block line less indented than its first", j+1)
			}
			body = append(body, raw[block:])
		}
		for len(body) > 0 && body[len(body)-1] == "" {
			body = body[:len(body)-1]
		}
		n.Value = strings.Join(body, "\n") + "\n"
		return j, nil
	}
	if strings.HasPrefix(v, ">") || strings.HasPrefix(v, "|") || strings.HasPrefix(v, "&") || strings.HasPrefix(v, "*") {
		return i, fmt.Errorf("line %d: %q is beyond the YAML this test reads", i+1, v)
	}
	n.Value = unquoteYAML(v)
	return i + 1, nil
}

// stripYAMLComment drops a trailing ` # comment` outside quotes.
func stripYAMLComment(v string) string {
	v = strings.TrimSpace(v)
	if v != "" && (v[0] == '"' || v[0] == '\'') {
		if end := strings.IndexByte(v[1:], v[0]); end >= 0 {
			return v[:end+2]
		}
		return v
	}
	if i := strings.Index(v, " #"); i >= 0 {
		v = strings.TrimSpace(v[:i])
	}
	return v
}

func unquoteYAML(v string) string {
	if len(v) >= 2 && (v[0] == '"' || v[0] == '\'') && v[len(v)-1] == v[0] {
		return v[1 : len(v)-1]
	}
	return v
}

// flowList reads `[a, "b"]` (or a block list) as its items.
func flowList(n *yamlNode) []string {
	var out []string
	for _, it := range n.Items {
		out = append(out, it.Value)
	}
	if v := strings.TrimSpace(n.Value); strings.HasPrefix(v, "[") && strings.HasSuffix(v, "]") {
		for _, s := range strings.Split(v[1:len(v)-1], ",") {
			if s = strings.TrimSpace(s); s != "" {
				out = append(out, unquoteYAML(s))
			}
		}
	}
	return out
}

// fencedBlock returns the body of the Markdown code block whose first line
// begins with marker (the file it is, a comment of its language): the
// markers docs/ci.md names in its opening comment.
func fencedBlock(t *testing.T, doc, marker string) string {
	t.Helper()
	lines := strings.Split(doc, "\n")
	for i := 0; i+1 < len(lines); i++ {
		first := strings.TrimSpace(lines[i+1])
		if !strings.HasPrefix(lines[i], "```") || (first != marker && !strings.HasPrefix(first, marker+":")) {
			continue
		}
		for j := i + 1; j < len(lines); j++ {
			if strings.HasPrefix(lines[j], "```") {
				return strings.Join(lines[i+1:j], "\n") + "\n"
			}
		}
	}
	t.Fatalf("docs/ci.md has no code block starting with %q", marker)
	return ""
}

// The subset reader reads what the recipes write, and refuses what it
// would misread.
func TestYAMLSubset(t *testing.T) {
	src := `# a comment
jobs:
  perf:
    env:
      URL: http://x:8000/v1   # trailing comment
      Q: "a # b"
    steps:
      - uses: a/b@v1
        with:
          path: baseline/
      - name: Run
        if: always()
        run: |
          echo one

          echo two
      - run: single line
    paths: [results/, "x y"]
    script:
      # a comment between items
      - mkdir -p results
      - |
        llmbench run \
          --out results
`
	root, err := parseYAMLSubset(src)
	if err != nil {
		t.Fatal(err)
	}
	job := root.get("jobs").get("perf")
	if got := job.get("env").get("URL").Value; got != "http://x:8000/v1" {
		t.Errorf("URL = %q", got)
	}
	if got := job.get("env").get("Q").Value; got != "a # b" {
		t.Errorf("Q = %q", got)
	}
	steps := job.get("steps").Items
	if len(steps) != 3 || steps[0].get("uses").Value != "a/b@v1" || steps[0].get("with").get("path").Value != "baseline/" {
		t.Fatalf("steps = %+v", steps)
	}
	if got := steps[1].get("run").Value; got != "echo one\n\necho two\n" || steps[1].get("if").Value != "always()" {
		t.Errorf("run block = %q", got)
	}
	if got := steps[2].get("run").Value; got != "single line" {
		t.Errorf("one-line run = %q", got)
	}
	if got := flowList(job.get("paths")); len(got) != 2 || got[1] != "x y" {
		t.Errorf("paths = %q", got)
	}
	script := job.get("script").Items
	if len(script) != 2 || script[0].Value != "mkdir -p results" || script[1].Value != "llmbench run \\\n  --out results\n" {
		t.Errorf("script = %+v", script)
	}
	for _, bad := range []string{"a:\n  b: 1\n   c: 2\n", "a: >\n  folded\n", "just text\n", "a:\n    b: 1\n  c: 2\n"} {
		if _, err := parseYAMLSubset(bad); err == nil {
			t.Errorf("%q read without error", bad)
		}
	}
}
