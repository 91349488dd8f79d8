package main

import (
	"io"
	"time"

	"github.com/rs/zerolog"
	"github.com/rs/zerolog/log"
)

// setupLogging points the global zerolog logger at stderr, human-readable
// by default and JSON for machines. Logs never carry request headers.
func setupLogging(stderr io.Writer, level, format string) {
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
