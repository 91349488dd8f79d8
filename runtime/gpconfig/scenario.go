package gpconfig

import (
	"cmp"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/llmbench/llmbench/metrics"
	"github.com/llmbench/llmbench/runtime/gpflags"
)

// scenarioAPIs maps GenAI-Perf's endpoint types to the scenario's api
// names where they differ: its kserve is KServe v2 over gRPC (llmbench's
// triton), its generate Triton's HTTP generate (llmbench's kserve).
var scenarioAPIs = map[string]string{"kserve": "triton", "generate": "kserve", "huggingface_generate": "tgi",
	"multimodal": "chat", "vision": "chat"} // multimodal: chat with a dataset of pictures or clips

// sweepKeys maps analyze's sweep types to sweep()'s keywords.
var sweepKeys = map[string]string{"concurrency": "concurrency", "request_rate": "rate",
	"input_sequence_length": "input_tokens", "output_sequence_length": "output_tokens"}

// Scenario writes the configuration as the equivalent scenario file
// (`llmbench scenario-from-config`), so a GenAI-Perf user moves to
// scenarios in one step: the endpoint, the prompts (the same synthetic
// generator, seed and entries, or the same input file), the load, the
// measured and warm-up requests, the goodput SLOs and an analyze sweep.
// Header values become env() reads, so no credential is copied into the
// file. Settings a scenario has no place for are listed in the file's
// opening comment and returned, so the user knows what did not carry
// over. source names the configuration in that comment.
func (c *Command) Scenario(source string) (text string, dropped []string, err error) {
	if c.Name == "process-export-files" {
		return "", nil, fmt.Errorf("%s aggregates other runs' files (process.input_path): a scenario measures, so there is nothing to write", source)
	}
	f := flagValues(c.Flags)
	w := &scenarioWriter{f: f}
	endpoint, err := w.endpoint()
	if err != nil {
		return "", nil, err
	}
	experiment, err := w.experiment()
	if err != nil {
		return "", nil, err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "# Written by llmbench scenario-from-config from %s (GenAI-Perf's configuration).\n", source)
	fmt.Fprintf(&b, "# Run it with: llmbench run FILE.star (llmbench check FILE.star shows its plan).\n")
	for _, name := range f.unused() {
		dropped = append(dropped, "--"+name)
	}
	for _, n := range w.notes {
		b.WriteString(n)
	}
	if len(dropped) > 0 {
		fmt.Fprintf(&b, "# Not carried over (no scenario setting; give them to llmbench run where it has the flag): %s\n", strings.Join(dropped, ", "))
	}
	b.WriteString("\n" + endpoint + "\n" + experiment)
	return b.String(), dropped, nil
}

// values are the flags by name, marking those read.
type values struct {
	order []string
	by    map[string][]string
	read  map[string]bool
}

func flagValues(flags []Flag) *values {
	v := &values{by: map[string][]string{}, read: map[string]bool{}}
	for _, f := range flags {
		if _, ok := v.by[f.Name]; !ok {
			v.order = append(v.order, f.Name)
		}
		val := f.Value
		if f.Bool {
			val = "true"
		}
		v.by[f.Name] = append(v.by[f.Name], val)
	}
	return v
}

// get is a flag's last value ("" when not given); all its every value.
func (v *values) get(name string) string {
	v.read[name] = true
	vs := v.by[name]
	if len(vs) == 0 {
		return ""
	}
	return vs[len(vs)-1]
}

func (v *values) all(name string) []string {
	v.read[name] = true
	return v.by[name]
}

// ignore marks flags that mean nothing to a scenario's run (artifact
// names, GenAI-Perf's defaults echoed) as read.
func (v *values) ignore(names ...string) {
	for _, n := range names {
		v.read[n] = true
	}
}

func (v *values) unused() []string {
	var out []string
	for _, n := range v.order {
		if !v.read[n] {
			out = append(out, n)
		}
	}
	return out
}

type scenarioWriter struct {
	f *values
	// notes are comment lines for the file's head: what to set to run it.
	notes []string
}

// endpoint writes `target = endpoint(...)`.
func (w *scenarioWriter) endpoint() (string, error) {
	f := w.f
	models := f.all("model")
	if len(models) == 0 {
		return "", fmt.Errorf("the configuration names no model (model_names)")
	}
	urls := f.all("url")
	if len(urls) == 0 {
		urls = []string{"localhost:8000"}
	}
	typ := cmp.Or(f.get("endpoint-type"), "chat")
	api := typ
	if a, ok := scenarioAPIs[typ]; ok {
		api = a
	}
	var b strings.Builder
	b.WriteString("target = endpoint(\n")
	fmt.Fprintf(&b, "    url = %s,\n", strList(urls))
	fmt.Fprintf(&b, "    model = %s,\n", strList(models))
	fmt.Fprintf(&b, "    api = %q,\n", api)
	fmt.Fprintf(&b, "    stream = %s,\n", pyBool(f.get("streaming") == "true"))
	if extra := f.all("extra-inputs"); len(extra) > 0 {
		var items []string
		for _, e := range extra {
			name, val, _ := strings.Cut(e, ":")
			items = append(items, fmt.Sprintf("%q: %s", name, starValue(val)))
		}
		fmt.Fprintf(&b, "    extra = {%s},\n", strings.Join(items, ", "))
	}
	if headers := f.all("header"); len(headers) > 0 {
		var items []string
		for _, h := range headers {
			name, _, _ := strings.Cut(h, ":")
			name = strings.TrimSpace(name)
			items = append(items, fmt.Sprintf("%q: env(%q, \"\")", name, "LLM_HEADER_"+envName(name)))
		}
		fmt.Fprintf(&b, "    headers = {%s},  # values from the environment: never copied into a file\n", strings.Join(items, ", "))
	}
	if tok := f.get("tokenizer"); tok != "" {
		b.WriteString(pathSetting("tokenizer", "LLM_TOKENIZER", tok))
	}
	if sel := f.get("model-selection-strategy"); sel != "" && sel != "round_robin" {
		fmt.Fprintf(&b, "    model_selection = %q,\n", sel)
	}
	if urls := f.all("server-metrics-url"); len(urls) > 0 {
		fmt.Fprintf(&b, "    server_metrics = %s,\n", strList(urls))
	}
	b.WriteString(")\n")
	f.ignore("backend", "tokenizer-revision", "tokenizer-trust-remote-code", "verbose")
	return b.String(), nil
}

// experiment writes main() returning the experiment.
func (w *scenarioWriter) experiment() (string, error) {
	f := w.f
	dataset, err := w.dataset()
	if err != nil {
		return "", err
	}
	traffic, requests := "concurrency(1)", ""
	switch {
	case f.get("request-rate") != "":
		traffic = fmt.Sprintf("rate(%s, arrival = \"constant\")", f.get("request-rate")) // perf_analyzer's default distribution
	case f.get("concurrency") != "":
		traffic = fmt.Sprintf("concurrency(%s)", f.get("concurrency"))
	}
	var b strings.Builder
	b.WriteString("def main(ctx):\n    return experiment(\n")
	fmt.Fprintf(&b, "        name = %q,\n", experimentName(f.by["model"]))
	b.WriteString("        endpoint = target,\n")
	fmt.Fprintf(&b, "        dataset = %s,\n", dataset)
	fmt.Fprintf(&b, "        traffic = %s,\n", traffic)
	if requests = f.get("request-count"); requests != "" {
		fmt.Fprintf(&b, "        requests = %s,\n", requestsValue(requests))
	}
	if ms := f.get("measurement-interval"); ms != "" && requests == "" {
		fmt.Fprintf(&b, "        duration = \"%sms\",  # perf_analyzer's windows until stable: llmbench profile -p; a scenario measures one window\n", ms)
	}
	if warm := f.get("warmup-request-count"); warm != "" {
		fmt.Fprintf(&b, "        warmup = %s,\n", warm)
	}
	if goodput, err := goodputDict(f.all("goodput")); err != nil {
		return "", err
	} else if goodput != "" {
		fmt.Fprintf(&b, "        goodput = %s,\n", goodput)
	}
	sweep, err := w.sweep()
	if err != nil {
		return "", err
	}
	if sweep != "" {
		fmt.Fprintf(&b, "        sweep = %s,\n        same_prompts = True,  # GenAI-Perf's one seed for every point\n", sweep)
	}
	if seed := f.get("random-seed"); seed != "" {
		fmt.Fprintf(&b, "        seed = %s,\n", seed)
	}
	b.WriteString("    )\n")
	f.ignore("artifact-dir", "profile-export-file", "generate-plots", "checkpoint-dir", "enable-checkpointing", "stability-percentage")
	return b.String(), nil
}

// dataset is the prompts: the input file, or GenAI-Perf's synthetic
// prompts with their lengths, entries, prefixes and seed.
func (w *scenarioWriter) dataset() (string, error) {
	f := w.f
	if file := f.get("input-file"); file != "" {
		if strings.Contains(file, ":") {
			return "", fmt.Errorf("input.file %s: only a plain JSONL file has a scenario equivalent here (jsonl(path)); trace files are trace(path), written by hand", file)
		}
		if isPath(file) {
			w.notes = append(w.notes, fmt.Sprintf("# The prompts come from the environment: LLM_INPUT_FILE=%s llmbench run FILE.star\n", file))
			return `jsonl(env("LLM_INPUT_FILE"))`, nil
		}
		return fmt.Sprintf("jsonl(%q)", file), nil
	}
	args := []string{"input_tokens = " + dist(cmp.Or(f.get("synthetic-input-tokens-mean"), "550"), f.get("synthetic-input-tokens-stddev"))}
	if out := f.get("output-tokens-mean"); out != "" {
		args = append(args, "output_tokens = "+dist(out, f.get("output-tokens-stddev")))
		if f.get("output-tokens-mean-deterministic") == "true" {
			args = append(args, "deterministic_output = True")
		}
	}
	if n := f.get("num-prefix-prompts"); n != "" {
		args = append(args, "prefix_tokens = "+cmp.Or(f.get("prefix-prompt-length"), "100"), "prefixes = "+n)
	}
	f.ignore("prefix-prompt-length")
	if e := f.get("num-dataset-entries"); e != "" && e != "100" {
		args = append(args, "entries = "+e)
	}
	if seed := f.get("random-seed"); seed != "" {
		args = append(args, "seed = "+seed)
	}
	args = append(args, w.mediaArgs()...)
	return "synthetic(" + strings.Join(args, ", ") + ")", nil
}

// sweep is an analyze sweep as sweep(...) with its values, "" for none.
func (w *scenarioWriter) sweep() (string, error) {
	f := w.f
	typ := f.get("sweep-type")
	if typ == "" {
		return "", nil
	}
	key, ok := sweepKeys[typ]
	if !ok {
		return "", fmt.Errorf("analyze.%s: not a sweep type (concurrency, request_rate, input_sequence_length, output_sequence_length)", typ)
	}
	var vals []float64
	var err error
	if list := f.get("sweep-list"); list != "" {
		vals, err = gpflags.ParseSweepList(typ, typ == "request_rate", list)
	} else {
		var r gpflags.SweepRange
		r, err = gpflags.ParseSweepRange(typ, cmp.Or(f.get("sweep-range"), gpflags.DefaultSweepRange))
		vals = r.Values
	}
	if err != nil {
		return "", fmt.Errorf("analyze.%s: %w", typ, err)
	}
	items := make([]string, len(vals))
	for i, v := range vals {
		items[i] = strconv.FormatFloat(v, 'f', -1, 64)
	}
	return fmt.Sprintf("sweep(%s = [%s])", key, strings.Join(items, ", ")), nil
}

// goodputDict writes GenAI-Perf's goodput SLOs as experiment()'s
// goodput, by the catalogue's names: times in ms, throughputs as numbers.
func goodputDict(specs []string) (string, error) {
	if len(specs) == 0 {
		return "", nil
	}
	var items []string
	for _, spec := range specs {
		slo, err := metrics.ParseGoodput(spec)
		if err != nil {
			return "", fmt.Errorf("input.goodput: %w", err)
		}
		m, _ := metrics.Lookup(string(slo.Metric))
		value := strconv.FormatFloat(slo.Value, 'f', -1, 64)
		if m.Unit == "ms" {
			value = strconv.Quote(value + "ms")
		}
		items = append(items, fmt.Sprintf("%q: %s", m.Name, value))
	}
	return "{" + strings.Join(items, ", ") + "}", nil
}

// dist is a length: fixed(mean), or normal(mean, stddev) with a spread.
func dist(mean, stddev string) string {
	if stddev == "" || stddev == "0" {
		return "fixed(" + mean + ")"
	}
	return "normal(" + mean + ", " + stddev + ")"
}

// requestsValue is --request-count as experiment()'s requests.
func requestsValue(s string) string {
	if s == "auto" {
		return `"auto"`
	}
	return s
}

// starValue is an --extra-inputs value as GenAI-Perf coerces it: true and
// false are booleans, digits an int, one dot between digits a float,
// anything else a string.
func starValue(s string) string {
	switch {
	case s == "true" || s == "True":
		return "True"
	case s == "false" || s == "False":
		return "False"
	case s != "" && strings.Trim(s, "0123456789") == "":
		return s
	case strings.Count(s, ".") == 1 && strings.Trim(strings.Replace(s, ".", "", 1), "0123456789") == "" && len(s) > 1:
		return s
	}
	return strconv.Quote(s)
}

func pyBool(b bool) string {
	if b {
		return "True"
	}
	return "False"
}

// strList is one string, or a list of them.
func strList(vs []string) string {
	if len(vs) == 1 {
		return strconv.Quote(vs[0])
	}
	q := make([]string, len(vs))
	for i, v := range vs {
		q[i] = strconv.Quote(v)
	}
	return "[" + strings.Join(q, ", ") + "]"
}

// experimentName names the experiment after the first model, in the
// characters experiment() allows.
func experimentName(models []string) string {
	name := "experiment"
	if len(models) > 0 {
		name = models[0]
	}
	out := []rune{}
	for _, r := range name {
		if r == '-' || r == '_' || r == '.' || ('0' <= r && r <= '9') || ('a' <= r && r <= 'z') || ('A' <= r && r <= 'Z') {
			out = append(out, r)
		} else {
			out = append(out, '_')
		}
	}
	s := strings.TrimLeft(string(out), "-_.")
	return cmp.Or(s, "experiment")
}

// envName is a header's name as an environment variable's: upper case,
// letters and digits, '_' for the rest.
func envName(header string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case 'a' <= r && r <= 'z':
			return r - 'a' + 'A'
		case 'A' <= r && r <= 'Z', '0' <= r && r <= '9':
			return r
		}
		return '_'
	}, header)
}

// pathSetting writes a setting that names a file: a path on this machine
// is read from the environment (a scenario reads files only inside its
// folder, or paths given from outside it), with the path the
// configuration gave in a comment; a Hub model id is written as is.
func pathSetting(param, envVar, value string) string {
	if !isPath(value) {
		return fmt.Sprintf("    %s = %q,\n", param, value)
	}
	return fmt.Sprintf("    %s = env(%q),  # GenAI-Perf's configuration gave %s: run with %s=%s\n", param, envVar, value, envVar, value)
}

// isPath reports a value that names a file or folder rather than a Hub
// model id: it starts with / or . or exists here.
func isPath(v string) bool {
	if strings.HasPrefix(v, "/") || strings.HasPrefix(v, ".") {
		return true
	}
	_, err := os.Stat(v)
	return err == nil
}
