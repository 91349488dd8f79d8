package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/llmbench/llmbench/runtime/engine"
	runplan "github.com/llmbench/llmbench/runtime/plan"

	"github.com/rs/zerolog/log"

	"github.com/llmbench/llmbench/reports/genaiperf"
	"github.com/llmbench/llmbench/runtime/gpflags"
)

// profileFlags are the flags of one measured point, shared by profile and
// analyze (gpflags.Profile: what they mean, how they are refused); this
// file names the point's artifacts after them.
type profileFlags gpflags.Profile

// gp is the flags as gpflags reads them.
func (c *profileFlags) gp() *gpflags.Profile { return (*gpflags.Profile)(c) }

// point is the load, stop and warm-up the flags ask for.
func (c *profileFlags) point() engine.Point { return c.gp().Point() }

// compiled is one GenAI-Perf point compiled from its flags: the
// experiment it runs as, the point itself, and the GenAI-Perf description
// its artifacts echo.
type compiled struct {
	exp   *runplan.Experiment
	point runplan.PointSpec
	run   genaiperf.Run
}

// compile validates the flags and turns them into the experiment they
// describe, named after the GenAI-Perf folder.
func (c *profileFlags) compile() (compiled, error) {
	plan, err := c.gp().Plan()
	if err != nil {
		return compiled{}, err
	}
	run := c.describe(plan.Endpoint)
	run.Tokenizer = c.Tokenizer
	if err := exportFilesWritable(&run); err != nil {
		return compiled{}, err
	}
	exp, point, err := c.gp().Experiment(run.DirName(), plan)
	return compiled{exp: exp, point: point, run: run}, err
}

// exportFilesWritable refuses a --profile-export-file whose files would
// land on a folder already in the point's place (the run would fail when
// the point starts, after its prompts were drawn).
func exportFilesWritable(run *genaiperf.Run) error {
	jsonName, csvName := genaiperf.ExportFileNames(run.ProfileExportFile)
	for _, name := range []string{run.ProfileExportFile, jsonName, csvName} {
		path := filepath.Join(run.Dir(), name)
		if fi, err := os.Stat(path); err == nil && fi.IsDir() {
			return invalid("--profile-export-file %s: %s is a folder, want a file name free in the point's folder", run.ProfileExportFile, path)
		}
	}
	return nil
}

// warnInert logs the GenAI-Perf flags that were given but cannot change
// what llmbench sends or counts, so a user porting a script learns it;
// once per command, not once per analyze point.
func (c *profileFlags) warnInert() {
	if c.Backend != "" && !c.gp().Triton() {
		log.Warn().Str("backend", c.Backend).Msg("--backend only applies to Triton (--service-kind triton); recorded in input_config, no effect on OpenAI requests")
	}
	if c.TokenizerTrustRemoteCode {
		log.Warn().Msg("--tokenizer-trust-remote-code has no effect: llmbench's tokenizer reads tokenizer.json and runs no code; recorded in input_config")
	}
	if c.TokenizerRevision != "main" && c.Tokenizer == "" {
		log.Warn().Str("revision", c.TokenizerRevision).Msg("--tokenizer-revision has no effect without --tokenizer: no tokenizer is loaded")
	}
}

// describe fills the GenAI-Perf run description echoed in the artifacts.
func (c *profileFlags) describe(e runplan.Endpoint) genaiperf.Run {
	r := genaiperf.DefaultRun(c.Model...)
	r.ModelSelection, r.Backend, r.ServiceKind = c.ModelSelectionStrategy, c.Backend, c.ServiceKind
	r.TokenizerRevision, r.TokenizerTrustRemoteCode = c.TokenizerRevision, c.TokenizerTrustRemoteCode
	// Descriptions reach artifacts, so credentials in the URL or path do not.
	r.EndpointType, r.Streaming, r.URL = c.EndpointType, e.Stream, runplan.RedactURL(c.URL[0])
	r.Endpoint = runplan.RedactURL(strings.TrimLeft(c.Endpoint, " /"))
	r.Stimulus = genaiperf.Stimulus{Concurrency: c.Concurrency, RequestRate: c.RequestRate, FixedSchedule: c.FixedSchedule}
	c.describeSessions(&r)
	r.InputFile = c.InputFile
	r.RequestCount, r.MeasurementInterval, r.WarmupRequestCount = c.RequestCount.N, c.MeasurementInterval, c.WarmupRequestCount
	for _, spec := range c.Goodput {
		name, value, _ := strings.Cut(spec, ":")
		var v float64
		_, _ = fmt.Sscan(value, &v)
		r.Goodput = append(r.Goodput, genaiperf.Goodput{Name: name, Value: v})
	}
	for _, f := range e.Extra {
		r.ExtraInputs = append(r.ExtraInputs, genaiperf.Field{Name: f.Key, Value: f.Value})
	}
	r.NumDatasetEntries, r.RandomSeed = c.NumDatasetEntries, c.RandomSeed
	r.SyntheticTokens = genaiperf.TokenDist{Mean: c.SyntheticInputTokensMean, Stddev: c.SyntheticInputTokensStddev}
	r.OutputTokens = genaiperf.OutputTokens{Mean: c.OutputTokensMean, Stddev: c.OutputTokensStddev, Deterministic: c.OutputTokensMeanDeterministic}
	r.PrefixPrompts, r.PrefixPromptLength = c.NumPrefixPrompts, c.PrefixPromptLength
	r.Media = mediaConfig(&c.MediaFlags)
	r.ArtifactDir, r.ProfileExportFile, r.Version = c.ArtifactDir, c.ProfileExportFile, "llmbench "+version
	r.RequestDistribution = c.RequestDistribution
	if len(c.Telemetry.ServerMetricsURL) > 0 {
		r.ServerMetricsURLs = nil
		for _, u := range c.Telemetry.ServerMetricsURL {
			r.ServerMetricsURLs = append(r.ServerMetricsURLs, runplan.RedactURL(u))
		}
	}
	return r
}

// describeSessions echoes the session flags in input_config.
func (c *profileFlags) describeSessions(r *genaiperf.Run) {
	s := &c.SessionFlags
	r.Sessions = genaiperf.SessionConfig{Num: s.NumSessions, TurnsMean: s.SessionTurnsMean, TurnsStddev: s.SessionTurnsStddev,
		TurnDelayMean: s.SessionTurnDelayMean, TurnDelayStd: s.SessionTurnDelayStddev, DelayRatio: s.SessionDelayRatio}
	if s.SessionMode() {
		r.Stimulus = genaiperf.Stimulus{SessionConcurrency: s.SessionConcurrency}
	}
}
