package failure

import (
	"errors"
	"fmt"
	"testing"
)

type positioned struct{}

func (positioned) Error() string       { return "s.star:1:2: bad" }
func (positioned) FailureClass() Class { return Input }

func TestClassOf(t *testing.T) {
	base := errors.New("connection refused")
	for _, c := range []struct {
		name string
		err  error
		want Class
	}{
		{"unclassified", base, Run},
		{"input", Inputf("--out: %w", base), Input},
		{"wrapped twice keeps its class", fmt.Errorf("experiment %q: %w", "e", Inputf("bad gate")), Input},
		{"an error type that knows its class", fmt.Errorf("loading: %w", positioned{}), Input},
		{"the outermost class decides", Runf("writing: %w", Inputf("inner")), Run},
		{"interrupted", New(Interrupted, base), Interrupted},
	} {
		if got := ClassOf(c.err); got != c.want {
			t.Errorf("%s: class %d, want %d", c.name, got, c.want)
		}
	}
	if !errors.Is(Runf("probe: %w", base), base) {
		t.Error("%w chain lost")
	}
	if New(Input, nil) != nil {
		t.Error("New(nil) is not nil")
	}
}
