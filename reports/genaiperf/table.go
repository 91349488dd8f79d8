package genaiperf

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// richTable renders a table the way Rich's Table does with its default
// box (HEAVY_HEAD) and padding (one space each side), every column
// right-justified, on a console wide enough for the whole table: a title
// centered over the table width (padded with spaces on both sides), a heavy
// header, and rows whose cells may span several lines.
//
// Unlike Rich it never shrinks columns to a console width: GenAI-Perf's
// tables printed to an 80-column pipe get values truncated to "456…", which
// is never what a reader of a log wants.
type richTable struct {
	title  string
	header []string
	rows   [][]string // each cell may hold several lines separated by "\n"
}

// render returns the table's text, every line ending in "\n".
func (t *richTable) render() string {
	widths := t.columnWidths()
	total := 1
	for _, w := range widths {
		total += w + 3
	}
	var b strings.Builder
	b.WriteString(center(t.title, total) + "\n")
	b.WriteString(rule(widths, "┏", "━", "┳", "┓"))
	t.writeRow(&b, widths, "┃", t.header)
	b.WriteString(rule(widths, "┡", "━", "╇", "┩"))
	for _, row := range t.rows {
		t.writeRow(&b, widths, "│", row)
	}
	b.WriteString(rule(widths, "└", "─", "┴", "┘"))
	return b.String()
}

// columnWidths is each column's widest line, header included.
func (t *richTable) columnWidths() []int {
	widths := make([]int, len(t.header))
	for _, row := range append([][]string{t.header}, t.rows...) {
		for i, cell := range row {
			for _, line := range strings.Split(cell, "\n") {
				widths[i] = max(widths[i], utf8.RuneCountInString(line))
			}
		}
	}
	return widths
}

// writeRow writes one table row, as many lines tall as its tallest cell;
// shorter cells are blank below their text (Rich's top vertical alignment).
func (t *richTable) writeRow(b *strings.Builder, widths []int, bar string, row []string) {
	cells := make([][]string, len(row))
	height := 1
	for i, cell := range row {
		cells[i] = strings.Split(cell, "\n")
		height = max(height, len(cells[i]))
	}
	for line := range height {
		b.WriteString(bar)
		for i, w := range widths {
			text := ""
			if line < len(cells[i]) {
				text = cells[i][line]
			}
			b.WriteString(" " + padLeft(text, w) + " " + bar)
		}
		b.WriteString("\n")
	}
}

// rule draws a horizontal border line.
func rule(widths []int, left, fill, cross, right string) string {
	parts := make([]string, len(widths))
	for i, w := range widths {
		parts[i] = strings.Repeat(fill, w+2)
	}
	return left + strings.Join(parts, cross) + right + "\n"
}

func padLeft(s string, width int) string {
	return strings.Repeat(" ", max(0, width-utf8.RuneCountInString(s))) + s
}

// center centers s in width as Rich justifies a title: the left margin
// gets the smaller half of the slack, and the line is padded to full width.
func center(s string, width int) string {
	slack := max(0, width-utf8.RuneCountInString(s))
	left := slack / 2
	return strings.Repeat(" ", left) + s + strings.Repeat(" ", slack-left)
}

// fill wraps text at width as Python's textwrap.fill does by default
// (greedy, whitespace dropped at line breaks, over-long words broken at the
// width). It does not split at hyphens, which GenAI-Perf's metric names do
// not contain. GenAI-Perf wraps metric names at 36 columns this way.
func fill(text string, width int) string {
	chunks := splitChunks(text)
	var lines []string
	for len(chunks) > 0 {
		if isBlank(chunks[0]) && len(lines) > 0 {
			chunks = chunks[1:]
			continue
		}
		var line []string
		n := 0
		for len(chunks) > 0 && n+runeLen(chunks[0]) <= width {
			n += runeLen(chunks[0])
			line, chunks = append(line, chunks[0]), chunks[1:]
		}
		if left := width - n; len(chunks) > 0 && runeLen(chunks[0]) > width && left > 0 {
			head, tail := splitRunes(chunks[0], left)
			line, chunks[0] = append(line, head), tail
		}
		if len(line) > 0 && isBlank(line[len(line)-1]) {
			line = line[:len(line)-1]
		}
		if len(line) > 0 {
			lines = append(lines, strings.Join(line, ""))
		}
	}
	return strings.Join(lines, "\n")
}

// splitChunks splits text into alternating runs of spaces and non-spaces,
// after turning every whitespace character into a space (textwrap's
// replace_whitespace).
func splitChunks(text string) []string {
	text = strings.Map(func(r rune) rune {
		if unicode.IsSpace(r) {
			return ' '
		}
		return r
	}, text)
	var chunks []string
	for text != "" {
		i := 1
		for i < len(text) && (text[i] == ' ') == (text[0] == ' ') {
			i++
		}
		chunks, text = append(chunks, text[:i]), text[i:]
	}
	return chunks
}

func isBlank(s string) bool { return strings.TrimLeft(s, " ") == "" }

func runeLen(s string) int { return utf8.RuneCountInString(s) }

// splitRunes splits s after n runes.
func splitRunes(s string, n int) (string, string) {
	for i := range s {
		if n == 0 {
			return s[:i], s[i:]
		}
		n--
	}
	return s, ""
}
