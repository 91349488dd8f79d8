package builtins

import (
	"fmt"
	"slices"

	"go.starlark.net/starlark"
	"go.starlark.net/syntax"
)

// object is what every value the builtins hand to a script shares: a type
// name, a description that reads like the call that made it (what str()
// and print() show), and read-only attributes (endpoint.model,
// experiment.requests). Objects are immutable once made — their attributes
// are frozen on construction — so they are safe to share between modules
// and experiments, and hashable: a script may use them as dict keys or in
// sets.
type object struct {
	typ, desc string
	attrs     starlark.StringDict
	// byValue makes two objects with the same description equal
	// (fixed(100) == fixed(100)); otherwise an object equals only itself,
	// as for endpoints, whose descriptions hide header values.
	byValue bool
}

func newObject(typ, desc string, attrs starlark.StringDict, byValue bool) object {
	for _, v := range attrs {
		v.Freeze()
	}
	return object{typ: typ, desc: desc, attrs: attrs, byValue: byValue}
}

func (o *object) Type() string          { return o.typ }
func (o *object) String() string        { return o.desc }
func (o *object) Freeze()               {}
func (o *object) Truth() starlark.Bool  { return starlark.True }
func (o *object) Hash() (uint32, error) { return starlark.String(o.typ + o.desc).Hash() }
func (o *object) base() *object         { return o }

// Attr returns nil for an unknown name, which the interpreter reports as
// "<type> has no .name field or method" with a spelling suggestion drawn
// from AttrNames.
func (o *object) Attr(name string) (starlark.Value, error) { return o.attrs[name], nil }

func (o *object) AttrNames() []string {
	names := make([]string, 0, len(o.attrs))
	for k := range o.attrs {
		names = append(names, k)
	}
	slices.Sort(names)
	return names
}

// CompareSameType implements == and != only: plan values have no order.
func (o *object) CompareSameType(op syntax.Token, y starlark.Value, _ int) (bool, error) {
	other, ok := y.(interface{ base() *object })
	if !ok {
		return false, fmt.Errorf("%s %s %s not implemented", o.typ, op, y.Type())
	}
	eq := o == other.base() || (o.byValue && o.desc == other.base().desc)
	switch op {
	case syntax.EQL:
		return eq, nil
	case syntax.NEQ:
		return !eq, nil
	}
	return false, fmt.Errorf("%s %s %s not implemented", o.typ, op, o.typ)
}

// noneOr returns v, or None for a zero value, for optional attributes.
func noneOr[T comparable](v T, conv func(T) starlark.Value) starlark.Value {
	var zero T
	if v == zero {
		return starlark.None
	}
	return conv(v)
}

func str(s string) starlark.Value { return starlark.String(s) }

func float(f float64) starlark.Value { return starlark.Float(f) }

func integer(i int) starlark.Value { return starlark.MakeInt(i) }

// strList is a frozen list of strings, for attributes.
func strList(ss []string) *starlark.List {
	vals := make([]starlark.Value, len(ss))
	for i, s := range ss {
		vals[i] = starlark.String(s)
	}
	l := starlark.NewList(vals)
	l.Freeze()
	return l
}
