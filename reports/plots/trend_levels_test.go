package plots

import (
	"bytes"
	"image"
	"image/png"
	"testing"
)

// levelPixels counts the pixels drawn in the step line's purple.
func levelPixels(img image.Image) int {
	n := 0
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, _ := img.At(x, y).RGBA()
			if d := func(v uint32, want int) int { return int(v>>8) - want }; abs(d(r, 204)) < 12 && abs(d(g, 121)) < 12 && abs(d(bl, 167)) < 12 {
				n++
			}
		}
	}
	return n
}

func abs(v int) int { return max(v, -v) }

// A trend with levels draws the step line and the change point's mark in
// the level's purple, more of it with a change point (the step, the
// diamond and its label) than with one flat level; a trend without
// levels (no change points searched) has none of it.
func TestTrendLevelsDrawn(t *testing.T) {
	count := func(tr Trend) int {
		t.Helper()
		imgs, err := RenderTrends([]Trend{tr})
		if err != nil {
			t.Fatal(err)
		}
		img, err := png.Decode(bytes.NewReader(imgs[0].PNG))
		if err != nil {
			t.Fatal(err)
		}
		return levelPixels(img)
	}
	plain := trendFixture(true)
	flat := trendFixture(true)
	flat.Levels, flat.ChangeMethod = []TrendLevel{{From: 0, To: 4, Value: 10.6}}, "E-divisive means"
	shifted := trendFixture(true)
	shifted.Levels, shifted.ChangeMethod = []TrendLevel{{From: 0, To: 1, Value: 10.5}, {From: 2, To: 4, Value: 10.8, Shift: "+2.9%, p = 0.0004"}},
		"E-divisive means"
	none, one, two := count(plain), count(flat), count(shifted)
	if none > 0 || one < 300 || two < one+100 {
		t.Errorf("purple pixels: %d without levels (want 0), %d with one level, %d with a change point (want more)", none, one, two)
	}
}
