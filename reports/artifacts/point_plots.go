package artifacts

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"

	"github.com/llmbench/llmbench/reports/plots"
	"github.com/llmbench/llmbench/runtime"
)

// PointPlots are the point plots this process drew, by the folder they
// were written into, so report.html embeds the very bytes written to
// disk instead of reading them back. A point is drawn while it runs (the
// records are gone once it ends), long before the page is written; the
// page embeds every plot anyway, so holding their bytes until then costs
// less than the page itself. A point this process did not draw (resumed
// from a checkpoint) is absent: its files, written by the run that
// measured it, are read. The zero value is ready; a nil *PointPlots keeps
// nothing.
type PointPlots struct {
	mu    sync.Mutex
	byDir map[string]drawnPoint
}

// drawnPoint are one point's plots: the per-point plots, then its
// telemetry over time, shown in the telemetry section.
type drawnPoint struct {
	plots, telemetry []plots.Image
}

// draw draws a point's plots from data and its telemetry over time once,
// writes them into dir's plots/ folder and keeps them for report.html. A
// plot that fails is reported on stderr naming who, not fatal: the other
// plots and files are still worth having.
func (p *PointPlots) draw(stderr io.Writer, dir, title, who string, data *plots.PointData, tel *runtime.PointTelemetry) {
	folder := filepath.Join(dir, plotsDir)
	var drawn drawnPoint
	var err error
	if drawn.plots, err = plots.RenderPointPlots(title, data); err == nil {
		_, err = plots.WriteImages(folder, drawn.plots)
	}
	if err != nil {
		fmt.Fprintf(stderr, "llmbench: plots for %s: %v\n", who, err)
	}
	if drawn.telemetry, err = plots.RenderTelemetryPlots(title, tel); err == nil {
		_, err = plots.WriteImages(folder, drawn.telemetry)
	}
	if err != nil {
		fmt.Fprintf(stderr, "llmbench: telemetry plot for %s: %v\n", who, err)
	}
	p.keep(dir, drawn)
}

func (p drawnPoint) pointPlots() []plots.Image     { return p.plots }
func (p drawnPoint) telemetryPlots() []plots.Image { return p.telemetry }

// keep notes what was drawn into dir, nothing included: a point drawn
// with no plot must not show files an earlier run left there.
func (p *PointPlots) keep(dir string, imgs drawnPoint) {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.byDir == nil {
		p.byDir = map[string]drawnPoint{}
	}
	p.byDir[filepath.Clean(dir)] = imgs
}

// of is what was drawn into dir, read from its plots/ folder when this
// process drew nothing there.
func (p *PointPlots) of(dir string) (drawnPoint, error) {
	if p != nil {
		p.mu.Lock()
		imgs, ok := p.byDir[filepath.Clean(dir)]
		p.mu.Unlock()
		if ok {
			return imgs, nil
		}
	}
	folder := filepath.Join(dir, plotsDir)
	pl, err := readImages(plots.PointFiles(folder))
	if err != nil {
		return drawnPoint{}, err
	}
	tel, err := readImages(plots.TelemetryFiles(folder))
	return drawnPoint{plots: pl, telemetry: tel}, err
}

// readImages reads plot files written by an earlier run.
func readImages(paths []string) ([]plots.Image, error) {
	var imgs []plots.Image
	for _, path := range paths {
		b, err := os.ReadFile(path)
		if err != nil {
			return nil, fmt.Errorf("report.html: plot: %w", err)
		}
		imgs = append(imgs, plots.Image{Name: filepath.Base(path), PNG: b})
	}
	return imgs, nil
}
