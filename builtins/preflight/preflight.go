// Package preflight bounds the memory a scenario's Starlark may use.
//
// go.starlark.net has no allocation limit: `[0] * 1000000000` is one 16 GB
// slice, `list(range(1000000000))` fills 16 GB inside one builtin, and a
// string doubled in a loop reaches gigabytes in 30 steps, so neither the
// step limit nor a watchdog that cancels the thread can stop them; the
// interpreter's maintainers point to an operating-system limit instead.
// So before llmbench evaluates a scenario in its own process it evaluates
// it once in a child — the llmbench binary itself, run as the hidden
// ChildCommand — under an address-space limit (RLIMIT_AS). A child that
// dies by the limit becomes a scenario error (exit 2) naming the file; a
// child that finishes, whatever the scenario's outcome, proves the same
// evaluation fits, and the parent repeats it in-process as before (the
// plan is Go values and closures, which cannot cross a process boundary).
// check(results) gets the same preflight after the run, with the results
// sent to the child.
//
// The bound is the child's address space beyond what it has mapped when
// the evaluation starts, and covers everything evaluating does: checking
// a large dataset file counts too. It holds on Linux; elsewhere Guard
// evaluates in-process only, bounded by the step limit alone.
package preflight

import (
	"bytes"
	"context"
	"encoding/gob"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"

	"github.com/rs/zerolog/log"

	"github.com/llmbench/llmbench/builtins"
	"github.com/llmbench/llmbench/runtime"
	"github.com/llmbench/llmbench/runtime/failure"
)

// ChildCommand is the hidden subcommand of the llmbench binary that must
// run Serve: the child a preflight starts is `llmbench ChildCommand`.
const ChildCommand = "internal-starlark-preflight"

// Guard loads scenarios after a preflight in a child process.
type Guard struct {
	// Memory is the child's memory budget in bytes, 0 for none.
	Memory int64
	// CPU bounds the child's processor time, 0 for no bound: a builtin
	// working on a huge or deeply nested value (str() of a list nested a
	// million deep computes for more than five minutes) runs between two
	// Starlark steps, where the step limit cannot stop it. With neither
	// bound there is no child.
	CPU time.Duration
	// Command is the child's command line; nil means this executable run
	// as ChildCommand. Tests of this package point it at the test binary.
	Command []string
}

// MemoryLimitError is what a scenario that outgrew the memory limit
// gives, inside a *builtins.LoadError naming the file.
type MemoryLimitError struct {
	// Limit is the budget, in bytes, the evaluation exceeded.
	Limit int64
	// Crash is the first line the child died with ("fatal error: runtime:
	// out of memory", "signal: killed").
	Crash string
}

func (e *MemoryLimitError) Error() string { return e.what() + " " + e.hint() }

func (e *MemoryLimitError) what() string {
	return "needed more than " + FormatSize(e.Limit) + " of memory"
}

func (e *MemoryLimitError) hint() string {
	return "(the Starlark memory limit: raise it with --starlark-memory-limit or " + EnvLimit + ", 0 turns it off)"
}

// CPULimitError is what a scenario that computed for longer than the CPU
// limit gives, inside a *builtins.LoadError naming the file.
type CPULimitError struct {
	Limit time.Duration
}

func (e *CPULimitError) Error() string { return e.what() + " " + e.hint() }

func (e *CPULimitError) what() string {
	return fmt.Sprintf("computed for more than %s of processor time", e.Limit)
}

func (e *CPULimitError) hint() string {
	return "(a builtin working on a huge or deeply nested value? The Starlark CPU limit: raise it with --starlark-cpu-limit or " +
		EnvCPULimit + ", 0 turns it off)"
}

// stackError is a child that overflowed Go's stack.
type stackError struct{}

func (e *stackError) Error() string { return e.what() + " " + e.hint() }
func (*stackError) what() string    { return "nested too deeply: evaluating it overflowed the stack" }
func (*stackError) hint() string    { return "(a value nested within itself many thousand times?)" }

// limitFault is how a child died of the scenario: what happened, and what
// to do about it, for a message that says where in between.
type limitFault interface {
	error
	what() string
	hint() string
}

// Load is builtins.Load after a preflight: a scenario that needs more
// memory than the limit to load is a *builtins.LoadError (exit 2) without
// ever being evaluated in this process. The scenario's check(), if any,
// is wrapped to get its own preflight when the run calls it.
func (g Guard) Load(ctx context.Context, path string, vars map[string]string, opts builtins.Options) (*runtime.Scenario, error) {
	if g.active() {
		if _, err := os.Stat(path); err == nil { // an unreadable file is Load's error to give
			if err := g.run(ctx, path, request{File: path, Vars: vars}); err != nil {
				return nil, err
			}
		}
	}
	scen, err := builtins.Load(path, vars, opts)
	if err != nil || scen.Check == nil || !g.active() {
		return scen, err
	}
	check := scen.Check
	scen.Check = func(results []runtime.ExperimentResult) error {
		req := request{File: path, Vars: vars, Check: true, Results: transferOf(results)}
		if err := g.run(ctx, path, req); err != nil {
			return err
		}
		return check(results)
	}
	return scen, nil
}

func (g Guard) active() bool { return (g.Memory > 0 || g.CPU > 0) && supported }

// run evaluates req in a child and says how it ended: nil when the child
// finished, a *builtins.LoadError when the limit stopped it, an error of
// class Interrupted when ctx ended first, a Run failure when the child
// crashed otherwise. When no child can be started at all the scenario is
// evaluated unbounded, with a warning, rather than not at all.
func (g Guard) run(ctx context.Context, path string, req request) error {
	req.Memory, req.CPU = g.Memory, g.CPU
	var in bytes.Buffer
	if err := gob.NewEncoder(&in).Encode(req); err != nil {
		log.Warn().Err(err).Msg("Starlark memory limit not applied: cannot hand the scenario to a child process")
		return nil
	}
	argv := g.Command
	if argv == nil {
		argv = []string{selfExecutable(), ChildCommand}
	}
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Stdin = &in
	out := &headBuffer{max: 4 << 10}
	errs := &headBuffer{max: 64 << 10}
	cmd.Stdout, cmd.Stderr = out, errs
	if err := cmd.Start(); err != nil {
		if ctx.Err() != nil {
			return interrupted(ctx, path)
		}
		log.Warn().Err(err).Msg("Starlark memory limit not applied: cannot start a child process")
		return nil
	}
	err := cmd.Wait()
	switch {
	case ctx.Err() != nil:
		return interrupted(ctx, path)
	case err == nil && out.String() == doneLine:
		return nil
	}
	crash := crashLine(errs.String(), err)
	if fault := g.fault(errs.String(), cmd.ProcessState, crash); fault != nil {
		le := &builtins.LoadError{File: path, Err: fault, Msg: fault.Error()}
		if !req.Check { // the run prefixes check() to what check() did
			le.Msg = "the scenario " + fault.what() + " while loading " + fault.hint()
		}
		return le
	}
	what := "loading the scenario"
	if req.Check {
		what = "running check()"
	}
	return failure.Runf("%s: %s in a child process failed: %s", path, what, crash)
}

func interrupted(ctx context.Context, path string) error {
	return failure.New(failure.Interrupted, fmt.Errorf("%s: interrupted while evaluating the scenario: %w", path, context.Cause(ctx)))
}

// doneLine is what a child that finished writes on its standard output.
const doneLine = "done\n"

// fault is the scenario's fault in a child that died of it: the memory
// limit, where the Go runtime throws "out of memory" (or cannot map pages,
// or create a thread) and exits 2; the CPU limit, where the kernel sends
// SIGKILL once the child has used it; a SIGKILL before that, the kernel's
// OOM killer, which a machine with less free memory than the limit sends
// first; or Go's stack limit, which a value nested a million levels deep
// reaches when it is printed or compared. nil when the child died of
// something else.
func (g Guard) fault(stderr string, st *os.ProcessState, crash string) limitFault {
	if strings.Contains(stderr, "goroutine stack exceeds") {
		return &stackError{}
	}
	for _, s := range []string{"out of memory", "cannot allocate memory", "cannot map pages", "errno=12"} {
		if strings.Contains(stderr, s) {
			return &MemoryLimitError{Limit: g.Memory, Crash: crash}
		}
	}
	ws, ok := st.Sys().(syscall.WaitStatus)
	if !ok || !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
		return nil
	}
	if g.CPU > 0 && st.UserTime()+st.SystemTime() >= g.CPU-time.Second {
		return &CPULimitError{Limit: g.CPU}
	}
	return &MemoryLimitError{Limit: g.Memory, Crash: crash}
}

// crashLine is the line that says how the child died: the Go runtime's
// "fatal error" or "panic" line, else the first line it wrote, else its
// exit status — never the goroutine dump that follows.
func crashLine(stderr string, err error) string {
	lines := strings.Split(strings.TrimSpace(stderr), "\n")
	for _, l := range lines {
		if strings.HasPrefix(l, "fatal error:") || strings.HasPrefix(l, "panic:") {
			return strings.TrimSpace(l)
		}
	}
	if l := strings.TrimSpace(lines[0]); l != "" {
		return l
	}
	if err == nil {
		return "it ended without finishing"
	}
	return err.Error()
}

// headBuffer keeps the first max bytes written to it and drops the rest:
// a dying Go program writes every goroutine's stack after the line that
// says why.
type headBuffer struct {
	bytes.Buffer
	max int
}

func (b *headBuffer) Write(p []byte) (int, error) {
	if room := b.max - b.Len(); room > 0 {
		b.Buffer.Write(p[:min(room, len(p))])
	}
	return len(p), nil
}

var _ io.Writer = (*headBuffer)(nil)
