package builtins

import (
	"strings"
	"testing"
)

// TestMisspeltBuiltinGetsASuggestion: a typo in a keyword argument got
// "did you mean", a typo in a builtin's name only "undefined: experimnt"
// (the interpreter cannot list predeclared names); every one is now
// suggested, a name near nothing is left alone, and the interpreter's own
// suggestions of the file's names stay.
func TestMisspeltBuiltinGetsASuggestion(t *testing.T) {
	src := `
food = 1
def main(ctx):
    s = sweeep(concurrency=[1, 2])
    n = lenn([fod])
    return experimnt("x", sim(), synthetic(10, 10), concurrency(1), requests = 5) + zzzzqq
`
	le := loadErr(t, writeScenario(t, "s.star", src), Options{})
	for _, want := range []string{
		"undefined: sweeep (did you mean sweep?)",
		"undefined: lenn (did you mean len?)",
		"undefined: fod (did you mean food?)",
		"undefined: experimnt (did you mean experiment?)",
		"undefined: zzzzqq\n",
	} {
		if !strings.Contains(le.Msg+"\n", want) {
			t.Errorf("the message lacks %q:\n%s", want, le.Msg)
		}
	}
	if le.Line != 4 || le.Col != 9 {
		t.Errorf("placed at %d:%d, want the first typo at 4:9", le.Line, le.Col)
	}
}
