package genaiperf

import "math"

// none is how GenAI-Perf writes a Python None in input_config
// (base_config.py::_get_legal_json_value turns it into "").
const none = ""

// inputConfig builds the "input_config" block in the exact shape of
// GenAI-Perf's ConfigCommand, because `genai-perf process-export-files`
// and other readers parse its sections back. Fields llmbench has no
// counterpart for keep GenAI-Perf's defaults; headers are always written
// as none so secrets never reach the artifact.
func inputConfig(r *Run) *object {
	models := []any{}
	for _, m := range r.Models {
		models = append(models, m)
	}
	sweep := sweepConfig(r.Sweep)
	return (&object{}).
		set("model_names", r.echoedOr("model_names", models)).
		set("subcommand", orDefault(r.Subcommand, "profile")).
		set("verbose", false).
		set("template_filename", "genai_perf_config.yaml").
		set("analyze", r.echoedOr("analyze", (&object{}).set("sweep_parameters", sweep))).
		set("endpoint", r.echoedOr("endpoint", endpointConfig(r))).
		set("perf_analyzer", r.echoedOr("perf_analyzer", perfAnalyzerConfig(r))).
		set("input", r.echoedOr("input", inputSection(r))).
		set("output", (&object{}).
			set("artifact_directory", r.ArtifactDir).
			set("checkpoint_directory", orDefault(r.CheckpointDir, "checkpoint")).
			set("profile_export_file", r.ProfileExportFile).
			set("generate_plots", false).
			set("enable_checkpointing", r.EnableCheckpointing)).
		set("tokenizer", r.echoedOr("tokenizer", ((&object{}).
			set("name", r.tokenizerName()).
			set("revision", orDefault(r.TokenizerRevision, "main")).
			set("trust_remote_code", r.TokenizerTrustRemoteCode).
			set("_enable_debug_logging", true)))).
		set("process", (&object{}).set("input_path", r.processInputPath()))
}

// processInputPath is process.input_path: the folder process-export-files
// read, GenAI-Perf's "aggregated" placeholder for any other run.
func (r *Run) processInputPath() string {
	if r.aggregate != nil {
		return r.aggregate.InputPath
	}
	return "aggregated"
}

// sweepConfig renders analyze.sweep_parameters: {"concurrency": {"min":
// 1, "max": 1024}} (GenAI-Perf's default, also what profile echoes) or
// {"request_rate": [1, 2.5]} for a list.
func sweepConfig(s *Sweep) *object {
	if s == nil {
		s = &Sweep{Type: "concurrency", Min: 1, Max: 1024}
	}
	if s.List == nil {
		return (&object{}).set(s.Type, (&object{}).set("min", s.Min).set("max", s.Max))
	}
	values := make([]any, len(s.List))
	for i, v := range s.List {
		values[i] = v
		if v == math.Trunc(v) && math.Abs(v) < 1<<53 {
			values[i] = int(v) // GenAI-Perf parses --sweep-list as ints
		}
	}
	return (&object{}).set(s.Type, values)
}

func endpointConfig(r *Run) *object {
	urls := []any{}
	for _, u := range r.ServerMetricsURLs {
		urls = append(urls, u)
	}
	return (&object{}).
		set("model_selection_strategy", orDefault(r.ModelSelection, "round_robin")).
		set("backend", orDefault(r.Backend, "tensorrtllm")).
		set("custom", r.endpointPath()).
		set("type", r.EndpointType).
		set("streaming", r.Streaming).
		set("server_metrics_urls", urls).
		set("url", r.URL).
		set("grpc_method", none).
		set("service_kind", r.serviceKind()).
		set("output_format", outputFormat(r.EndpointType))
}

// outputFormat is the lower-cased OutputFormat enum name of the endpoint
// type (endpoint_config.py's endpoint_type_map).
func outputFormat(endpointType string) string {
	switch endpointType {
	case "completions":
		return "openai_completions"
	case "embeddings", "rankings":
		return "openai_" + endpointType
	case "multimodal", "vision":
		return "openai_multimodal"
	case "image_retrieval":
		return "image_retrieval"
	}
	return "openai_chat_completions"
}

func perfAnalyzerConfig(r *Run) *object {
	stimulus := &object{}
	switch {
	case r.Stimulus.FixedSchedule:
		stimulus.set("fixed_schedule", true)
	case r.Stimulus.SessionConcurrency > 0:
		stimulus.set("session_concurrency", r.Stimulus.SessionConcurrency)
	case r.Stimulus.SessionRate > 0:
		stimulus.set("session_rate", r.Stimulus.SessionRate)
	case r.Stimulus.Users > 0:
		stimulus.set("users", r.Stimulus.Users).set("users_qps", r.Stimulus.UserRate)
	case r.Stimulus.Mode() == "request_rate":
		stimulus.set("request_rate", r.Stimulus.RequestRate)
	default:
		stimulus.set("concurrency", r.Stimulus.concurrency())
	}
	measurement := (&object{}).set("mode", "request_count").set("num", intOrNone(r.RequestCount))
	if r.MeasurementInterval > 0 {
		measurement = (&object{}).set("mode", "interval").set("num", r.MeasurementInterval)
	}
	return (&object{}).
		set("path", "perf_analyzer").
		set("verbose", false).
		set("stimulus", stimulus).
		set("stability_percentage", 999).
		set("measurement", measurement).
		set("warmup_request_count", r.WarmupRequestCount)
}

func inputSection(r *Run) *object {
	return (&object{}).
		set("batch_size", 1).
		set("extra", extraInputs(r.ExtraInputs)).
		set("goodput", goodputConfig(r.Goodput)).
		set("header", none).
		set("file", r.InputFile).
		set("num_dataset_entries", r.NumDatasetEntries).
		set("random_seed", r.RandomSeed).
		set("audio", audioConfig(r.Media)).
		set("image", imageConfig(r.Media)).
		set("output_tokens", (&object{}).
			set("mean", intOrNone(r.OutputTokens.Mean)).
			set("deterministic", r.OutputTokens.Deterministic).
			set("stddev", r.OutputTokens.Stddev)).
		set("synthetic_tokens", meanStddev(r.SyntheticTokens.Mean, r.SyntheticTokens.Stddev)).
		set("prefix_prompt", (&object{}).set("num", r.PrefixPrompts).set("length", r.PrefixPromptLength)).
		set("sessions", sessionConfig(r.Sessions)).
		set("prompt_source", promptSource(r)).
		set("synthetic_files", []any{}).
		set("payload_file", none)
}

// extraInputs renders --extra-inputs as a dict, none when there are none.
// A value that is not valid JSON is written as a string, so a bad extra
// never loses the artifact.
func extraInputs(fields []Field) any {
	if len(fields) == 0 {
		return none
	}
	o := &object{}
	for _, f := range fields {
		v, err := parseOrdered(f.Value)
		if err != nil {
			v = string(f.Value)
		}
		o.set(f.Name, v)
	}
	return o
}

// goodputConfig renders --goodput as a dict of floats, none when unset.
func goodputConfig(slos []Goodput) any {
	if len(slos) == 0 {
		return none
	}
	o := &object{}
	for _, g := range slos {
		o.set(g.Name, g.Value)
	}
	return o
}

func promptSource(r *Run) string {
	if r.InputFile != "" {
		return "file"
	}
	return "synthetic"
}

func meanStddev(mean, stddev int) *object {
	return (&object{}).set("mean", mean).set("stddev", stddev)
}

// sessionConfig writes the --session-* flags, GenAI-Perf's defaults
// (one turn, no delay, ratio 1.0) where the run set none.
func sessionConfig(c SessionConfig) *object {
	turns, ratio := max(c.TurnsMean, 1), c.DelayRatio
	if ratio == 0 {
		ratio = 1.0
	}
	return (&object{}).
		set("num", c.Num).
		set("turns", meanStddev(turns, c.TurnsStddev)).
		set("turn_delay", (&object{}).set("mean", c.TurnDelayMean).set("ratio", ratio).set("stddev", c.TurnDelayStd))
}

// intOrNone writes 0 (GenAI-Perf's "not given") as none.
func intOrNone(n int) any {
	if n == 0 {
		return none
	}
	return n
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
