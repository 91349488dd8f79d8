// Command llmbench load-tests LLM inference servers and turns what it
// measures into pass/fail gates. This file only wires the CLI together;
// each command lives in its own *_cmd.go file.
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/alecthomas/kong"
	"github.com/llmbench/llmbench/reports/artifacts"
	"github.com/llmbench/llmbench/reports/progress"
	"github.com/llmbench/llmbench/runtime/gpconfig"
	"github.com/llmbench/llmbench/runtime/gpflags"
)

// cli is the command tree.
type cli struct {
	Run       runCmd       `cmd:"" help:"Run a scenario (.star): experiments, gates, reports; exit 1 when a gate fails."`
	Check     checkCmd     `cmd:"" help:"Load and validate a scenario and print its plan, sending no traffic."`
	Profile   profileCmd   `cmd:"" help:"Measure one load point with GenAI-Perf's flags and artifacts."`
	Analyze   analyzeCmd   `cmd:"" help:"Sweep one parameter with GenAI-Perf's flags: one artifact folder per point, the analyze CSV, a sweep table; resumable."`
	AB        abCmd        `cmd:"" name:"ab" help:"Interleaved A/B run with profile's flags: the -u server against --baseline-url in rounds (ABBA, or duet: at once), judged paired, so drift during the run cancels; exit 1 on a regression."`
	Compare   compareCmd   `cmd:"" help:"Compare result sets point by point: baseline, candidate, change with its confidence interval, verdict; exit 1 on a regression beyond the tolerance."`
	History   historyCmd   `cmd:"" help:"A folder of runs in time order: the trend table of every point and metric, with the change points where a metric's level shifted (size and significance)."`
	Report    reportCmd    `cmd:"" help:"Re-render a run's GenAI-Perf JSON, CSV and table from its records.parquet."`
	Calibrate calibrateCmd `cmd:"" help:"Measure how often a scenario's baseline gates raise a false alarm (A/A) and catch a known slowdown (through a slowdown proxy) on its own server, and the sample sizes that would make them trustworthy; resumable."`
	Merge     mergeCmd     `cmd:"" help:"Merge the shards of a distributed run (run --shard I/N) into one run: every metric and gate recomputed from the union of their records; exit 1 when a gate fails."`

	Config             configCmd             `cmd:"" help:"Run GenAI-Perf's YAML configuration (-f FILE) as the profile, analyze or process-export-files command it stands for."`
	CreateTemplate     createTemplateCmd     `cmd:"" help:"Write GenAI-Perf's configuration template, every setting at its default (never over an existing file)."`
	ScenarioFromConfig scenarioFromConfigCmd `cmd:"" name:"scenario-from-config" help:"Write a GenAI-Perf YAML configuration as the equivalent scenario (.star): the one step from GenAI-Perf's workflow to scenarios."`
	ProcessExportFiles processExportCmd      `cmd:"" name:"process-export-files" help:"GenAI-Perf's aggregation of several runs' exports (one subfolder each, -d DIR) into one artifact folder: the merged requests' statistics with the runs' throughputs summed."`
	Sim                simCmd                `cmd:"" help:"Serve the built-in simulated OpenAI server."`
	Tokenize           tokenizeCmd           `cmd:"" help:"Count (or list) the tokens of a text under a Hugging Face tokenizer."`
	Version            versionCmd            `cmd:"" help:"Print version and build information."`

	Preflight preflightCmd `cmd:"" name:"internal-starlark-preflight" hidden:"" help:"Evaluate a scenario under the Starlark memory limit (internal)."`

	// VersionFlag is the one flag of llmbench itself; every other flag
	// belongs to the commands it applies to (logFlags, recordsFlags).
	VersionFlag kong.VersionFlag `name:"version" help:"Print the version and exit."`
}

// env is what every command's Run receives: where to write, when to stop
// and how its records are flushed.
type env struct {
	ctx          context.Context
	stdin        io.Reader
	stdout       io.Writer
	stderr       io.Writer
	recordsFlush time.Duration
	// live streams the points' samples (--live-metrics); nil without.
	live *liveExporter
	// drawn are the point plots this command drew, for its report.html.
	drawn artifacts.PointPlots
}

// session is how a command's points write their files and show progress.
func (e *env) session(plots bool) artifacts.Session {
	var display artifacts.Display = &progress.Live{W: e.stderr}
	if e.live != nil {
		display = e.live.display(display, e.stderr)
	}
	return artifacts.Session{Stdout: e.stdout, Stderr: e.stderr, Display: display,
		Sink: artifacts.SinkOptions{Plots: plots, Version: version, FlushInterval: e.recordsFlush}}
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	var c cli
	parser, err := kong.New(&c, append(helpSetup(),
		kong.Name("llmbench"),
		kong.Description("Load-test LLM inference servers; GenAI-Perf compatible."),
		kong.Writers(stdout, stderr),
		kong.Vars{"version": "llmbench " + version},
	)...)
	if err != nil {
		fmt.Fprintf(stderr, "llmbench: internal error: %v\n", err)
		return exitRunFailed
	}
	if len(args) == 0 { // a new user's first try: the help, not an error
		args = []string{"--help"}
	}
	args = hoistCommandFlags(args)
	if args, err = gpconfig.Rewrite(args, commandFlags, longFlagName(parser)); err != nil {
		return exitCode(err, stderr)
	}
	for _, check := range []func([]string) error{gpflags.PassthroughError, gpflags.CommandError} {
		if err := check(args); err != nil {
			fmt.Fprintf(stderr, "llmbench: %v\n", err)
			return exitInvalidInput
		}
	}
	kctx, err := parser.Parse(gpflags.NormalizeArgs(args))
	if err != nil {
		fmt.Fprintf(stderr, "llmbench: %v\n", err)
		return exitInvalidInput
	}
	if err := refuseExplicitZeros(kctx); err != nil {
		return exitCode(err, stderr)
	}
	cmd := kctx.Selected().Target.Addr().Interface()
	setupLogging(stderr, logSettings(cmd))
	flush, err := flushInterval(cmd)
	if err != nil {
		return exitCode(err, stderr)
	}
	liveOut, err := liveExport(ctx, cmd)
	if err != nil {
		return exitCode(err, stderr)
	}
	defer liveOut.close()
	e := &env{ctx: ctx, stdin: stdin, stdout: stdout, stderr: stderr, recordsFlush: flush, live: liveOut}
	return exitCode(kctx.Run(e), stderr)
}
