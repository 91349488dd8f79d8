package builtins

import (
	"errors"
	"fmt"
	"os"
	"regexp"
	"slices"

	"go.starlark.net/starlark"
	"go.starlark.net/syntax"

	"github.com/llmbench/llmbench/metrics"
)

// fault turns an interpreter error into the *LoadError the user sees,
// placed as precisely as the source allows.
func (s *session) fault(path string, err error) *LoadError {
	le := scriptError(path, err)
	s.refine(le)
	le.Msg = s.suggestBuiltins(le.Msg)
	return le
}

// undefinedName finds the interpreter's "undefined: NAME" that came
// without a suggestion.
var undefinedName = regexp.MustCompile(`undefined: (\w+)(\n|$)`)

// suggestBuiltins adds "did you mean experiment?" to an undefined name
// that is a typo of a builtin (experimnt, sweeep): the interpreter
// suggests only the file's own names, since it cannot list the
// predeclared ones, so a misspelt builtin got no hint where a misspelt
// keyword argument does.
func (s *session) suggestBuiltins(msg string) string {
	return undefinedName.ReplaceAllStringFunc(msg, func(m string) string {
		sub := undefinedName.FindStringSubmatch(m)
		names := make([]string, 0, len(s.predeclared)+len(starlark.Universe))
		for name := range s.predeclared {
			names = append(names, name)
		}
		for name := range starlark.Universe {
			names = append(names, name)
		}
		slices.Sort(names) // the nearest wins; of equals, the first in order, as the interpreter does
		near := nearest(sub[1], names)
		if near == "" {
			return m
		}
		return "undefined: " + sub[1] + " (did you mean " + near + "?)" + sub[2]
	})
}

// paramPattern finds the parameter an argument error is about, in
// UnpackArgs' and paramError's messages.
var paramPattern = regexp.MustCompile(`^\w+: (?:for parameter (\w+):|unexpected keyword argument "(\w+)")`)

// refine moves an error the interpreter placed at a call's "(" to the
// argument at fault: a malformed gate to the offending character of its
// string literal, any other argument error to its keyword. The call is
// found by parsing the file again (only on error, so it costs nothing
// otherwise); when nothing better is found the call it is.
func (s *session) refine(le *LoadError) {
	src, ok := s.sources[le.File]
	if !ok || le.Line == 0 {
		return
	}
	f, err := fileOptions.Parse(le.File, src, 0)
	if err != nil {
		return
	}
	call := findCall(f, le.Line, le.Col)
	var ge *metrics.GateError
	if errors.As(le.Err, &ge) && pointAtGate(le, f, call, ge) {
		return
	}
	m := paramPattern.FindStringSubmatch(le.Msg)
	if call == nil || m == nil {
		return
	}
	name := m[1] + m[2]
	for _, arg := range call.Args {
		if b, ok := arg.(*syntax.BinaryExpr); ok && b.Op == syntax.EQ {
			if id, ok := b.X.(*syntax.Ident); ok && id.Name == name {
				le.Line, le.Col = int(id.NamePos.Line), int(id.NamePos.Col)
				return
			}
		}
	}
}

// findCall is the call expression whose "(" is at line:col.
func findCall(f *syntax.File, line, col int) *syntax.CallExpr {
	var found *syntax.CallExpr
	syntax.Walk(f, func(n syntax.Node) bool {
		if c, ok := n.(*syntax.CallExpr); ok && int(c.Lparen.Line) == line && int(c.Lparen.Col) == col {
			found = c
		}
		return found == nil
	})
	return found
}

// pointAtGate places a malformed gate at the offending character of the
// string literal holding it (metrics.GateError.Col counts within the
// gate): the literal inside the call if there is exactly one, else the
// only such literal in the file (gates kept in a variable). It reports
// whether it found one; a computed gate has none.
func pointAtGate(le *LoadError, f *syntax.File, call *syntax.CallExpr, ge *metrics.GateError) bool {
	var inCall, inFile []*syntax.Literal
	syntax.Walk(f, func(n syntax.Node) bool {
		if lit, ok := n.(*syntax.Literal); ok && lit.Value == ge.Gate {
			inFile = append(inFile, lit)
			if call != nil && within(lit, call) {
				inCall = append(inCall, lit)
			}
		}
		return true
	})
	switch {
	case len(inCall) == 1:
		moveToGate(le, inCall[0], ge)
	case len(inCall) == 0 && len(inFile) == 1:
		moveToGate(le, inFile[0], ge)
	default:
		return false
	}
	return true
}

func within(n, outer syntax.Node) bool {
	start, end := outer.Span()
	pos, _ := n.Span()
	after := pos.Line > start.Line || (pos.Line == start.Line && pos.Col >= start.Col)
	before := pos.Line < end.Line || (pos.Line == end.Line && pos.Col <= end.Col)
	return after && before
}

// moveToGate points at the gate's offending column when the literal holds
// the gate verbatim (no escapes, so columns line up), else at the literal.
func moveToGate(le *LoadError, lit *syntax.Literal, ge *metrics.GateError) {
	le.Line, le.Col = int(lit.TokenPos.Line), int(lit.TokenPos.Col)
	verbatim := lit.Raw == `"`+ge.Gate+`"` || lit.Raw == `'`+ge.Gate+`'`
	if verbatim && isASCII(ge.Gate) {
		le.Col += ge.Col
	}
}

func isASCII(s string) bool {
	for i := range len(s) {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

// returnOf is where fn returns its value, for an error about what it
// returned: its last return statement, or fn's def when it has none (or
// the source cannot be parsed again).
func (s *session) returnOf(fn *starlark.Function) syntax.Position {
	pos := fn.Position()
	src, ok := s.sources[pos.Filename()]
	if !ok {
		return pos
	}
	f, err := fileOptions.Parse(pos.Filename(), src, 0)
	if err != nil {
		return pos
	}
	found := pos
	samePlace := func(a, b syntax.Position) bool { return a.Line == b.Line && a.Col == b.Col }
	syntax.Walk(f, func(n syntax.Node) bool {
		def, ok := n.(*syntax.DefStmt)
		if !ok || !samePlace(def.Def, pos) && !samePlace(def.Name.NamePos, pos) {
			return true
		}
		syntax.Walk(def, func(n syntax.Node) bool {
			if r, ok := n.(*syntax.ReturnStmt); ok {
				found = r.Return
			}
			_, nested := n.(*syntax.DefStmt)
			return n == def || !nested // a nested def's returns are not main's
		})
		return false
	})
	return found
}

// GatePosition is where a gate is written in a scenario file
// ("ci.star:12:18"), for refusing a gate after the scenario has loaded
// (a weak baseline gate is known only once its baseline is read): the
// string literal that holds exactly the gate's text, when there is one.
// The file name alone when it cannot be found.
func GatePosition(file, gate string) string {
	src, err := os.ReadFile(file)
	if err != nil {
		return file
	}
	f, err := fileOptions.Parse(file, src, 0)
	if err != nil {
		return file
	}
	var found []*syntax.Literal
	syntax.Walk(f, func(n syntax.Node) bool {
		if lit, ok := n.(*syntax.Literal); ok && lit.Value == gate {
			found = append(found, lit)
		}
		return true
	})
	if len(found) != 1 {
		return file
	}
	return fmt.Sprintf("%s:%d:%d", file, found[0].TokenPos.Line, found[0].TokenPos.Col)
}
