package views

import (
	"fmt"
	"io"
	"strings"

	"github.com/llmbench/llmbench/metrics"
	"github.com/llmbench/llmbench/reports/genaiperf"
)

// The view names `llmbench report --view` takes, as the tools call
// themselves on the command line.
const (
	GenAIPerf = "genai-perf"
	VLLM      = "vllm"
	GuideLLM  = "guidellm"
	LLMPerf   = "llmperf"
	AIPerf    = "aiperf"
)

// Names lists the views, the default first.
var Names = []string{GenAIPerf, VLLM, GuideLLM, LLMPerf, AIPerf}

// Check returns nil for a known view name, else an error naming the flag,
// what was given and the valid names.
func Check(name string) error {
	for _, n := range Names {
		if n == name {
			return nil
		}
	}
	return fmt.Errorf("--view: unknown view %q; valid views are %s", name, strings.Join(Names, ", "))
}

// WriteConsole prints one point's summary as the named tool prints its
// results: GenAI-Perf's table (genaiperf.WriteConsole, unchanged) or one
// of the others'. r describes how the point was run (its load, streaming,
// endpoint), which the tools print beside their numbers.
func WriteConsole(w io.Writer, name string, r *genaiperf.Run, s *metrics.Summary) error {
	if err := Check(name); err != nil {
		return err
	}
	if name == GenAIPerf {
		return genaiperf.WriteConsole(w, r, s)
	}
	if s.Views == nil {
		_, err := fmt.Fprintf(w, "No request was measured: the %s view is empty.\n", name)
		return err
	}
	var text string
	switch name {
	case VLLM:
		text = vllmText(r, &s.Views.VLLM)
	case GuideLLM:
		text = guideLLMText(r, &s.Views.GuideLLM)
	case LLMPerf:
		text = llmperfText(r, s, &s.Views.LLMPerf)
	case AIPerf:
		text = aiperfText(r, &s.Views.AIPerf)
	}
	_, err := io.WriteString(w, text)
	return err
}
