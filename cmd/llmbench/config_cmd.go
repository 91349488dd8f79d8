package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/alecthomas/kong"
	"github.com/llmbench/llmbench/runtime/gpconfig"
)

// configCmd is GenAI-Perf's `config -f FILE`: the file's settings run as
// the profile, analyze or process-export-files command line they stand
// for. The line is built before parsing (configArgs), so the command runs
// exactly as those flags would; this struct gives `config --help`.
type configCmd struct {
	File           string   `short:"f" required:"" type:"existingfile" help:"GenAI-Perf's YAML configuration (llmbench create-template writes one with every default)."`
	OverrideConfig bool     `help:"Let the flags after the file override its settings (GenAI-Perf's rule: without it, flags are refused)."`
	Overrides      []string `arg:"" optional:"" passthrough:"" help:"Flags of the command the file stands for, overriding its settings (with --override-config)."`
}

func (c *configCmd) Run(*env) error {
	return errors.New("internal error: config runs as the command it stands for") // configArgs rewrote it
}

// createTemplateCmd is GenAI-Perf's create-template.
type createTemplateCmd struct {
	File    string `short:"f" default:"genai_perf_config.yaml" help:"Where to write the template; an existing file is never overwritten."`
	Verbose bool   `short:"v" help:"Accepted for GenAI-Perf scripts; the template is the same (llmbench profile --help says what each setting's flag does)."`
}

func (c *createTemplateCmd) Run(e *env) error {
	if err := createNew("-f", c.File, gpconfig.Template); err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "Template written to %s; run it with llmbench config -f %s\n", c.File, c.File)
	return nil
}

// configArgs rewrites `config -f FILE [--override-config] [FLAGS...]`
// into the command line the file stands for, the flags after it
// overriding the file's settings; any other line is returned as given,
// as is `config --help`. parser knows the commands' short flags.
func configArgs(parser *kong.Kong, args []string) ([]string, error) {
	i := slices.Index(args, "config")
	if i < 0 || i != slices.IndexFunc(args, func(a string) bool { return !strings.HasPrefix(a, "-") }) ||
		slices.Contains(args, "--help") || slices.Contains(args, "-h") {
		return args, nil
	}
	var file string
	override := false
	var rest, kept []string
	for j := i + 1; j < len(args); j++ {
		switch a := args[j]; {
		case a == "-f" || a == "--file":
			if j+1 == len(args) {
				return nil, invalid("config %s: want the configuration file after it", a)
			}
			j++
			file = args[j]
		case strings.HasPrefix(a, "--file="):
			file = strings.TrimPrefix(a, "--file=")
		case a == "--override-config":
			override = true
		case slices.Contains(commandFlags, a) && j+1 < len(args): // hoisted --log-level warn: the command's, no override
			kept = append(kept, a, args[j+1])
			j++
		default:
			rest = append(rest, a)
		}
	}
	if file == "" {
		return nil, invalid("config: name the configuration file with -f FILE (llmbench create-template writes one)")
	}
	if len(rest) > 0 && !override && !onlyVerbose(rest) {
		return nil, invalid("config: %s: give --override-config to let flags override the file's settings (GenAI-Perf's rule)", rest[0])
	}
	cmd, err := gpconfig.Read(file)
	var perr *gpconfig.Error
	switch {
	case errors.As(err, &perr):
		return nil, invalid("%w", err)
	case err != nil:
		return nil, invalid("config -f: %w", err)
	}
	return slices.Concat(args[:i], cmd.Args(append(rest, kept...), longFlagName(parser, cmd.Name))), nil
}

// onlyVerbose reports flags that GenAI-Perf lets through without
// --override-config.
func onlyVerbose(flags []string) bool {
	for _, f := range flags {
		if f != "-v" && f != "--verbose" {
			return false
		}
	}
	return true
}

// longFlagName maps a flag as typed (-m) to its long form (--model) among
// the flags of command.
func longFlagName(parser *kong.Kong, command string) func(string) string {
	return func(typed string) string {
		if strings.HasPrefix(typed, "--") || len(typed) != 2 {
			return typed
		}
		for _, node := range parser.Model.Children {
			if node.Name != command {
				continue
			}
			for _, f := range node.Flags {
				if f.Short != 0 && "-"+string(f.Short) == typed {
					return "--" + f.Name
				}
			}
		}
		return typed
	}
}

// scenarioFromConfigCmd writes a GenAI-Perf configuration as the
// equivalent scenario, the one step from GenAI-Perf's YAML to scenarios.
type scenarioFromConfigCmd struct {
	File string `arg:"" type:"existingfile" help:"GenAI-Perf's YAML configuration."`
	Out  string `short:"o" help:"Write the scenario to this file (never over an existing one); default: standard output."`
}

func (c *scenarioFromConfigCmd) Run(e *env) error {
	cmd, err := gpconfig.Read(c.File)
	if err != nil {
		return invalid("%w", err)
	}
	text, dropped, err := cmd.Scenario(filepath.Base(c.File))
	if err != nil {
		return invalid("%s: %w", c.File, err)
	}
	if len(dropped) > 0 {
		fmt.Fprintf(e.stderr, "llmbench: not carried over (no scenario setting): %s\n", strings.Join(dropped, ", "))
	}
	if c.Out == "" {
		_, err := io.WriteString(e.stdout, text)
		return err
	}
	if err := createNew("-o", c.Out, []byte(text)); err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "Scenario written to %s; check it with llmbench check %s, run it with llmbench run %s\n", c.Out, c.Out, c.Out)
	return nil
}

// createNew writes data to a new file at path, given by flag; an existing
// file is never written over.
func createNew(flag, path string, data []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if errors.Is(err, fs.ErrExist) {
		return invalid("%s %s: the file exists; choose another name (nothing is written over)", flag, path)
	}
	if err != nil {
		return invalid("%s %s: %w", flag, path, err)
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return runFailed("%w", err)
	}
	if err := f.Close(); err != nil {
		return runFailed("%w", err)
	}
	return nil
}
