package html

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"html/template"
	"path/filepath"
	"strings"

	"github.com/llmbench/llmbench/reports/plots"
	"github.com/llmbench/llmbench/runtime"
)

type plotView struct {
	Title  string
	Images []imageView
}

type imageView struct {
	Name string
	// Tall marks a figure higher than wide (stacked panels), held to
	// the window's height so its panels are seen together.
	Tall bool
	// URI is a data: URI built here from bytes checked to be PNG, hence
	// marked safe: html/template would otherwise blank every data: URL.
	URI template.URL
}

// pngMagic opens every PNG file; checking it keeps anything that is not
// an image out of a URI the template trusts.
var pngMagic = []byte("\x89PNG\r\n\x1a\n")

// embedPlots turns every group's images into base64 data: URIs.
func embedPlots(groups []PlotGroup) ([]plotView, error) {
	var out []plotView
	for _, g := range groups {
		pv := plotView{Title: g.Title}
		for _, img := range g.Images {
			iv, err := embed(img.Name, img.PNG)
			if err != nil {
				return nil, err
			}
			pv.Images = append(pv.Images, iv)
		}
		if len(pv.Images) > 0 {
			out = append(out, pv)
		}
	}
	return out, nil
}

// embed makes one PNG a data: URI captioned with its file name's stem.
func embed(name string, b []byte) (imageView, error) {
	if !bytes.HasPrefix(b, pngMagic) {
		return imageView{}, fmt.Errorf("report.html: plot %s is not a PNG", name)
	}
	uri := "data:image/png;base64," + base64.StdEncoding.EncodeToString(b)
	stem := strings.TrimSuffix(filepath.Base(name), filepath.Ext(name))
	return imageView{Name: stem, URI: template.URL(uri), Tall: pngHeight(b) > pngWidth(b)}, nil
}

// pngWidth and pngHeight read a PNG's size from its IHDR chunk, which
// follows the 8-byte signature: length and type (8 bytes), then width and
// height, 4 bytes each, big-endian. 0 for a file too short to have one.
func pngWidth(b []byte) uint32  { return be32(b, 16) }
func pngHeight(b []byte) uint32 { return be32(b, 20) }

func be32(b []byte, at int) uint32 {
	if len(b) < at+4 {
		return 0
	}
	return binary.BigEndian.Uint32(b[at:])
}

// PointImages gives the plots drawn of an experiment's point. The page is
// written after every point ran, and a run keeps no records, so the
// caller keeps the plots' bytes when it draws them (or, for a point an
// earlier run drew, reads that run's files); the page draws nothing.
type PointImages func(exp string, pt *runtime.PointResult) ([]plots.Image, error)

// PlotGroups lays out the page's plots, experiment by experiment: its
// sweep plots from sweeps (keyed by experiment name, already rendered by
// plots.RenderSweepPlots), then each point's plots from points; a nil
// points leaves point plots out.
func PlotGroups(results []runtime.ExperimentResult, sweeps map[string][]plots.Image, points PointImages) ([]PlotGroup, error) {
	var groups []PlotGroup
	for i := range results {
		res := &results[i]
		name := experimentName(res)
		if imgs := sweeps[name]; len(imgs) > 0 {
			groups = append(groups, PlotGroup{Title: name + " · sweep", Images: imgs})
		}
		if points == nil {
			continue
		}
		for j := range res.Points {
			pt := &res.Points[j]
			imgs, err := points(name, pt)
			if err != nil {
				return nil, err
			}
			groups = append(groups, PlotGroup{Title: name + " · " + pt.Params.Label(), Images: imgs})
		}
	}
	return groups, nil
}

// experimentName names an experiment in plot titles and folders.
func experimentName(res *runtime.ExperimentResult) string {
	if res.Experiment == nil {
		return "experiment"
	}
	return res.Experiment.Name
}
