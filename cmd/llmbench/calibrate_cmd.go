package main

import (
	"fmt"
	"strings"

	"github.com/llmbench/llmbench/reports/progress"
	"github.com/llmbench/llmbench/runtime/calibrate"
	"github.com/llmbench/llmbench/transport/slowdown"
)

// calibrateCmd measures how trustworthy a scenario's baseline gates are
// against its own server before anyone relies on them: false alarms of
// same-vs-same pairs, detections of a known slowdown, and the sample
// sizes that would make both good (runtime/calibrate).
type calibrateCmd struct {
	File               string   `arg:"" type:"path" help:"Scenario file (.star) with baseline gates."`
	Define             []string `short:"D" sep:"none" help:"key=value visible to the scenario as ctx.vars (repeatable)."`
	Slowdown           string   `default:"itl=20%,ttft=20%" help:"What the slowdown proxy does to the slowed runs: itl=, ttft=, throughput= shares of the server's own measured times, each > 0 (e.g. itl=10%)."`
	Pairs              int      `default:"10" help:"A/A pairs and slowed pairs each: the scenario runs 2N+1 times."`
	Store              string   `default:"calibration" type:"path" help:"Folder the runs are kept in as they end: an interrupted calibrate resumes from it, a second call measures only what is missing."`
	JSON               bool     `name:"json" help:"Print the report as JSON instead of tables."`
	FailOnInconclusive bool     `help:"Count an inconclusive gate as failed, as run --fail-on-inconclusive does."`
	starlarkFlags
	logFlags
}

func (c *calibrateCmd) Run(e *env) error {
	shares, err := parseSlowdown(c.Slowdown)
	if err != nil {
		return err
	}
	scen, err := loadScenario(e, c.File, c.Define, &c.starlarkFlags)
	if err != nil {
		return err
	}
	opt := calibrate.ScenarioOptions{Pairs: c.Pairs, Slowdown: shares, Store: c.Store, FailOnInconclusive: c.FailOnInconclusive,
		Display: &progress.Live{W: e.stderr},
		Progress: func(done, total int, r *calibrate.Run) {
			fmt.Fprintf(e.stderr, "calibrate: run %d/%d done (%s #%d, %.0fs)\n", done, total, r.Spec.Pool, r.Spec.Index+1, r.Wall.Seconds())
		}}
	rep, err := calibrate.CalibrateScenario(e.ctx, scen, opt)
	if err != nil {
		return err
	}
	if c.JSON {
		return rep.WriteJSON(e.stdout)
	}
	return rep.WriteText(e.stdout)
}

// parseSlowdown reads --slowdown with the proxy's own parser, refusing
// a share of 0 as well as a negative one: a slowdown of nothing has
// nothing to detect.
func parseSlowdown(text string) (slowdown.Shares, error) {
	shares, err := slowdown.ParseShares(text)
	if err != nil {
		return shares, invalid("--slowdown: %w", err)
	}
	for _, pair := range strings.Split(text, ",") {
		if one, _ := slowdown.ParseShares(pair); one == (slowdown.Shares{}) {
			return shares, invalid("--slowdown: %s: a share must be > 0 (the slowed runs must differ from the others)", strings.TrimSpace(pair))
		}
	}
	return shares, nil
}
