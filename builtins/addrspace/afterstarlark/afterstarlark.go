// Package afterstarlark gives back the address-space limit package
// addrspace lowered, as soon as go.starlark.net/starlark has initialised:
// importing the interpreter makes this initialiser run after its, and its
// import path, sorting first among the packages then ready, makes it run
// right after. Package builtins imports it, so every program that
// evaluates Starlark gets both halves.
package afterstarlark

import (
	_ "go.starlark.net/starlark" // initialised first: its 4 GiB reservation must have been tried

	"github.com/llmbench/llmbench/builtins/addrspace"
)

func init() { addrspace.Restore() }
