package gpconfig

import (
	"cmp"
	"strings"

	yaml "go.yaml.in/yaml/v3"
)

// topLevel is the file's sections (config_command.py, _parse_yaml).
var topLevel = section{
	"model_name":    list("model"),
	"model_names":   list("model"),
	"analyze":       readAnalyze,
	"endpoint":      sub(endpointKeys),
	"perf_analyzer": sub(perfAnalyzerKeys),
	"input":         sub(inputKeys),
	"output":        sub(outputKeys),
	"tokenizer":     sub(tokenizerKeys),
	"process":       sub(processKeys),
}

var endpointKeys = section{
	"model_selection_strategy": scalar("model-selection-strategy"),
	"backend":                  scalar("backend"),
	"custom":                   scalar("endpoint"),
	"type":                     scalar("endpoint-type"),
	"streaming":                boolean("streaming"),
	"server_metrics_url":       metricsURLs,
	"server_metrics_urls":      metricsURLs,
	"url":                      list("url"),
	"grpc_method":              scalar("grpc-method"),
}

var perfAnalyzerKeys = section{
	"path":                 ignored,
	"verbose":              boolean("verbose"),
	"stimulus":             readStimulus,
	"stability_percentage": readStability,
	"measurement_interval": number("measurement-interval"),
	"warmup_request_count": number("warmup-request-count"),
	"measurement":          readMeasurement,
}

var inputKeys = section{
	"batch_size":          number("batch-size-text"),
	"extra":               pairs("extra-inputs"),
	"goodput":             pairs("goodput"),
	"header":              list("header"),
	"file":                scalar("input-file"),
	"num_dataset_entries": scalar("num-dataset-entries"),
	"random_seed":         number("random-seed"),
	"audio": sub(section{
		"batch_size":   defaultOne("batch-size-audio"),
		"format":       nonDefault("audio-format", "wav"),
		"depths":       nonDefaultList("audio-depths", "16"),
		"sample_rates": nonDefaultList("audio-sample-rates", "16"),
		"num_channels": defaultOne("audio-num-channels"),
		"length":       sub(section{"mean": number("audio-length-mean"), "stddev": number("audio-length-stddev")}),
	}),
	"image": sub(section{
		"batch_size": defaultOne("batch-size-image"),
		"format":     nonDefault("image-format", "png"),
		"width":      sub(section{"mean": number("image-width-mean"), "stddev": number("image-width-stddev")}),
		"height":     sub(section{"mean": number("image-height-mean"), "stddev": number("image-height-stddev")}),
	}),
	"output_tokens": sub(section{
		"mean":          number("output-tokens-mean"),
		"deterministic": boolean("output-tokens-mean-deterministic"),
		"stddev":        number("output-tokens-stddev"),
	}),
	"synthetic_tokens": sub(section{
		"mean":   scalar("synthetic-input-tokens-mean"),
		"stddev": number("synthetic-input-tokens-stddev"),
	}),
	"prefix_prompt": sub(section{
		"num":    number("num-prefix-prompts"),
		"length": scalar("prefix-prompt-length"),
	}),
	"sessions": sub(section{
		"num": number("num-sessions"),
		"turns": sub(section{
			"mean":   scalar("session-turns-mean"),
			"stddev": number("session-turns-stddev"),
		}),
		"turn_delay": sub(section{
			"mean":   number("session-turn-delay-mean"),
			"ratio":  scalar("session-delay-ratio"),
			"stddev": number("session-turn-delay-stddev"),
		}),
	}),
}

var outputKeys = section{
	"artifact_directory":   scalar("artifact-dir"),
	"checkpoint_directory": scalar("checkpoint-dir"),
	"profile_export_file":  scalar("profile-export-file"),
	"generate_plots":       boolean("generate-plots"),
	"enable_checkpointing": boolean("enable-checkpointing"),
}

var tokenizerKeys = section{
	"name":              scalar("tokenizer"),
	"revision":          scalar("tokenizer-revision"),
	"trust_remote_code": boolean("tokenizer-trust-remote-code"),
}

var processKeys = section{
	"input_path": func(p *parser, key string, v *yaml.Node) error {
		if isNull(v) {
			return nil
		}
		p.cmd.Name = "process-export-files"
		return scalar("input-directory")(p, key, v)
	},
}

// readAnalyze reads analyze's sweep: {TYPE: {start, stop[, step]}} or
// {TYPE: [values]}; setting one makes the command analyze.
func readAnalyze(p *parser, key string, v *yaml.Node) error {
	if isNull(v) {
		return nil
	}
	if v.Kind != yaml.MappingNode || len(v.Content) != 2 {
		return p.errorf(v, "%s: want one sweep, e.g. concurrency: {start: 1, stop: 64}", key)
	}
	typ, spec := v.Content[0], v.Content[1]
	p.cmd.Name = "analyze"
	p.add("sweep-type", typ.Value)
	if spec.Kind == yaml.SequenceNode {
		return commaList("sweep-list")(p, key+"."+typ.Value, spec)
	}
	var start, stop, step string
	err := p.walk(spec, key+"."+typ.Value, section{
		"start": capture(&start), "stop": capture(&stop), "step": capture(&step),
	})
	if err != nil {
		return err
	}
	if start == "" || stop == "" {
		return p.errorf(spec, "%s.%s: want start and stop (and step for a linear sweep)", key, typ.Value)
	}
	rng := start + ":" + stop
	if step != "" {
		rng += ":" + step
	}
	p.add("sweep-range", rng)
	return nil
}

// readStimulus reads perf_analyzer.stimulus: {concurrency: N},
// {request_rate: R}, {session_concurrency: N} or fixed_schedule.
func readStimulus(p *parser, key string, v *yaml.Node) error {
	if isNull(v) {
		return nil
	}
	if v.Kind == yaml.ScalarNode { // a bare name keeps the load's default value
		if v.Value == "fixed_schedule" {
			p.cmd.Flags = append(p.cmd.Flags, Flag{Name: "fixed-schedule", Bool: true})
		}
		return nil
	}
	return p.walk(v, key, section{
		"concurrency":         scalar("concurrency"),
		"request_rate":        scalar("request-rate"),
		"session_concurrency": scalar("session-concurrency"),
		"fixed_schedule":      boolean("fixed-schedule"),
	})
}

// readStability reads stability_percentage; GenAI-Perf's 999 means no
// stability criterion and is left out.
func readStability(p *parser, key string, v *yaml.Node) error {
	if isNull(v) || v.Value == "999" {
		return nil
	}
	return scalar("stability-percentage")(p, key, v)
}

// readMeasurement reads perf_analyzer.measurement {mode, num}:
// request_count N is --request-count N, interval N --measurement-interval N
// (10000 ms when num is unset, GenAI-Perf's default).
func readMeasurement(p *parser, key string, v *yaml.Node) error {
	mode, num := "request_count", ""
	if err := p.walk(v, key, section{"mode": capture(&mode), "num": capture(&num)}); err != nil {
		return err
	}
	switch strings.ToLower(mode) {
	case "request_count":
		if num != "" {
			p.add("request-count", num)
		}
	case "interval":
		p.add("measurement-interval", cmp.Or(num, "10000"))
	default:
		return p.errorf(v, "%s.mode: want request_count or interval, got %q", key, mode)
	}
	return nil
}

// capture keeps a scalar's text for the reader that owns the section.
func capture(dst *string) reader {
	return func(p *parser, key string, v *yaml.Node) error {
		if isNull(v) {
			return nil
		}
		if v.Kind != yaml.ScalarNode {
			return p.errorf(v, "%s: want a single value", key)
		}
		*dst = v.Value
		return nil
	}
}

// nonDefault is scalar, leaving out the template's default so a file
// that never touches a section adds no flag for it.
func nonDefault(flag, def string) reader {
	return func(p *parser, key string, v *yaml.Node) error {
		if strings.EqualFold(v.Value, def) {
			return nil
		}
		return scalar(flag)(p, key, v)
	}
}

// nonDefaultList is commaList, leaving out the template's default.
func nonDefaultList(flag, def string) reader {
	return func(p *parser, key string, v *yaml.Node) error {
		if v.Kind == yaml.ScalarNode && v.Value == def {
			return nil
		}
		return commaList(flag)(p, key, v)
	}
}

// defaultOne is number, leaving out 1, the batch sizes' and channels'
// default.
func defaultOne(flag string) reader { return nonDefault(flag, "1") }

// analyzeOnlyFlags are output keys only analyze has flags for: GenAI-Perf
// ignores them elsewhere, and so does a profile configuration.
var analyzeOnlyFlags = []string{"checkpoint-dir", "enable-checkpointing"}

// metricsURLs reads endpoint.server_metrics_urls, leaving out the
// template's value, GenAI-Perf's default (DEFAULT_DCGM_METRICS_URL), so
// the run does what profile does without --server-metrics-url: written
// out, it would turn a default into an address the user asked for.
func metricsURLs(p *parser, key string, v *yaml.Node) error {
	if v.Kind == yaml.ScalarNode && v.Value == "http://localhost:9400/metrics" {
		return nil
	}
	return list("server-metrics-url")(p, key, v)
}
