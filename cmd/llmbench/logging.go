package main

import (
	"io"
	"time"

	"github.com/llmbench/llmbench/runtime/plan"
	"github.com/rs/zerolog"
	"github.com/rs/zerolog/log"
)

// logFlags are taken by the commands that log: those that load a
// scenario (run, check, merge) or measure (run, profile, analyze). The
// others log nothing, so they refuse these flags by name.
type logFlags struct {
	LogLevel  string `help:"Log level: debug, info, warn, error." default:"info" enum:"debug,info,warn,error"`
	LogFormat string `help:"Log format: console or json." default:"console" enum:"console,json"`
}

func (f *logFlags) logSettings() logFlags { return *f }

// logSettings is how the command cmd asks to log; a command that takes
// no log flags gets the defaults.
func logSettings(cmd any) logFlags {
	if c, ok := cmd.(interface{ logSettings() logFlags }); ok {
		return c.logSettings()
	}
	return logFlags{LogLevel: "info", LogFormat: "console"}
}

// setupLogging points the global zerolog logger at stderr, human-readable
// by default and JSON for machines. Logs never carry request headers, and
// every line passes through runtime.RedactText, so a URL a lower layer
// quotes loses its credentials too.
func setupLogging(stderr io.Writer, f logFlags) {
	stderr = redacting{stderr}
	lvl, err := zerolog.ParseLevel(f.LogLevel)
	if err != nil {
		lvl = zerolog.InfoLevel
	}
	var w io.Writer = stderr
	if f.LogFormat == "console" {
		w = zerolog.ConsoleWriter{Out: stderr, TimeFormat: time.TimeOnly, NoColor: true}
	}
	log.Logger = zerolog.New(w).Level(lvl).With().Timestamp().Logger()
}

// redacting writes log lines with the credentials of any URL in them
// removed; zerolog writes one whole line per call.
type redacting struct{ w io.Writer }

func (r redacting) Write(p []byte) (int, error) {
	if _, err := io.WriteString(r.w, plan.RedactText(string(p))); err != nil {
		return 0, err
	}
	return len(p), nil
}
