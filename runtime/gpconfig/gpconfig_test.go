package gpconfig

import (
	"errors"
	"os"
	"slices"
	"strings"
	"testing"
)

// flags renders a command's flags as the command line would hold them.
func flags(c *Command) string { return strings.Join(c.Args(nil, nil)[1:], " ") }

// GenAI-Perf's own templates (testdata/make.sh) read as the flags of
// their settings: a profile of GenAI-Perf's defaults, Triton's endpoint
// type and port, the template's defaults left out where a flag would
// change what "not given" means.
func TestReadTemplates(t *testing.T) {
	want := "--model-selection-strategy round_robin --backend tensorrtllm --endpoint-type kserve --url localhost:8001 " +
		"--concurrency 1 --batch-size-text 1 --num-dataset-entries 100 --synthetic-input-tokens-mean 550 " +
		"--prefix-prompt-length 100 --session-turns-mean 1 --session-delay-ratio 1.0 --artifact-dir artifacts " +
		"--profile-export-file profile_export.json --tokenizer-revision main"
	for _, f := range []string{"testdata/genai_perf_config.yaml", "testdata/genai_perf_config.verbose.yaml"} {
		c, err := Read(f)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		if c.Name != "profile" || flags(c) != want {
			t.Errorf("%s: %s %s\nwant profile %s", f, c.Name, flags(c), want)
		}
	}
}

// A configuration's settings, by hand: the load, the measurement, the
// extra inputs and goodput as name:value in the file's order, lists as
// repeated flags, an analyze sweep making the command analyze (with its
// checkpoint flags, which profile ignores), process making it
// process-export-files.
func TestParse(t *testing.T) {
	for _, c := range []struct{ doc, cmd, flags string }{
		{`model_names: [a, b]
endpoint: {type: chat, streaming: true, url: http://h:8000}
perf_analyzer: {stimulus: {request_rate: 2.5}, measurement: {mode: interval}}
input: {extra: {ignore_eos: true, max_tokens: 64}, goodput: {time_to_first_token: 300}, header: ["A:1", "B:2"]}
output: {enable_checkpointing: true}`,
			"profile", "--model a --model b --endpoint-type chat --streaming --url http://h:8000 --request-rate 2.5 --measurement-interval 10000 " +
				"--extra-inputs ignore_eos:true --extra-inputs max_tokens:64 --goodput time_to_first_token:300 --header A:1 --header B:2"},
		{`model_name: m
analyze: {concurrency: {start: 1, stop: 16}}
perf_analyzer: {stimulus: concurrency, stability_percentage: 10, measurement: {mode: request_count, num: 50}}
output: {checkpoint_directory: ck}`,
			"analyze", "--model m --sweep-type concurrency --sweep-range 1:16 --stability-percentage 10 --request-count 50 --checkpoint-dir ck"},
		{`analyze: {request_rate: [1, 2.5, 4]}`, "analyze", "--sweep-type request_rate --sweep-list 1,2.5,4"},
		{`process: {input_path: runs}
output: {artifact_directory: agg}`, "process-export-files", "--input-directory runs --artifact-dir agg"},
		{`input: {image: {width: {mean: 64}, height: {mean: 32}, format: jpeg}, audio: {sample_rates: [8, 16], length: {mean: 2}}}`,
			"profile", "--image-width-mean 64 --image-height-mean 32 --image-format jpeg --audio-sample-rates 8,16 --audio-length-mean 2"},
	} {
		cmd, err := Parse("c.yaml", strings.NewReader(c.doc))
		if err != nil {
			t.Errorf("%s: %v", c.doc, err)
			continue
		}
		if cmd.Name != c.cmd || flags(cmd) != c.flags {
			t.Errorf("%s:\n got %s %s\nwant %s %s", c.doc, cmd.Name, flags(cmd), c.cmd, c.flags)
		}
	}
}

// What GenAI-Perf refuses is refused at its line and column, naming the
// key and what its section takes.
func TestParseRefuses(t *testing.T) {
	for _, c := range []struct{ doc, want string }{
		{"model_names: m\ninput:\n  output_tokens:\n    mean: 3\n    bogus: 1\n", "c.yaml:5:5: unknown key input.output_tokens.bogus (input.output_tokens takes deterministic, mean, stddev)"},
		{"endpointt: {}\n", "c.yaml:1:1: unknown key endpointt (the file takes analyze, endpoint, input, model_name, model_names, output, perf_analyzer, process, tokenizer)"},
		{"perf_analyzer:\n  measurement: {mode: forever}\n", "c.yaml:2:16: perf_analyzer.measurement.mode: want request_count or interval"},
		{"endpoint:\n  streaming: maybe\n", `c.yaml:2:14: endpoint.streaming: want true or false, got "maybe"`},
		{"input: {random_seed: [1]}\n", "c.yaml:1:22: input.random_seed: want a number"},
		{"analyze: {concurrency: {start: 1}}\n", "c.yaml:1:24: analyze.concurrency: want start and stop"},
		{"- a\n- b\n", "c.yaml:1:1: the file: want a mapping"},
		{"a: [\n", "c.yaml: yaml:"},
		{"", "the file is empty"},
	} {
		_, err := Parse("c.yaml", strings.NewReader(c.doc))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want %q", c.doc, err, c.want)
		}
	}
	var perr *Error
	if _, err := Parse("c.yaml", strings.NewReader("x: 1\n")); !errors.As(err, &perr) || perr.Line != 1 {
		t.Errorf("not an *Error with its place: %v", err)
	}
}

// Overrides follow the file's flags and replace the file's setting of a
// flag they give, under its long name.
func TestArgsOverride(t *testing.T) {
	c, err := Parse("c.yaml", strings.NewReader("model_names: [a, b]\nperf_analyzer: {stimulus: {concurrency: 4}}\ninput: {extra: {x: 1}}\n"))
	if err != nil {
		t.Fatal(err)
	}
	long := func(f string) string {
		if f == "-m" {
			return "--model"
		}
		return f
	}
	got := c.Args([]string{"-m", "z", "--concurrency=8"}, long)
	want := []string{"profile", "--extra-inputs", "x:1", "-m", "z", "--concurrency=8"}
	if !slices.Equal(got, want) {
		t.Errorf("%q, want %q", got, want)
	}
}

// create-template writes GenAI-Perf's own template byte for byte.
func TestTemplateIsGenAIPerfs(t *testing.T) {
	b, err := os.ReadFile("testdata/genai_perf_config.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if string(Template) != string(b) {
		t.Error("template.yaml differs from genai-perf create-template's output (testdata/make.sh)")
	}
}

// Extra inputs take GenAI-Perf's coercion in the scenario: true/false are
// booleans, digits ints, one dot between digits a float, the rest strings
// ("-1" stays a string, as GenAI-Perf keeps it).
func TestStarValue(t *testing.T) {
	for in, want := range map[string]string{"true": "True", "False": "False", "64": "64", "0.5": "0.5", "-1": `"-1"`, "1.2.3": `"1.2.3"`, "abc": `"abc"`, ".": `"."`} {
		if got := starValue(in); got != want {
			t.Errorf("%q: %s, want %s", in, got, want)
		}
	}
}

// A configuration's scenario by hand: the Triton endpoint type becomes
// the triton api, a Hub tokenizer id stays written, a rate load is
// perf_analyzer's constant one, an unset output length sends none, a
// custom path (no scenario setting) is listed as not carried over.
func TestScenarioText(t *testing.T) {
	c, err := Parse("c.yaml", strings.NewReader(`model_names: m
endpoint: {type: kserve, url: "h:8001", backend: vllm, custom: /my/path}
perf_analyzer: {stimulus: {request_rate: 4}}
input: {goodput: {request_latency: 900}, num_dataset_entries: 20}
tokenizer: {name: org/tok}
output: {artifact_directory: a}
`))
	if err != nil {
		t.Fatal(err)
	}
	text, dropped, err := c.Scenario("c.yaml")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`api = "triton"`, `tokenizer = "org/tok"`, `traffic = rate(4, arrival = "constant")`,
		`dataset = synthetic(input_tokens = fixed(550), entries = 20)`, `goodput = {"request_latency": "900ms"}`} {
		if !strings.Contains(text, want) {
			t.Errorf("scenario lacks %q:\n%s", want, text)
		}
	}
	if len(dropped) != 1 || dropped[0] != "--endpoint" || !strings.Contains(text, "# Not carried over (no scenario setting; give them to llmbench run where it has the flag): --endpoint") {
		t.Errorf("dropped %v, want only --endpoint, said in the file", dropped)
	}
}
