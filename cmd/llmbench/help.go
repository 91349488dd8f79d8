package main

import (
	"reflect"
	"strings"
	"time"

	"github.com/alecthomas/kong"
)

// helpSetup is how every --help is laid out: compact, a command's own
// flags (printHelp), each with its default (helpValue).
func helpSetup() []kong.Option {
	return []kong.Option{kong.ConfigureHelp(kong.HelpOptions{Compact: true}), kong.Help(printHelp), kong.ValueFormatter(helpValue)}
}

// printHelp is kong's help, except that a command's help lists what
// that command takes: its own flags and --help, not llmbench's
// --version. Flags that only some commands use are declared on those
// commands (logFlags, recordsFlags), so no list names a flag that does
// nothing there.
func printHelp(options kong.HelpOptions, ctx *kong.Context) error {
	if ctx.Selected() != nil {
		for _, f := range ctx.Model.Flags {
			if f.Hidden || f.Name == "help" {
				continue
			}
			f.Hidden = true
			defer func() { f.Hidden = false }()
		}
	}
	return kong.DefaultHelpPrinter(options, ctx)
}

// helpValue is a flag's help text with its default, so that every flag
// says what it is when not given: kong shows a tagged default only as the
// placeholder (and not at all under a placeholder tag: --starlark-cpu-limit
// hid its 2m), and an untagged flag's zero value not at all. A text that
// already says "(default ...", an untagged flag whose text speaks of its
// default, a required flag and a false boolean are left as written; the
// environment variables follow, as kong puts them.
func helpValue(v *kong.Value) string {
	text := v.Help
	if d := defaultNote(v); d != "" {
		text = withSentence(text, d)
	}
	if len(v.Tag.Envs) > 0 && !kong.HasInterpolatedVar(v.OrigHelp, "env") {
		text = withNote(text, "$"+strings.Join(v.Tag.Envs, ", $"))
	}
	return text
}

// defaultNote is "Default: X." for v, or "" when nothing need be said.
func defaultNote(v *kong.Value) string {
	help := strings.ToLower(v.Help)
	if v.Flag == nil || v.Required || strings.Contains(help, "(default") {
		return ""
	}
	switch {
	case v.IsBool():
		if v.Default == "true" {
			return "Default: true."
		}
		return ""
	case v.Default != "": // even when the text speaks of another default (--url's under triton)
		return "Default: " + v.Default + "."
	case strings.Contains(help, "default"): // an untagged default said in words: "(default 1)"
		return ""
	case v.Target.Type() == reflect.TypeFor[time.Duration]():
		return "Default: 0s."
	}
	switch v.Target.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Float32, reflect.Float64:
		return "Default: 0."
	}
	return "Default: none."
}

// withSentence ends text with sentence, a sentence of its own so that it
// cannot be read as part of the text's last clause.
func withSentence(text, sentence string) string {
	switch {
	case text == "":
		return sentence
	case strings.HasSuffix(text, "."):
		return text + " " + sentence
	}
	return text + ". " + sentence
}

// withNote puts "(note)" at the end of text, before its full stop.
func withNote(text, note string) string {
	if text == "" {
		return "(" + note + ")"
	}
	if t, ok := strings.CutSuffix(text, "."); ok {
		return t + " (" + note + ")."
	}
	return text + " (" + note + ")"
}
