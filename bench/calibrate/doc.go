package main

import (
	"bytes"
	"fmt"
	"os"
)

// docSection names the tables' place in a document: -doc-section, else
// calibrate:sim or calibrate:real.
func docSection(c config) string {
	switch {
	case c.docSection != "":
		return c.docSection
	case c.isSim():
		return "calibrate:sim"
	}
	return "calibrate:real"
}

// replaceInDoc puts md between the lines "<!-- NAME -->" and
// "<!-- /NAME -->" of the file at path, so the document quotes exactly
// what the bench wrote and is regenerated, never retyped. Both markers
// must be there, once each, in that order.
func replaceInDoc(path, name, md string) error {
	doc, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	open, end := []byte("<!-- "+name+" -->\n"), []byte("<!-- /"+name+" -->\n")
	i, j := bytes.Index(doc, open), bytes.Index(doc, end)
	if i < 0 || j < i || bytes.Count(doc, open) != 1 || bytes.Count(doc, end) != 1 {
		return fmt.Errorf("-doc %s: want one line %q and, after it, one line %q", path, bytes.TrimSpace(open), bytes.TrimSpace(end))
	}
	var out bytes.Buffer
	out.Write(doc[:i+len(open)])
	out.WriteString(md)
	out.Write(doc[j:])
	return os.WriteFile(path, out.Bytes(), 0o644)
}
