package builtins

import (
	"context"
	"fmt"
	"os"

	"github.com/rs/zerolog/log"
	"go.starlark.net/starlark"
	"go.starlark.net/syntax"

	_ "github.com/llmbench/llmbench/builtins/addrspace/afterstarlark" // llmbench's address space grows with use, see package addrspace
)

// DefaultMaxSteps bounds a scenario's computation when Options.MaxSteps is
// 0: far beyond what building a plan needs (a 10-experiment, 100-point
// scenario takes a few thousand steps), small enough that an accidental
// infinite loop ends in about a second with a clear error.
const DefaultMaxSteps = 10_000_000

// tooManySteps starts the reason a thread stopped by the step limit is
// cancelled with.
const tooManySteps = "too many steps"

// Options tunes how a scenario is loaded. The zero value is ready to use.
type Options struct {
	// MaxSteps caps the Starlark computation steps of loading (and, again,
	// of check()); 0 means DefaultMaxSteps.
	MaxSteps uint64
	// Context cancels a running script (Ctrl-C during a long load); nil
	// means never.
	Context context.Context
	// LookupEnv reads the environment for env(); nil means os.LookupEnv.
	// Tests pass a fixed map so scenarios load the same everywhere.
	LookupEnv func(name string) (string, bool)
	// Print receives the script's print() output with the file:line:col of
	// the call; nil logs it at info level through zerolog.
	Print func(pos, msg string)

	// Test hooks: predeclared adds names to every module (assert),
	// onThread sees each new thread (to attach the test's reporter), and
	// mainOptional lets a test file that defines no main() load.
	predeclared  starlark.StringDict
	onThread     func(*starlark.Thread)
	mainOptional bool
}

func (o Options) maxSteps() uint64 {
	if o.MaxSteps == 0 {
		return DefaultMaxSteps
	}
	return o.MaxSteps
}

func (o Options) lookupEnv(name string) (string, bool) {
	if o.LookupEnv == nil {
		return os.LookupEnv(name)
	}
	return o.LookupEnv(name)
}

// fileOptions are the dialect every module is executed with: config
// scripts want top-level loops and reassignment, and the step limit, not
// the language, is what bounds while loops and recursion.
var fileOptions = &syntax.FileOptions{
	Set:             true,
	While:           true,
	TopLevelControl: true,
	GlobalReassign:  true,
	Recursion:       true,
}

// Thread-local keys: builtins find the load session (paths, -D values,
// environment) through the thread instead of globals, so two scenarios
// can load at once.
const sessionKey = "llmbench.session"

// newThread is the one place a Starlark thread is made: the step limit,
// cancellation, print and load() are set here for loading and check()
// alike. stop must be called when the thread is done, to release the
// goroutine that watches the context.
func newThread(name string, s *session) (thread *starlark.Thread, stop func()) {
	thread = &starlark.Thread{Name: name, Load: s.load, Print: s.print}
	thread.SetLocal(sessionKey, s)
	limit := s.opts.maxSteps()
	thread.SetMaxExecutionSteps(limit)
	thread.OnMaxSteps = func(t *starlark.Thread) {
		t.Cancel(fmt.Sprintf("%s: the scenario ran more than %d Starlark steps (a loop or recursion that never ends?)", tooManySteps, limit))
	}
	if s.opts.onThread != nil {
		s.opts.onThread(thread)
	}
	ctx := s.opts.Context
	if ctx == nil {
		return thread, func() {}
	}
	done := make(chan struct{})
	go func() {
		select {
		case <-ctx.Done():
			thread.Cancel(context.Cause(ctx).Error())
		case <-done:
		}
	}()
	return thread, func() { close(done) }
}

// print sends print() to the log with the caller's position, so a
// scenario's debugging output lands where the rest of llmbench's does.
func (s *session) print(thread *starlark.Thread, msg string) {
	pos := ""
	if thread.CallStackDepth() > 0 {
		pos = thread.CallFrame(0).Pos.String()
		if thread.CallStackDepth() > 1 {
			pos = thread.CallFrame(1).Pos.String()
		}
	}
	if s.opts.Print != nil {
		s.opts.Print(pos, msg)
		return
	}
	log.Info().Str("script", pos).Msg(msg)
}

// sessionOf returns the load session a builtin runs in.
func sessionOf(thread *starlark.Thread) *session {
	s, _ := thread.Local(sessionKey).(*session)
	return s
}
