package tokenizer

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// benchTokenizers are the committed real tokenizers.
var benchTokenizers = []string{"llama3", "qwen3", "gpt4o", "llama2", "gemma3"}

// englishText builds about n bytes of varied English prose, deterministic,
// from a fixed vocabulary with punctuation, numbers and line breaks.
func englishText(n int) string {
	words := strings.Fields(`the of and to in a is that for it as was with be by on not he I this are or his
		from at which but have an they you were her she there been one all we their has would when if so no
		will more can out who up said what about its into than them only other new some could time these two
		may then do first any my now such like our over man me even most made after also did many before must
		through back years where much your way well down should because each just those people how too little
		state good very make world still own see men work long get here between both life being under never day
		same another know while last might us great old year off come since against go came right used take three
		benchmark latency throughput tokenizer inference server request response streaming measurement`)
	r := rand.New(rand.NewPCG(1, 2))
	var b strings.Builder
	for b.Len() < n {
		sentence := 5 + r.IntN(20)
		for i := 0; i < sentence; i++ {
			w := words[r.IntN(len(words))]
			if i == 0 {
				w = strings.ToUpper(w[:1]) + w[1:]
			}
			b.WriteString(w)
			switch {
			case i == sentence-1:
				b.WriteString(". ")
			case r.IntN(12) == 0:
				b.WriteString(", ")
			case r.IntN(40) == 0:
				fmt.Fprintf(&b, " %d ", r.IntN(100000))
			default:
				b.WriteByte(' ')
			}
		}
		if r.IntN(6) == 0 {
			b.WriteString("\n\n")
		}
	}
	return b.String()
}

// BenchmarkEncode reports tokens/s on one core (run with -cpu 1) for about
// 1 MB of English, for the fixture corpus (many scripts, code, emoji), and
// for adversarial inputs that are a single huge piece.
func BenchmarkEncode(b *testing.B) {
	var mixed []string
	for _, c := range readFixture(b, "llama3").Encode {
		mixed = append(mixed, c.Text)
	}
	inputs := []struct{ name, text string }{
		{"english-1MB", englishText(1 << 20)},
		{"fixture-mix", strings.Join(mixed, "\n")}, // code, scripts, emoji, numbers
		{"spaces-100KB", strings.Repeat(" ", 100_000)},
		{"word-50KB", strings.Repeat("abcdefghij", 5_000)},
	}
	for _, name := range benchTokenizers {
		tk := testTokenizer(b, name)
		for _, in := range inputs {
			b.Run(name+"/"+in.name, func(b *testing.B) {
				b.SetBytes(int64(len(in.text)))
				tokens := 0
				for b.Loop() {
					tk.model.cache = newPieceCache() // each document starts with a cold cache
					tokens += len(tk.Encode(in.text))
				}
				b.ReportMetric(float64(tokens)/b.Elapsed().Seconds(), "tokens/s")
			})
		}
	}
}

// BenchmarkLoad measures reading and indexing each committed tokenizer
// (gzip included).
func BenchmarkLoad(b *testing.B) {
	for _, name := range benchTokenizers {
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				if _, err := Load("testdata/" + name + ".json.gz"); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
