package main

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/llmbench/llmbench/runtime"
	"github.com/llmbench/llmbench/runtime/failure"
	"github.com/llmbench/llmbench/runtime/plan"
)

// Exit codes, one per failure class (SPEC §1).
const (
	exitOK           = 0
	exitGateFailed   = 1
	exitInvalidInput = 2
	exitRunFailed    = 3
	exitInterrupted  = 130
)

// errGatesFailed is the one outcome that is not a failure of llmbench's:
// the run worked and a gate did not hold (exit 1).
type errGatesFailed struct{ status string }

func (e *errGatesFailed) Error() string { return e.status }

// invalid is bad user input found in cmd (a flag, -D): exit 2. Errors
// from the packages carry their class from where they started.
func invalid(format string, args ...any) error { return failure.Inputf(format, args...) }

// runFailed is a run that could not be carried out: exit 3.
func runFailed(format string, args ...any) error { return failure.Runf(format, args...) }

// errInterrupted ends a run stopped by Ctrl-C or SIGTERM after its partial
// results were written.
var errInterrupted = failure.New(failure.Interrupted, errors.New("interrupted: partial results written"))

// exitCode prints err in one line and maps it to the process exit code:
// the one place a failure's class becomes a number.
func exitCode(err error, stderr io.Writer) int {
	if err == nil {
		return exitOK
	}
	fmt.Fprintf(stderr, "llmbench: %s\n", plan.RedactText(err.Error()))
	var gates *errGatesFailed
	if errors.As(err, &gates) {
		return exitGateFailed
	}
	switch failure.ClassOf(err) {
	case failure.Input:
		return exitInvalidInput
	case failure.Interrupted:
		return exitInterrupted
	}
	return exitRunFailed
}

// requestFailures is the run failure (exit 3) of a run in which every
// measured request failed, naming the most common error, or else of one
// whose errors passed the default error budget with nothing set to judge
// them (runtime.CheckErrors); nil otherwise.
func requestFailures(results ...runtime.ExperimentResult) error {
	if e, ok := runtime.AllFailed(results); ok {
		return runFailed("every request failed; the most common error (%d times): %s", e.Count, runtime.DescribeError(e))
	}
	return runtime.CheckErrors(results)
}

// strictClient is --strict's verdict: exit 3 when the client, not the
// server, limited any point (its numbers measure the client), nil
// otherwise.
func strictClient(strict bool, results ...runtime.ExperimentResult) error {
	if !strict {
		return nil
	}
	var limited []string
	for _, res := range results {
		for _, p := range res.Points {
			for _, out := range p.Repeats {
				if c := out.Summary.Client; c != nil && c.Limited {
					limited = append(limited, res.Experiment.Name+"/"+p.Params.Label()+": "+strings.Join(c.Reasons, "; "))
					break
				}
			}
		}
	}
	if len(limited) == 0 {
		return nil
	}
	return runFailed("--strict: %d points were limited by the client, not the server: %s", len(limited), strings.Join(limited, " | "))
}
