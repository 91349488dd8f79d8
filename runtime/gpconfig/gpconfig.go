// Package gpconfig reads GenAI-Perf's YAML configuration (`genai-perf
// config -f FILE`) into the command line it stands for: `profile`,
// `analyze` or `process-export-files` with GenAI-Perf's flag names, which
// llmbench's commands of those names take. A configuration therefore runs
// exactly as the same flags would, through the same parsing and checks;
// nothing here knows what a flag does. The keys and their meaning are
// GenAI-Perf 0.0.16's (genai_perf/config/input/config_*.py); an unknown
// key is an error at its line and column, as GenAI-Perf refuses it.
package gpconfig

import (
	_ "embed"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"

	yaml "go.yaml.in/yaml/v3"
)

// Command is a configuration as the command line it stands for.
type Command struct {
	// Name is profile, analyze or process-export-files: analyze when the
	// file sets an analyze sweep, process-export-files when it sets
	// process.input_path, profile otherwise (GenAI-Perf's inference).
	Name string
	// Flags are the settings, in the file's order, each a flag of Name.
	Flags []Flag
}

// Flag is one setting as a flag: Name is the long name without dashes;
// a boolean flag has no Value and is given only when true.
type Flag struct {
	Name, Value string
	Bool        bool
}

// Error is a setting refused, at its place in the file.
type Error struct {
	File      string
	Line, Col int
	Msg       string
}

func (e *Error) Error() string { return fmt.Sprintf("%s:%d:%d: %s", e.File, e.Line, e.Col, e.Msg) }

// Read reads the configuration file at path.
func Read(path string) (*Command, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return Parse(path, f)
}

// Parse reads a configuration; name names it in errors.
func Parse(name string, r io.Reader) (*Command, error) {
	var doc yaml.Node
	if err := yaml.NewDecoder(r).Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("%s: the file is empty: write one with llmbench create-template", name)
		}
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	p := &parser{file: name, cmd: &Command{Name: "profile"}}
	if len(doc.Content) != 1 {
		return nil, p.errorf(&doc, "want a mapping of GenAI-Perf's sections (model_names, endpoint, perf_analyzer, input, ...)")
	}
	if err := p.walk(doc.Content[0], "", topLevel); err != nil {
		return nil, err
	}
	if p.cmd.Name != "analyze" {
		p.cmd.Flags = slices.DeleteFunc(p.cmd.Flags, func(f Flag) bool { return slices.Contains(analyzeOnlyFlags, f.Name) })
	}
	return p.cmd, nil
}

// Args is the command line: the command, the file's flags and then the
// overrides (GenAI-Perf's --override-config), a flag given among the
// overrides replacing the file's setting of it. longName maps an
// override's flag as typed (-m, --num-requests) to the long name the
// file's flags use; nil keeps them as typed.
func (c *Command) Args(overrides []string, longName func(string) string) []string {
	given := map[string]bool{}
	for _, a := range overrides {
		if a == "--" {
			break
		}
		if name, _, _ := strings.Cut(a, "="); strings.HasPrefix(name, "-") {
			if longName != nil {
				name = longName(name)
			}
			given[strings.TrimLeft(name, "-")] = true
		}
	}
	args := []string{c.Name}
	for _, f := range c.Flags {
		if given[f.Name] {
			continue
		}
		if f.Bool {
			args = append(args, "--"+f.Name)
		} else {
			args = append(args, "--"+f.Name, f.Value)
		}
	}
	return append(args, overrides...)
}

// parser walks the file against the schema, adding each setting's flags.
type parser struct {
	file string
	cmd  *Command
}

func (p *parser) errorf(n *yaml.Node, format string, args ...any) error {
	return &Error{File: p.file, Line: n.Line, Col: n.Column, Msg: fmt.Sprintf(format, args...)}
}

func (p *parser) add(name, value string) {
	p.cmd.Flags = append(p.cmd.Flags, Flag{Name: name, Value: value})
}

// walk reads a mapping node against its section's keys.
func (p *parser) walk(n *yaml.Node, path string, keys section) error {
	if isNull(n) {
		return nil
	}
	if n.Kind != yaml.MappingNode {
		return p.errorf(n, "%s: want a mapping of %s", orTop(path), strings.Join(keys.names(), ", "))
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		key := join(path, k.Value)
		read, ok := keys[k.Value]
		if !ok {
			return p.errorf(k, "unknown key %s (%s takes %s)", key, orTop(path), strings.Join(keys.names(), ", "))
		}
		if err := read(p, key, v); err != nil {
			return err
		}
	}
	return nil
}

func orTop(path string) string {
	if path == "" {
		return "the file"
	}
	return path
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// section maps a section's keys to their readers.
type section map[string]reader

// reader reads one key's value node.
type reader func(p *parser, key string, v *yaml.Node) error

func (s section) names() []string {
	var names []string
	for k := range s {
		names = append(names, k)
	}
	slices.Sort(names)
	return names
}

// sub reads a nested section.
func sub(s section) reader {
	return func(p *parser, key string, v *yaml.Node) error { return p.walk(v, key, s) }
}

// isNull reports a key left empty (`num:`), which keeps GenAI-Perf's
// default.
func isNull(n *yaml.Node) bool {
	return n.Kind == yaml.ScalarNode && (n.Tag == "!!null" || n.Value == "")
}

// scalar reads a single value into --flag.
func scalar(flag string) reader {
	return func(p *parser, key string, v *yaml.Node) error {
		if isNull(v) {
			return nil
		}
		if v.Kind != yaml.ScalarNode {
			return p.errorf(v, "%s: want a single value", key)
		}
		p.add(flag, v.Value)
		return nil
	}
}

// number reads a number into --flag; zero is the default for these keys
// (GenAI-Perf's template writes 0 for "unset") and is left out.
func number(flag string) reader {
	return func(p *parser, key string, v *yaml.Node) error {
		if isNull(v) {
			return nil
		}
		f, err := strconv.ParseFloat(v.Value, 64)
		if v.Kind != yaml.ScalarNode || err != nil {
			return p.errorf(v, "%s: want a number, got %q", key, v.Value)
		}
		if f != 0 {
			p.add(flag, v.Value)
		}
		return nil
	}
}

// boolean reads true/false (Python's True/False too) into a switch.
func boolean(flag string) reader {
	return func(p *parser, key string, v *yaml.Node) error {
		if isNull(v) {
			return nil
		}
		b, err := strconv.ParseBool(v.Value)
		if v.Kind != yaml.ScalarNode || err != nil {
			return p.errorf(v, "%s: want true or false, got %q", key, v.Value)
		}
		if b {
			p.cmd.Flags = append(p.cmd.Flags, Flag{Name: flag, Bool: true})
		}
		return nil
	}
}

// list reads one value or a list into --flag once per value.
func list(flag string) reader {
	return func(p *parser, key string, v *yaml.Node) error {
		switch {
		case isNull(v):
		case v.Kind == yaml.ScalarNode:
			p.add(flag, v.Value)
		case v.Kind == yaml.SequenceNode:
			for _, item := range v.Content {
				if item.Kind != yaml.ScalarNode {
					return p.errorf(item, "%s: want a list of values", key)
				}
				p.add(flag, item.Value)
			}
		default:
			return p.errorf(v, "%s: want a value or a list", key)
		}
		return nil
	}
}

// commaList reads one value or a list into --flag once, comma-separated
// (the audio flags take lists that way).
func commaList(flag string) reader {
	return func(p *parser, key string, v *yaml.Node) error {
		var values []string
		switch {
		case isNull(v):
			return nil
		case v.Kind == yaml.ScalarNode:
			values = []string{v.Value}
		case v.Kind == yaml.SequenceNode:
			for _, item := range v.Content {
				values = append(values, item.Value)
			}
		default:
			return p.errorf(v, "%s: want a value or a list", key)
		}
		p.add(flag, strings.Join(values, ","))
		return nil
	}
}

// pairs reads a mapping {name: value} into --flag name:value per entry
// (input.extra, input.goodput), in the file's order.
func pairs(flag string) reader {
	return func(p *parser, key string, v *yaml.Node) error {
		if isNull(v) {
			return nil
		}
		if v.Kind != yaml.MappingNode {
			return p.errorf(v, "%s: want a mapping of name: value", key)
		}
		for i := 0; i+1 < len(v.Content); i += 2 {
			name, val := v.Content[i], v.Content[i+1]
			if val.Kind != yaml.ScalarNode {
				return p.errorf(val, "%s.%s: want a single value", key, name.Value)
			}
			p.add(flag, name.Value+":"+val.Value)
		}
		return nil
	}
}

// ignored accepts a key GenAI-Perf needs and llmbench has no use for
// (perf_analyzer.path: there is no perf_analyzer binary to run).
func ignored(*parser, string, *yaml.Node) error { return nil }

// Template is GenAI-Perf's configuration template with every default, as
// `genai-perf create-template` writes it (GenAI-Perf 0.0.16), so a file
// made by either tool is the other's.
//
//go:embed template.yaml
var Template []byte
