package main

import (
	"io"
	"time"

	"github.com/rs/zerolog"
	"github.com/rs/zerolog/log"

	"github.com/llmbench/llmbench/runtime"
)

// setupLogging points the global zerolog logger at stderr, human-readable
// by default and JSON for machines. Logs never carry request headers, and
// every line passes through runtime.RedactText, so a URL a lower layer
// quotes loses its credentials too.
func setupLogging(stderr io.Writer, level, format string) {
	stderr = redacting{stderr}
	lvl, err := zerolog.ParseLevel(level)
	if err != nil {
		lvl = zerolog.InfoLevel
	}
	var w io.Writer = stderr
	if format == "console" {
		w = zerolog.ConsoleWriter{Out: stderr, TimeFormat: time.TimeOnly, NoColor: true}
	}
	log.Logger = zerolog.New(w).Level(lvl).With().Timestamp().Logger()
}

// redacting writes log lines with the credentials of any URL in them
// removed; zerolog writes one whole line per call.
type redacting struct{ w io.Writer }

func (r redacting) Write(p []byte) (int, error) {
	if _, err := io.WriteString(r.w, runtime.RedactText(string(p))); err != nil {
		return 0, err
	}
	return len(p), nil
}
