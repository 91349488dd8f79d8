package verdict

import (
	"encoding/json"
	"encoding/xml"
	"fmt"
	"io"
)

// WriteConsole prints one ✓/✗ line per verdict and a closing count.
func WriteConsole(w io.Writer, vs []Verdict) error {
	if len(vs) == 0 {
		_, err := fmt.Fprintln(w, "Gates: none")
		return err
	}
	fmt.Fprintln(w, "Gates:")
	for _, v := range vs {
		mark := "✓"
		if !v.Passed {
			mark = "✗"
		}
		fmt.Fprintf(w, "  %s %s%s: %s\n", mark, v.Gate, where(v), v.Message)
	}
	_, err := fmt.Fprintf(w, "%d of %d gates passed\n", len(vs)-Failed(vs), len(vs))
	return err
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

// WriteJSON writes gates.json: every verdict and the overall result.
func WriteJSON(w io.Writer, vs []Verdict) error {
	doc := struct {
		Passed   bool      `json:"passed"`
		Total    int       `json:"total"`
		Failed   int       `json:"failed"`
		Verdicts []Verdict `json:"verdicts"`
	}{Failed(vs) == 0, len(vs), Failed(vs), vs}
	if doc.Verdicts == nil {
		doc.Verdicts = []Verdict{}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(doc)
}

type junitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Suites   []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name     string      `xml:"name,attr"`
	Tests    int         `xml:"tests,attr"`
	Failures int         `xml:"failures,attr"`
	Cases    []junitCase `xml:"testcase"`
}

type junitCase struct {
	Name      string        `xml:"name,attr"`
	Classname string        `xml:"classname,attr"`
	Failure   *junitFailure `xml:"failure,omitempty"`
	Output    string        `xml:"system-out,omitempty"`
}

type junitFailure struct {
	Message string `xml:"message,attr"`
	Text    string `xml:",chardata"`
}

// WriteJUnit writes JUnit XML: one testsuite for the scenario, one
// testcase per verdict, the failure message naming measured and limit.
func WriteJUnit(w io.Writer, scenario string, vs []Verdict) error {
	suite := junitSuite{Name: scenario, Tests: len(vs), Failures: Failed(vs)}
	for _, v := range vs {
		c := junitCase{Name: v.Gate + where(v), Classname: scenario + "." + v.Experiment}
		if v.Passed {
			c.Output = v.Message
		} else {
			c.Failure = &junitFailure{Message: v.Message, Text: v.Gate + where(v) + ": " + v.Message}
		}
		suite.Cases = append(suite.Cases, c)
	}
	doc := junitSuites{Tests: suite.Tests, Failures: suite.Failures, Suites: []junitSuite{suite}}
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
