package main

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
