package main

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/alecthomas/kong"
	"github.com/llmbench/llmbench/reports/artifacts"
	"github.com/llmbench/llmbench/runtime/gpconfig"
)

// configCmd is GenAI-Perf's `config -f FILE`: the file's settings run as
// the profile, analyze or process-export-files command line they stand
// for. The line is built before parsing (gpconfig.Rewrite), so the command
// runs exactly as those flags would; this struct gives `config --help`.
type configCmd struct {
	File           string   `short:"f" required:"" type:"existingfile" help:"GenAI-Perf's YAML configuration (llmbench create-template writes one with every default)."`
	OverrideConfig bool     `help:"Let the flags after the file override its settings (GenAI-Perf's rule: without it, flags are refused)."`
	Overrides      []string `arg:"" optional:"" passthrough:"" help:"Flags of the command the file stands for, overriding its settings (with --override-config)."`
}

func (c *configCmd) Run(*env) error {
	return errors.New("internal error: config runs as the command it stands for") // gpconfig.Rewrite rewrote it
}

// createTemplateCmd is GenAI-Perf's create-template.
type createTemplateCmd struct {
	File    string `short:"f" default:"genai_perf_config.yaml" help:"Where to write the template; an existing file is never overwritten."`
	Verbose bool   `short:"v" help:"Accepted for GenAI-Perf scripts; the template is the same (llmbench profile --help says what each setting's flag does)."`
}

func (c *createTemplateCmd) Run(e *env) error {
	if err := artifacts.CreateNew("-f", c.File, gpconfig.Template); err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "Template written to %s; run it with llmbench config -f %s\n", c.File, c.File)
	return nil
}

// longFlagName maps a flag as typed (-m) to its long form (--model) among
// the flags of command, for gpconfig.Rewrite.
func longFlagName(parser *kong.Kong) func(command, typed string) string {
	return func(command, typed string) string {
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
	if err := artifacts.CreateNew("-o", c.Out, []byte(text)); err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "Scenario written to %s; check it with llmbench check %s, run it with llmbench run %s\n", c.Out, c.Out, c.Out)
	return nil
}
