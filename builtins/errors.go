package builtins

import (
	"errors"
	"fmt"
	"strings"

	"github.com/llmbench/llmbench/runtime/failure"

	"go.starlark.net/resolve"
	"go.starlark.net/starlark"
	"go.starlark.net/syntax"
)

// LoadError is a fault of the scenario script — a syntax error, an unknown
// or ill-typed argument, a malformed gate, a failed validation, a runtime
// error in main() or check() — located in the script, so the CLI can print
// one message that names file:line:col and exit 2 (SPEC §1). Line and Col
// are 0 when the fault has no better place than the file itself (main()
// is missing, say).
type LoadError struct {
	// File is the script as the user named it: the scenario path given on
	// the command line, a loaded file joined to its folder, or
	// "@llmbench//presets.star" for the standard library.
	File      string
	Line, Col int
	// Msg is the message without position, such as
	// "experiment: for parameter requests: got string, want int".
	Msg string
	// Backtrace is the Starlark call stack, outermost frame first, one
	// "  file:line:col: in function" line each, under a "Traceback (most
	// recent call last):" heading; empty when there is no stack (a syntax
	// error in the scenario itself).
	Backtrace string
	// Err is the underlying error (a *starlark.EvalError, syntax.Error,
	// resolve.ErrorList or a validation error), for errors.As: a malformed
	// gate unwraps to the *metrics.GateError that describes it.
	Err error
}

// Position is "file:line:col", or "file" when the line is unknown.
func (e *LoadError) Position() string {
	if e.Line <= 0 {
		return e.File
	}
	return fmt.Sprintf("%s:%d:%d", e.File, e.Line, e.Col)
}

// Error is the position and message on the first line, then the
// backtrace, so a user sees where and why before how they got there.
func (e *LoadError) Error() string {
	s := e.Position() + ": " + e.Msg
	if e.Backtrace != "" {
		s += "\n" + strings.TrimRight(e.Backtrace, "\n")
	}
	return s
}

func (e *LoadError) Unwrap() error { return e.Err }

// FailureClass makes every scenario fault invalid input (exit 2).
func (e *LoadError) FailureClass() failure.Class { return failure.Input }

// CheckFailure is what a scenario's check(results) raised with fail(): the
// scenario ran and a custom gate did not hold, which is exit 1 like any
// failed gate, never exit 2 like a broken script (a *LoadError).
type CheckFailure struct {
	// Messages are the fail() messages, in the order they were raised.
	Messages []string
	// Where is the file:line:col of the fail() call that stopped check.
	Where string
}

func (f *CheckFailure) Error() string {
	msg := "check failed: " + strings.Join(f.Messages, "; ")
	if f.Where != "" {
		msg = f.Where + ": " + msg
	}
	return msg
}

// failError is what the fail() builtin returns; it travels inside the
// interpreter's *starlark.EvalError and is recognised by errors.As when
// check() ends, to tell a deliberate failure from a fault.
type failError struct{ msg string }

func (e *failError) Error() string { return "fail: " + e.msg }

// scriptError turns an interpreter error into a *LoadError at the place the
// user must look: the innermost script frame of the deepest evaluation
// error (so a fault inside a loaded file points into that file, while the
// backtrace still shows the load chain), or the position of a syntax or
// resolve error. Errors that carry no position are placed in file.
func scriptError(file string, err error) *LoadError {
	var le *LoadError
	if errors.As(err, &le) {
		return le
	}
	out := &LoadError{File: file, Msg: err.Error(), Err: err}
	if ev := deepestEvalError(err); ev != nil {
		out.Msg = limitMessage(ev.Msg)
		out.Backtrace = formatStack(ev.CallStack)
		if pos, ok := innermostScriptPos(ev.CallStack); ok {
			setPos(out, pos)
		}
	}
	// A syntax or resolve error below the evaluation error (a loaded file
	// that does not parse) is more precise than the load statement.
	var se syntax.Error
	var re resolve.ErrorList
	switch {
	case errors.As(err, &se):
		out.Msg = legacyLoadHint(se.Msg)
		setPos(out, se.Pos)
	case errors.As(err, &re) && len(re) > 0:
		// Every resolve error at once ("undefined: x" for each typo), the
		// first as the message and the others on lines of their own.
		out.Msg = re[0].Msg
		setPos(out, re[0].Pos)
		for _, e := range re[1:] {
			out.Msg += fmt.Sprintf("\n%s: %s", e.Pos, e.Msg)
		}
	}
	return out
}

// legacyLoadHint explains the syntax error a pre-v1 scenario gets for
// writing experiment(load = ...): `load` is a reserved word in Starlark,
// so the parser stops at it, and the user needs the parameter's new name.
func legacyLoadHint(msg string) string {
	if !strings.HasPrefix(msg, "got load,") {
		return msg
	}
	return msg + ": the load pattern is named traffic (load is a reserved word in Starlark); write traffic = concurrency(...), rate(...) or replay(...)"
}

// deepestEvalError follows the wrap chain to the last *starlark.EvalError:
// an error inside a loaded module is wrapped by "cannot load x.star" in the
// loading module, and the inner one knows where it happened.
func deepestEvalError(err error) *starlark.EvalError {
	var found *starlark.EvalError
	for e := err; e != nil; e = errors.Unwrap(e) {
		if ev, ok := e.(*starlark.EvalError); ok {
			found = ev
		}
	}
	return found
}

// innermostScriptPos is the position of the innermost frame that is
// Starlark code: builtins' own frames have no position.
func innermostScriptPos(stack starlark.CallStack) (syntax.Position, bool) {
	for i := len(stack) - 1; i >= 0; i-- {
		if pos := stack[i].Pos; pos.IsValid() && pos.Filename() != "<builtin>" {
			return pos, true
		}
	}
	return syntax.Position{}, false
}

func setPos(e *LoadError, pos syntax.Position) {
	e.File = pos.Filename()
	e.Line, e.Col = int(pos.Line), int(pos.Col)
}

// Tracebacks keep their first and last frames: how the script got going
// and where it ended. A runaway recursion is 100,000 frames deep, and a
// message of that many lines hides the one line that matters.
const (
	traceHead = 5
	traceTail = 5
)

// formatStack renders the script frames of a stack (builtin frames add no
// information: the message already names the builtin), in the format of
// starlark.CallStack.String, the middle of a deep stack cut to one line.
func formatStack(stack starlark.CallStack) string {
	var script starlark.CallStack
	for _, fr := range stack {
		if fr.Pos.Filename() != "<builtin>" {
			script = append(script, fr)
		}
	}
	if len(script) <= traceHead+traceTail+1 {
		return script.String()
	}
	var b strings.Builder
	b.WriteString(script[:traceHead].String())
	fmt.Fprintf(&b, "  … %d frames omitted …\n", len(script)-traceHead-traceTail)
	for _, fr := range script[len(script)-traceTail:] {
		fmt.Fprintf(&b, "  %s: in %s\n", fr.Pos, fr.Name)
	}
	return b.String()
}

// cancelledPrefix starts the message of a thread cancelled by the step
// limit (or Ctrl-C); the step limit's own reason says all there is.
const cancelledPrefix = "Starlark computation cancelled: "

// limitMessage rewords the interpreter's two limits so the user learns
// what the limit is and what usually hits it.
func limitMessage(msg string) string {
	switch {
	case strings.HasPrefix(msg, cancelledPrefix+tooManySteps):
		return strings.TrimPrefix(msg, cancelledPrefix)
	case msg == "Starlark stack overflow":
		return msg + ": more than 100000 nested calls (a recursion that never ends?)"
	}
	return msg
}

// errorAt makes a *LoadError for a problem found in Go after the script
// ran (a duplicate experiment name, say), placed where the offending value
// was created.
func errorAt(stack starlark.CallStack, err error) *LoadError {
	out := &LoadError{Msg: err.Error(), Err: err, Backtrace: formatStack(stack)}
	if pos, ok := innermostScriptPos(stack); ok {
		setPos(out, pos)
	}
	return out
}
