package main

import (
	"errors"
	"fmt"
	"io"
)

// Exit codes, one per failure class (SPEC §1).
const (
	exitOK           = 0
	exitGateFailed   = 1
	exitInvalidInput = 2
	exitRunFailed    = 3
	exitInterrupted  = 130
)

// exitError carries the exit code a failure maps to.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

// invalid marks bad user input (flags, files): exit 2.
func invalid(format string, args ...any) error {
	return &exitError{code: exitInvalidInput, err: fmt.Errorf(format, args...)}
}

// runFailed marks a run that could not be carried out: exit 3.
func runFailed(format string, args ...any) error {
	return &exitError{code: exitRunFailed, err: fmt.Errorf(format, args...)}
}

// errInterrupted ends a run stopped by Ctrl-C or SIGTERM after its partial
// results were written.
var errInterrupted = &exitError{code: exitInterrupted, err: errors.New("interrupted: partial results written")}

// exitCode prints err in one line and maps it to the process exit code.
func exitCode(err error, stderr io.Writer) int {
	if err == nil {
		return exitOK
	}
	fmt.Fprintf(stderr, "llmbench: %v\n", err)
	var e *exitError
	if errors.As(err, &e) {
		return e.code
	}
	return exitRunFailed
}
