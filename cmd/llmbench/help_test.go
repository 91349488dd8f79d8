package main

import (
	"regexp"
	"strings"
	"testing"

	"github.com/alecthomas/kong"
)

// flagLine starts a flag's entry in kong's help (its wrapped text is
// indented further, and may itself start with a flag's name).
var flagLine = regexp.MustCompile(`^ {2,6}(-\S, )?--([a-z0-9-]+)(=\S*)?`)

// helpEntries reads a command's help into each listed flag's name and its
// whole entry (the flag line and its wrapped help text).
func helpEntries(help string) map[string]string {
	entries := map[string]string{}
	current := ""
	for _, line := range strings.Split(help, "\n") {
		if m := flagLine.FindStringSubmatch(line); m != nil {
			current = m[2]
			entries[current] = line
			continue
		}
		if current != "" && strings.HasPrefix(line, "   ") {
			entries[current] += " " + strings.TrimSpace(line)
			continue
		}
		current = ""
	}
	return entries
}

// A command's help lists its own flags, not the flags every command takes
// (named once at the end) and not another command's; every flag that
// takes a value says its default, including one whose placeholder hid it
// (--starlark-cpu-limit=DURATION, 2m).
func TestHelpOwnFlagsAndDefaults(t *testing.T) {
	global := []string{"log-level", "log-format", "records-flush-interval", "version"}
	for _, c := range []struct {
		cmd     string
		own     []string
		foreign []string
	}{
		{"run", []string{"out", "dry-run", "shard"}, []string{"sweep-type", "concurrency"}},
		{"check", []string{"out", "baseline"}, []string{"dry-run", "sweep-type"}},
		{"profile", []string{"model", "concurrency", "max-error-rate"}, []string{"dry-run", "shard", "junit", "sweep-type", "out"}},
		{"analyze", []string{"sweep-type", "concurrency"}, []string{"dry-run", "shard", "junit"}},
		{"compare", []string{"max-regression"}, []string{"concurrency", "dry-run"}},
		{"report", []string{"tokenizer"}, []string{"concurrency"}},
		{"merge", []string{"out", "scenario"}, []string{"concurrency", "dry-run"}},
		{"sim", []string{"addr", "ttft"}, []string{"concurrency", "out"}},
		{"tokenize", []string{"tokenizer"}, []string{"concurrency"}},
		{"version", nil, []string{"concurrency"}},
	} {
		r := runCLI(t, t.TempDir(), c.cmd, "--help")
		if r.code != 0 {
			t.Fatalf("%s --help: exit %d\n%s", c.cmd, r.code, r.stderr)
		}
		entries := helpEntries(r.stdout)
		for _, f := range c.own {
			if _, ok := entries[f]; !ok {
				t.Errorf("%s --help does not list its --%s", c.cmd, f)
			}
		}
		for _, f := range append(c.foreign, global...) {
			if _, ok := entries[f]; ok {
				t.Errorf("%s --help lists --%s, not its own", c.cmd, f)
			}
		}
		if !strings.Contains(r.stdout, "Flags of every command (llmbench --help): ") {
			t.Errorf("%s --help does not name the flags every command takes:\n%s", c.cmd, r.stdout)
		}
		usage, _, _ := strings.Cut(r.stdout, "\n") // required flags are in it, with no default
		for name, entry := range entries {
			if strings.Contains(entry, "--"+name+"=") && !strings.Contains(strings.ToLower(entry), "default") && !strings.Contains(usage, "--"+name+"=") {
				t.Errorf("%s --help: --%s does not say its default: %s", c.cmd, name, entry)
			}
		}
	}
	r := runCLI(t, t.TempDir(), "run", "--help")
	if e := helpEntries(r.stdout)["starlark-cpu-limit"]; !strings.Contains(e, "Default: 2m") {
		t.Errorf("--starlark-cpu-limit hides its default: %s", e)
	}
	r = runCLI(t, t.TempDir(), "--help")
	if e := helpEntries(r.stdout)["log-level"]; r.code != 0 || !strings.Contains(e, "Default: info.") {
		t.Errorf("llmbench --help: exit %d, --log-level: %s", r.code, e)
	}
}

// helpValue's defaults: a tagged one, an untagged zero, a text that
// already says its default, a required flag, booleans, and environment
// variables after the default.
func TestHelpValueDefaults(t *testing.T) {
	var c struct {
		Level   string   `default:"info" help:"Log level."`
		Limit   string   `default:"2m" placeholder:"DURATION" env:"LIMIT" help:"CPU limit."`
		Count   int      `help:"How many"`
		Seed    int      `help:"Seed (default 7)."`
		Name    string   `help:"A name."`
		Names   []string `help:"Names."`
		Must    string   `required:"" help:"Needed."`
		Quiet   bool     `help:"Be quiet."`
		Verbose bool     `default:"true" help:"Talk."`
	}
	p, err := kong.New(&c, kong.Exit(func(int) {}))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"level": "Log level. Default: info.", "limit": "CPU limit. Default: 2m ($LIMIT).", "count": "How many. Default: 0.",
		"seed": "Seed (default 7).", "name": "A name. Default: none.", "names": "Names. Default: none.",
		"must": "Needed.", "quiet": "Be quiet.", "verbose": "Talk. Default: true.",
	}
	for _, f := range p.Model.Flags {
		if w, ok := want[f.Name]; ok && helpValue(f.Value) != w {
			t.Errorf("--%s: %q, want %q", f.Name, helpValue(f.Value), w)
		}
	}
}
