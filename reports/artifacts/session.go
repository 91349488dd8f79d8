package artifacts

import (
	"io"

	"github.com/llmbench/llmbench/runtime/engine"
)

// Display shows the live progress of one run of a point at a time: the
// CLI's bar on a terminal, plain lines in CI. Start ends the previous
// display.
type Display interface {
	Start(title string, requests, warmup int) *engine.Progress
	End()
}

// Session is what every observer writes with: where tables and messages
// go, the live display and how point files are written.
type Session struct {
	Stdout, Stderr io.Writer
	Display        Display
	Sink           SinkOptions
}
