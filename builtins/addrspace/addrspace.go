// Package addrspace keeps go.starlark.net from reserving 4 GiB of address
// space when llmbench starts.
//
// go.starlark.net maps 4 GiB (PROT_READ, never touched) in its package
// initialiser on 64-bit POSIX systems, so that small integers can be
// pointers into that range and converting one to a Value does not
// allocate. The mapping costs no memory, but it counts against an
// address-space limit: under `ulimit -v 6G` llmbench was left with less
// than 2 GiB, and died creating a thread after 25 MB of real use. The
// interpreter falls back to heap-allocated integers when the mapping
// fails; scenarios build plans of a few thousand values, where that costs
// nothing measurable. So this package, initialised before
// go.starlark.net/starlark (Go initialises packages in import-path order
// once their imports are ready, and "github.com/..." sorts before
// "go.starlark.net/..."; every import of this package is one of
// starlark's too), lowers the soft address-space limit just enough that
// the 4 GiB mapping fails, and Restore, called by the first initialiser
// that runs after go.starlark.net/starlark, puts the limit back. The
// address space llmbench takes then grows with what it uses.
//
// Only the soft limit is lowered, and it is restored to exactly what it
// was: a user's `ulimit -v` stays in force.
package addrspace

import (
	"io"
	"log"
	"os"
	"sync"
)

// headroom is what the process may map between this package's
// initialiser and Restore: the initialisers of the packages in between
// allocate kilobytes. It must stay below the 4 GiB the interpreter asks
// for, or the mapping would succeed.
const headroom = 1 << 30

// undo puts back the limit the initialiser lowered; nil when it left the
// limit alone (a user's limit already too low for the mapping).
var undo func()

var once sync.Once

func init() {
	undo = lowerLimit(headroom)
	// The interpreter logs its fallback ("Starlark failed to allocate 4GB
	// address space ... Integer performance may suffer") with the
	// standard logger: a warning about a choice made on purpose, or
	// about the user's own ulimit -v, would only worry users.
	log.SetOutput(io.Discard)
}

// Restore gives back the address-space limit the process started with,
// and the standard logger's output. It is called once
// go.starlark.net/starlark is initialised; calling it again does nothing.
func Restore() {
	once.Do(func() {
		if undo != nil {
			undo()
		}
		log.SetOutput(os.Stderr)
	})
}
