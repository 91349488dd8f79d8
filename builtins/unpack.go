package builtins

import (
	"errors"
	"fmt"
	"regexp"
	"strings"
	"unicode"

	"go.starlark.net/starlark"
)

// unpack is starlark.UnpackArgs with a complete spelling suggestion for an
// unknown keyword. UnpackArgs itself only considers the first half of the
// parameter names (an indexing slip upstream), so experiment(gate=...)
// would not suggest gates; unknown keywords are therefore checked here
// first, with the same message shape.
func unpack(fn string, args starlark.Tuple, kwargs []starlark.Tuple, pairs ...any) error {
	names := make([]string, 0, len(pairs)/2)
	for i := 0; i < len(pairs); i += 2 {
		names = append(names, strings.TrimRight(pairs[i].(string), "?"))
	}
	for _, kv := range kwargs {
		name := string(kv[0].(starlark.String))
		if indexOf(names, name) >= 0 {
			continue
		}
		err := fmt.Errorf("%s: unexpected keyword argument %s", fn, kv[0])
		if near := nearest(name, names); near != "" {
			err = fmt.Errorf("%s (did you mean %s?)", err, near)
		}
		return err
	}
	if err := starlark.UnpackArgs(fn, args, kwargs, pairs...); err != nil {
		// UnpackArgs quotes a parameter given by keyword (for parameter
		// "api") and not one given by position; say it one way.
		return errors.New(quotedParam.ReplaceAllString(err.Error(), "for parameter $1:"))
	}
	return nil
}

var quotedParam = regexp.MustCompile(`for parameter "(\w+)":`)

// paramError is the message UnpackArgs gives a bad argument, for checks
// made after unpacking: "experiment: for parameter requests: ...". It
// wraps err so errors.As still finds, say, a *metrics.GateError.
func paramError(fn, param string, err error) error {
	return fmt.Errorf("%s: for parameter %s: %w", fn, param, err)
}

// paramErrorf is paramError with a formatted message.
func paramErrorf(fn, param, format string, args ...any) error {
	return paramError(fn, param, fmt.Errorf(format, args...))
}

// nearest is the candidate closest to x by edit distance, ignoring case
// and underscores, or "" when none is within half of x's length: the
// rule the interpreter uses for "did you mean" on attributes.
func nearest(x string, candidates []string) string {
	fold := func(s string) string {
		return strings.Map(func(r rune) rune {
			if r == '_' {
				return -1
			}
			return unicode.ToLower(r)
		}, s)
	}
	x = fold(x)
	best, bestD := "", (len(x)+1)/2
	for _, c := range candidates {
		if d := editDistance(x, fold(c)); d < bestD {
			best, bestD = c, d
		}
	}
	return best
}

// editDistance is the Levenshtein distance between two byte strings.
func editDistance(a, b string) int {
	row := make([]int, len(b)+1)
	for j := range row {
		row[j] = j
	}
	for i := 1; i <= len(a); i++ {
		prev := row[0]
		row[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur := min(row[j]+1, row[j-1]+1, prev+cost)
			prev, row[j] = row[j], cur
		}
	}
	return row[len(b)]
}
