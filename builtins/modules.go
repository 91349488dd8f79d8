package builtins

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strings"

	"go.starlark.net/starlark"

	"github.com/llmbench/llmbench/stdlib"
)

// stdlibPrefix names the embedded standard library in load() statements.
const stdlibPrefix = "@llmbench//"

// session is one scenario load: where its files may come from, what the
// command line gave it, and the modules executed so far. load() statements
// and path-taking builtins reach it through the thread (sessionOf).
type session struct {
	opts  Options
	files *folder
	// scenario is the scenario's path as given and key its module key: it
	// is shown exactly as the user typed it.
	scenario, key string
	// vars are the -D values, exposed as ctx.vars.
	vars map[string]string
	// predeclared is what every module sees: the builtins of SPEC §6.
	predeclared starlark.StringDict
	// modules caches every loaded module by key ("lib/x.star",
	// "@llmbench//presets.star"), so a file loaded twice runs once and
	// its values are shared.
	modules map[string]*module
	// loading is the chain of modules being executed, outermost first: its
	// top is the module whose load() statement is running, and a key
	// already on it is a cycle.
	loading []string
	// sources are the modules' texts by display name, to find a gate's
	// string literal when it does not parse.
	sources map[string][]byte
}

// module is a loaded file's frozen globals, or why it failed (remembered
// so a second load of a broken file reports the same error).
type module struct {
	globals starlark.StringDict
	err     error
}

// load implements load(): "@llmbench//name.star" from the embedded
// standard library, anything else as a file relative to the loading
// file's folder and confined to the scenario's folder.
func (s *session) load(thread *starlark.Thread, name string) (starlark.StringDict, error) {
	key, err := s.moduleKey(name)
	if err != nil {
		return nil, err
	}
	if i := indexOf(s.loading, key); i >= 0 {
		chain := append(append([]string{}, s.loading[i:]...), key)
		return nil, fmt.Errorf("load cycle: %s", strings.Join(s.displayAll(chain), " → "))
	}
	if m, ok := s.modules[key]; ok {
		return m.globals, m.err
	}
	src, err := s.readModule(key)
	if err != nil {
		return nil, err
	}
	globals, err := s.exec(thread, key, src)
	s.modules[key] = &module{globals: globals, err: err}
	return globals, err
}

// exec runs one module on the loading thread, so step limit and
// cancellation cover the whole load graph and a fault deep in a loaded
// file carries the chain of load statements in its backtrace.
func (s *session) exec(thread *starlark.Thread, key string, src []byte) (starlark.StringDict, error) {
	s.loading = append(s.loading, key)
	defer func() { s.loading = s.loading[:len(s.loading)-1] }()
	s.sources[s.display(key)] = src
	globals, err := starlark.ExecFileOptions(fileOptions, thread, s.display(key), src, s.predeclared)
	if err != nil {
		return nil, err
	}
	globals.Freeze()
	return globals, nil
}

// moduleKey resolves a load() name against the loading module.
func (s *session) moduleKey(name string) (string, error) {
	if rest, ok := strings.CutPrefix(name, stdlibPrefix); ok {
		return stdlibKey(rest, name)
	}
	if strings.HasPrefix(name, "@") {
		return "", fmt.Errorf("unknown repository in %q: only %s is built in", name, stdlibPrefix)
	}
	from := ""
	if len(s.loading) > 0 {
		from = s.loading[len(s.loading)-1]
	}
	if rest, ok := strings.CutPrefix(from, stdlibPrefix); ok {
		return stdlibKey(path.Join(path.Dir(rest), name), name)
	}
	return s.files.key(path.Dir(from), name)
}

func stdlibKey(rel, name string) (string, error) {
	if !fs.ValidPath(rel) {
		return "", fmt.Errorf("%q is not a module of the standard library", name)
	}
	return stdlibPrefix + rel, nil
}

func (s *session) readModule(key string) ([]byte, error) {
	rest, ok := strings.CutPrefix(key, stdlibPrefix)
	if !ok {
		return s.files.read(key)
	}
	src, err := fs.ReadFile(stdlib.FS(), rest)
	if errors.Is(err, fs.ErrNotExist) {
		names, _ := fs.Glob(stdlib.FS(), "*.star")
		return nil, fmt.Errorf("no module %s in the standard library; it has %s",
			key, strings.Join(names, ", "))
	}
	return src, err
}

// display is how a module is named in positions and messages: the
// standard library by its load name, files by their path as the user
// would type it from where they ran llmbench.
func (s *session) display(key string) string {
	if key == s.key {
		return s.scenario
	}
	if strings.HasPrefix(key, stdlibPrefix) {
		return key
	}
	return s.files.display(key)
}

func (s *session) displayAll(keys []string) []string {
	out := make([]string, len(keys))
	for i, k := range keys {
		out[i] = s.display(k)
	}
	return out
}

func indexOf(list []string, s string) int { return slices.Index(list, s) }
