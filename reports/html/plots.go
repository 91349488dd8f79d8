package html

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"html/template"
	"os"
	"path/filepath"
	"strings"

	"github.com/llmbench/llmbench/metrics"
	"github.com/llmbench/llmbench/reports/plots"
	"github.com/llmbench/llmbench/runtime"
)

type plotView struct {
	Title  string
	Images []imageView
}

type imageView struct {
	Name string
	// URI is a data: URI built here from bytes checked to be PNG, hence
	// marked safe: html/template would otherwise blank every data: URL.
	URI template.URL
}

// pngMagic opens every PNG file; checking it keeps anything that is not
// an image out of a URI the template trusts.
var pngMagic = []byte("\x89PNG\r\n\x1a\n")

// embedPlots reads every plot file into a base64 data: URI.
func embedPlots(groups []PlotGroup) ([]plotView, error) {
	var out []plotView
	for _, g := range groups {
		pv := plotView{Title: g.Title}
		for _, path := range g.Paths {
			b, err := os.ReadFile(path)
			if err != nil {
				return nil, fmt.Errorf("report.html: plot: %w", err)
			}
			if !bytes.HasPrefix(b, pngMagic) {
				return nil, fmt.Errorf("report.html: plot %s is not a PNG", path)
			}
			uri := "data:image/png;base64," + base64.StdEncoding.EncodeToString(b)
			name := strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
			pv.Images = append(pv.Images, imageView{Name: name, URI: template.URL(uri)})
		}
		if len(pv.Images) > 0 {
			out = append(out, pv)
		}
	}
	return out, nil
}

// RenderPlots writes the sweep plots of the results under dir, one folder
// per experiment, and gathers them with each point's plots for
// Report.Plots. Point plots are drawn from records while a point runs (a
// run keeps no records afterwards), so they are taken from the files
// already written: pointDir names the folder of an experiment's point, and
// its plots/ subfolder is read. The sweep plots mark the knee of kneeGate
// when given, else of the gate the sweep table judges, so the plot and the
// table name the same knee.
func RenderPlots(dir string, results []runtime.ExperimentResult, pointDir func(exp string, pt *runtime.PointResult) string,
	kneeGate ...metrics.Gate) ([]PlotGroup, error) {
	var groups []PlotGroup
	for i := range results {
		res := &results[i]
		name := "experiment"
		if res.Experiment != nil {
			name = res.Experiment.Name
		}
		if len(res.Points) > 1 {
			gates := kneeGate
			if g, ok := tableKneeGate(res.Experiment); ok && len(gates) == 0 {
				gates = []metrics.Gate{g}
			}
			paths, err := plots.WriteSweepPlots(filepath.Join(dir, safeName(name)), res, runtime.LoadParam(res), gates...)
			if err != nil {
				return nil, fmt.Errorf("sweep plots of %s: %w", name, err)
			}
			groups = append(groups, PlotGroup{Title: name + " · sweep", Paths: paths})
		}
		for j := range res.Points {
			pt := &res.Points[j]
			groups = append(groups, PlotGroup{Title: name + " · " + pt.Params.Label(),
				Paths: plots.PointFiles(filepath.Join(pointDir(name, pt), "plots"))})
		}
	}
	return groups, nil
}

// safeName keeps a name usable as one path element.
func safeName(s string) string {
	s = strings.Map(func(r rune) rune {
		if r == '/' || r == '\\' || r == ':' || r < ' ' {
			return '_'
		}
		return r
	}, s)
	if s == "" || s == "." || s == ".." {
		return "_"
	}
	return s
}

// tableKneeGate mirrors sweep's rule for the table's knee line (the
// experiment's first latency gate that holds at every point, not a
// baseline one), which sweep does not export.
func tableKneeGate(e *runtime.Experiment) (metrics.Gate, bool) {
	if e == nil {
		return metrics.Gate{}, false
	}
	latency := map[string]bool{"ttft": true, "ttst": true, "itl": true, "request_latency": true, "ttfo": true}
	for _, g := range e.Gates {
		if len(g.At) == 0 && !g.Baseline && latency[g.Metric] {
			return g, true
		}
	}
	return metrics.Gate{}, false
}
