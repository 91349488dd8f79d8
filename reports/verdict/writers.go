package verdict

import (
	"encoding/json"
	"encoding/xml"
	"fmt"
	"io"
	"strconv"

	"github.com/llmbench/llmbench/reports"
)

// Console prints one ✓/✗ line per verdict, what became of check()
// when the scenario defines one, and the closing status.
func Console(r *Report) reports.Reporter {
	return func(w io.Writer) error { return writeConsole(w, r) }
}

func writeConsole(w io.Writer, r *Report) error {
	if r.Partial {
		fmt.Fprintln(w, "PARTIAL: the run was interrupted; the gates below judge only the points measured.")
	}
	if len(r.Verdicts) == 0 {
		fmt.Fprintln(w, "Gates: none")
	} else {
		fmt.Fprintln(w, "Gates:")
	}
	for _, v := range r.Verdicts {
		fmt.Fprintf(w, "  %s %s%s: %s\n", markOf(v), v.Gate, where(v), v.Message)
		if v.Warning != "" {
			fmt.Fprintf(w, "      warning: %s\n", v.Warning)
		}
	}
	if r.Check != CheckNotDefined && r.Check != "" {
		fmt.Fprintf(w, "check(): %s\n", r.Check)
	}
	if len(r.Verdicts) == 0 {
		return nil
	}
	skipped := ""
	if n := Skipped(r.Verdicts); n > 0 {
		skipped = fmt.Sprintf(", %d skipped (no baseline)", n)
	}
	_, err := fmt.Fprintf(w, "%d of %s passed%s%s\n", len(r.Verdicts)-r.Failed()-Skipped(r.Verdicts), Plural(len(r.Verdicts), "gate"), skipped, partialNote(r))
	return err
}

// mark is what a verdict came to, as every writer marks it.
type mark int

const (
	// markPassed: the gate held.
	markPassed mark = iota
	// markFailed: the gate failed or could not be measured.
	markFailed
	// markDoubted: it passed, but inconclusively (Warning says why).
	markDoubted
	// markSkipped: a baseline gate with no baseline, counted as passed.
	markSkipped
)

// markOf is what v came to.
func markOf(v Verdict) mark {
	switch {
	case !v.Passed:
		return markFailed
	case v.Skipped != "":
		return markSkipped
	case v.Warning != "":
		return markDoubted
	}
	return markPassed
}

// String is the mark on the console: ✓, ✗, ? or -.
func (m mark) String() string { return [...]string{"✓", "✗", "?", "-"}[m] }

// icon is the mark in Markdown, where an emoji reads at a glance.
func (m mark) icon() string { return [...]string{"✅", "❌", "⚠️", "⏭️"}[m] }

func partialNote(r *Report) string {
	if r.Partial {
		return " (partial)"
	}
	return ""
}

func where(v Verdict) string {
	switch {
	case v.Experiment == "":
		return ""
	case v.Point == "":
		return " [" + v.Experiment + "]"
	}
	return " [" + v.Experiment + "/" + v.Point + "]"
}

// JSON writes gates.json: every verdict and the overall result, with
// partial and check() stated, and gates written as the scenario wrote
// them (no HTML escaping of "<").
func JSON(r *Report) reports.Reporter {
	doc := struct {
		Passed   bool       `json:"passed"`
		Partial  bool       `json:"partial"`
		Check    CheckState `json:"check"`
		Total    int        `json:"total"`
		Failed   int        `json:"failed"`
		Verdicts []Verdict  `json:"verdicts"`
	}{r.Failed() == 0, r.Partial, checkState(r), len(r.Verdicts), r.Failed(), r.Verdicts}
	if doc.Verdicts == nil {
		doc.Verdicts = []Verdict{}
	}
	return func(w io.Writer) error {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false)
		return enc.Encode(doc)
	}
}

func checkState(r *Report) CheckState {
	if r.Check == "" {
		return CheckNotDefined
	}
	return r.Check
}

type junitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Time     string       `xml:"time,attr"`
	Suites   []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name       string          `xml:"name,attr"`
	Tests      int             `xml:"tests,attr"`
	Failures   int             `xml:"failures,attr"`
	Time       string          `xml:"time,attr"`
	Properties []junitProperty `xml:"properties>property,omitempty"`
	Cases      []junitCase     `xml:"testcase"`
}

type junitProperty struct {
	Name  string `xml:"name,attr"`
	Value string `xml:"value,attr"`
}

type junitCase struct {
	Name      string        `xml:"name,attr"`
	Classname string        `xml:"classname,attr"`
	Time      string        `xml:"time,attr"`
	Failure   *junitFailure `xml:"failure,omitempty"`
	Output    string        `xml:"system-out,omitempty"`
}

type junitFailure struct {
	Message string `xml:"message,attr"`
	Text    string `xml:",chardata"`
}

// JUnit writes JUnit XML: one testsuite for the scenario, one testcase
// per verdict (classname scenario.experiment, or scenario.check for
// check()), its time the seconds its point ran, the failure message
// naming measured and limit. A partial run says so in a suite property.
func JUnit(r *Report) reports.Reporter {
	suite := junitSuite{Name: r.Scenario, Tests: len(r.Verdicts), Failures: r.Failed()}
	var total float64
	for _, v := range r.Verdicts {
		class := r.Scenario + "." + v.Experiment
		if v.Experiment == "" {
			class = r.Scenario + ".check"
		}
		c := junitCase{Name: v.Gate + where(v), Classname: class, Time: seconds(v.Seconds)}
		if v.Passed {
			c.Output = v.Message
		} else {
			c.Failure = &junitFailure{Message: v.Message, Text: v.Gate + where(v) + ": " + v.Message}
		}
		total += v.Seconds
		suite.Cases = append(suite.Cases, c)
	}
	suite.Time = seconds(total)
	suite.Properties = []junitProperty{{"partial", strconv.FormatBool(r.Partial)}, {"check", string(checkState(r))}}
	doc := junitSuites{Tests: suite.Tests, Failures: suite.Failures, Time: suite.Time, Suites: []junitSuite{suite}}
	return func(w io.Writer) error {
		if _, err := io.WriteString(w, xml.Header); err != nil {
			return err
		}
		enc := xml.NewEncoder(w)
		enc.Indent("", "  ")
		if err := enc.Encode(doc); err != nil {
			return err
		}
		_, err := io.WriteString(w, "\n")
		return err
	}
}

// seconds formats a JUnit time attribute: seconds with millisecond digits.
func seconds(s float64) string { return strconv.FormatFloat(s, 'f', 3, 64) }
