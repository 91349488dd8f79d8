package main

import (
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/alecthomas/kong"
)

// updateHelp rewrites the help goldens: go test -run TestRootHelpGolden -update-help.
var updateHelp = flag.Bool("update-help", false, "rewrite testdata/help")

// llmbench --help is the command list and llmbench's own two flags, as
// testdata/help/llmbench.txt holds it: a flag that only some commands
// take is in their help, not here.
func TestRootHelpGolden(t *testing.T) {
	t.Parallel()
	golden := filepath.Join("testdata", "help", "llmbench.txt")
	r := runCLI(t, t.TempDir(), "--help")
	if *updateHelp {
		if err := os.WriteFile(golden, []byte(r.stdout), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil || r.code != 0 || r.stdout != string(want) {
		t.Errorf("llmbench --help: exit %d (%v), got\n%s\nwant (-update-help rewrites it)\n%s", r.code, err, r.stdout, want)
	}
}

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

// A command's help lists the flags it takes, and only those: not another
// command's, not llmbench's --version, not a log or records flag where
// nothing logs or writes records; every flag that takes a value says its
// default, including one whose placeholder hid it
// (--starlark-cpu-limit=DURATION, 2m).
func TestHelpOwnFlagsAndDefaults(t *testing.T) {
	t.Parallel()
	logs := []string{"log-level", "log-format"}
	measuring := append([]string{"records-flush-interval"}, logs...)
	none := append([]string{"version"}, measuring...)
	for _, c := range []struct {
		cmd     string
		own     []string
		foreign []string
	}{
		{"run", append([]string{"out", "dry-run", "shard"}, measuring...), []string{"sweep-type", "concurrency", "version"}},
		{"check", append([]string{"out", "baseline"}, logs...), []string{"dry-run", "sweep-type", "records-flush-interval", "version"}},
		{"profile", append([]string{"model", "concurrency", "max-error-rate"}, measuring...), []string{"dry-run", "shard", "junit", "sweep-type", "out", "version"}},
		{"analyze", append([]string{"sweep-type", "concurrency"}, measuring...), []string{"dry-run", "shard", "junit", "version"}},
		{"compare", []string{"max-regression"}, append([]string{"concurrency", "dry-run"}, none...)},
		{"report", []string{"tokenizer"}, append([]string{"concurrency"}, none...)},
		{"merge", append([]string{"out", "scenario"}, logs...), []string{"concurrency", "dry-run", "records-flush-interval", "version"}},
		{"sim", []string{"addr", "ttft"}, append([]string{"concurrency", "out"}, none...)},
		{"tokenize", []string{"tokenizer"}, append([]string{"concurrency"}, none...)},
		{"version", nil, append([]string{"concurrency"}, none...)},
	} {
		r := runCLI(t, t.TempDir(), c.cmd, "--help")
		if r.code != 0 {
			t.Fatalf("%s --help: exit %d\n%s", c.cmd, r.code, r.stderr)
		}
		entries := helpEntries(r.stdout)
		for _, f := range append(c.own, "help") {
			if _, ok := entries[f]; !ok {
				t.Errorf("%s --help does not list its --%s", c.cmd, f)
			}
		}
		for _, f := range c.foreign {
			if _, ok := entries[f]; ok {
				t.Errorf("%s --help lists --%s, which it does not take", c.cmd, f)
			}
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
	if e := helpEntries(r.stdout); r.code != 0 || len(e) != 2 || e["help"] == "" || e["version"] == "" {
		t.Errorf("llmbench --help: exit %d, want only --help and --version: %v", r.code, e)
	}
}

// A log or records flag is refused by name (exit 2) by a command it never
// applied to, wherever it is given, and still read by one it applies to
// when a script gives it before the command, as when it was global.
func TestCommandFlagsWhereTheyApply(t *testing.T) {
	t.Parallel()
	dir, _ := writeScenario(t, baselineScenario)
	for _, args := range [][]string{
		{"version", "--log-level", "debug"}, {"--log-level", "debug", "version"}, {"--log-format=json", "sim"},
		{"compare", "a", "b", "--records-flush-interval", "1s"}, {"tokenize", "--log-format", "json", "x"},
		{"--records-flush-interval", "1s", "check", "s.star"}, {"merge", "x", "--records-flush-interval=1s"},
		{"--records-flush-interval=-1s", "profile", "-m", "m", "-u", "sim://"},
	} {
		r := runCLI(t, dir, args...)
		flag, _, _ := strings.Cut(args[slices.IndexFunc(args, func(a string) bool { return strings.HasPrefix(a, "--") })], "=")
		if r.code != 2 || !strings.Contains(r.stderr, flag) {
			t.Errorf("%v: exit %d, want 2 naming %s\n%s", args, r.code, flag, r.stderr)
		}
	}
	r := runCLI(t, dir, "--log-format", "json", "--log-level=warn", "profile", "-m", "m", "-u", "sim://", "--request-count", "2",
		"--tokenizer-revision", "v2")
	if r.code != 0 || !strings.Contains(r.stderr, `{"level":"warn","revision":"v2"`) || strings.Contains(r.stderr, `"level":"info"`) {
		t.Errorf("profile after leading log flags: exit %d, want 0 with a JSON warning and no info\n%s", r.code, r.stderr)
	}
}

// hoistCommandFlags moves only the leading flags that commands took over
// from llmbench itself, with their values, to after the command.
func TestHoistCommandFlags(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ in, want string }{
		{"--log-level warn run s.star", "run --log-level warn s.star"},
		{"--log-format=json --records-flush-interval 2s profile -m m", "profile --log-format=json --records-flush-interval 2s -m m"},
		{"run --log-level warn s.star", "run --log-level warn s.star"},
		{"--help --log-level warn run", "--help --log-level warn run"},
		{"--log-level warn", "--log-level warn"},
		{"", ""},
	} {
		if got := strings.Join(hoistCommandFlags(strings.Fields(c.in)), " "); got != c.want {
			t.Errorf("%q: %q, want %q", c.in, got, c.want)
		}
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
