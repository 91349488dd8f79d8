package genaiperf

import (
	"path/filepath"
	"strings"
	"unicode"
)

// ArtifactDirName returns the run directory GenAI-Perf creates under the
// artifact directory, e.g. "meta-llama_Llama-3.1-8B-Instruct-openai-chat-
// concurrency16" or "gpt2-openai-completions-request_rate10.0": the model
// with "/" replaced by "_", the service part, and the stimulus (a rate is
// written as Python prints a float). Scripts locate results by this name.
func ArtifactDirName(model, endpointType string, st Stimulus) string {
	return FileSafe(model) + "-openai-" + endpointType + "-" + st.String()
}

// FileSafe is name made one file or folder name: every path separator
// ("/" as GenAI-Perf replaces it, and "\\") and every control character
// (a newline or terminal escape in a model name given with -m) becomes
// "_", so a name from the command line never makes a path of its own nor
// an unprintable file name.
func FileSafe(name string) string {
	return strings.Map(func(r rune) rune {
		if r == '/' || r == '\\' || unicode.IsControl(r) {
			return '_'
		}
		return r
	}, name)
}

// DirName is ArtifactDirName for this run; with several models GenAI-Perf
// names the directory after the first one plus "_multi". An analyze point
// (Objective set) is named after its swept parameter instead of its load:
// "model-openai-chat-input_sequence_length512".
func (r *Run) DirName() string {
	model := ""
	if len(r.Models) > 0 {
		model = r.Models[0]
	}
	if len(r.Models) > 1 {
		model += "_multi"
	}
	if r.Objective != "" {
		return FileSafe(model) + "-" + r.servicePart() + "-" + r.Objective
	}
	if r.isTriton() {
		return FileSafe(model) + "-" + r.servicePart() + "-" + r.Stimulus.String()
	}
	return ArtifactDirName(model, r.EndpointType, r.Stimulus)
}

// servicePart is the directory name's service part: "openai-<endpoint
// type>", or "triton-<backend>" for Triton's gRPC API
// (perf_analyzer_config.py::_set_artifact_directory).
func (r *Run) servicePart() string {
	if r.isTriton() {
		return "triton-" + orDefault(r.Backend, "tensorrtllm")
	}
	return "openai-" + r.EndpointType
}

// isTriton reports a run against Triton's KServe v2 gRPC API, whose
// inputs.json, raw export and directory name have shapes of their own.
func (r *Run) isTriton() bool { return r.ServiceKind == "triton" }

// Dir is the run's directory: the artifact directory joined with DirName.
func (r *Run) Dir() string { return filepath.Join(r.ArtifactDir, r.DirName()) }

// ExportFileNames returns the names of the GenAI-Perf JSON and CSV files
// for a profile export file name: its stem plus "_genai_perf.json" and
// "_genai_perf.csv" ("profile_export.json" → "profile_export_genai_perf.json").
func ExportFileNames(profileExportFile string) (jsonName, csvName string) {
	if profileExportFile == "" {
		profileExportFile = "profile_export.json"
	}
	base := filepath.Base(profileExportFile)
	stem := strings.TrimSuffix(base, filepath.Ext(base))
	if stem == "" { // ".json": a leading dot starts no extension (Python's splitext)
		stem = base
	}
	return stem + "_genai_perf.json", stem + "_genai_perf.csv"
}
