// Package failure says what kind of failure an error is — bad input, a
// run that could not be carried out, an interrupt — from where the error
// starts, so however deeply it is wrapped (with %w) one function maps it
// to the exit code (k6's errext is the model). An error nobody classified
// is a run failure: llmbench never calls a failure the user's fault
// unless the code that found it said so.
package failure

import (
	"errors"
	"fmt"
)

// Class is a kind of failure, one per exit code of SPEC §1.
type Class int

// The classes, from the least to the most specific.
const (
	// Run: the run could not be carried out (target unreachable, a file
	// that could not be written): exit 3.
	Run Class = iota
	// Input: invalid input (a scenario error, a bad flag or file): exit 2.
	Input
	// Interrupted: stopped by Ctrl-C or SIGTERM: exit 130.
	Interrupted
)

// Classifier is implemented by errors that know their class (a scenario's
// *LoadError, a plan's *PlanError).
type Classifier interface {
	FailureClass() Class
}

// classed is an error with a class attached.
type classed struct {
	class Class
	err   error
}

func (e *classed) Error() string       { return e.err.Error() }
func (e *classed) Unwrap() error       { return e.err }
func (e *classed) FailureClass() Class { return e.class }

// New returns err marked as class; nil stays nil.
func New(class Class, err error) error {
	if err == nil {
		return nil
	}
	return &classed{class: class, err: err}
}

// Inputf is a new invalid-input error; %w keeps the wrapped chain.
func Inputf(format string, args ...any) error { return New(Input, fmt.Errorf(format, args...)) }

// Runf is a new run failure; %w keeps the wrapped chain.
func Runf(format string, args ...any) error { return New(Run, fmt.Errorf(format, args...)) }

// ClassOf is the class of the outermost classified error in err's chain:
// the code closest to the user decides (a file that cannot be read is
// input when the user named it, a run failure when llmbench wrote it).
// Unclassified errors are run failures.
func ClassOf(err error) Class {
	var c Classifier
	if errors.As(err, &c) {
		return c.FailureClass()
	}
	return Run
}
