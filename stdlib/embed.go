// Package stdlib holds llmbench's standard library of Starlark modules,
// embedded in the binary so `load("@llmbench//presets.star", ...)` works on
// a machine with nothing but llmbench installed. The modules are plain
// Starlark: package builtins executes them with the same builtins and
// options as a user's scenario, so they can do nothing a scenario cannot.
package stdlib

import (
	"embed"
	"io/fs"
)

//go:embed *.star
var files embed.FS

// FS returns the standard library's modules, named as they are loaded
// after the "@llmbench//" prefix ("presets.star"). It is read-only.
func FS() fs.FS { return files }
