package genaiperf

// The table renderer and Python number formats, shared with the other
// tools' views (reports/views), whose consoles are Rich tables and Python
// prints too.

// RenderTable renders a Rich table (HEAVY_HEAD box, every column
// right-justified, title centered) the way WriteConsole's table is
// rendered; a cell may hold several lines separated by "\n".
func RenderTable(title string, header []string, rows [][]string) string {
	t := richTable{title: title, header: header, rows: rows}
	return t.render()
}

// PyRepr formats f as Python's repr (and str) of a float: shortest digits
// that round-trip, "1.0" for integral values, exponents from 1e16 and
// below 1e-4.
func PyRepr(f float64) string { return pyRepr(f) }

// PyComma2 formats f as Python's f"{f:,.2f}".
func PyComma2(f float64) string { return pyComma2(f) }
