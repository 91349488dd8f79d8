package main

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"image"
	_ "image/jpeg"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A GenAI-Perf multimodal line against the simulator: every request's
// user turn is GenAI-Perf's content parts (text, --batch-size-image
// image_url parts of the asked size and format, input_audio WAV clips),
// no picture repeats, ISL counts the text alone and the console says
// what media each request carried.
func TestProfileMultimodal(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	r := runCLI(t, dir, "profile", "-m", "vlm", "-u", "sim://?ttft=5ms&itl=1ms", "--endpoint-type", "multimodal",
		"--streaming", "--synthetic-input-tokens-mean", "20", "--output-tokens-mean", "5",
		"--image-width-mean", "64", "--image-height-mean", "48", "--image-format", "jpeg", "--batch-size-image", "2",
		"--audio-length-mean", "0.5", "--audio-depths", "16", "24", "--audio-sample-rates", "8", "16",
		"--num-dataset-entries", "6", "--concurrency", "2", "--request-count", "12", "--server-metrics-url", "http://127.0.0.1:1/metrics")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if !strings.Contains(r.stdout, "Media per request (avg; ISL counts the text alone): 2.00 images (") ||
		!strings.Contains(r.stdout, "1.00 audio clips (") {
		t.Errorf("console lacks the media line:\n%s", r.stdout)
	}
	run := filepath.Join(dir, "artifacts", "vlm-openai-multimodal-concurrency2")
	if isl := genaiPerfJSON(t, run)["input_sequence_length"]; isl["avg"] != 20.0 {
		t.Errorf("ISL %v, want the text's 20 tokens", isl)
	}
	b, err := os.ReadFile(filepath.Join(run, "profile_export_genai_perf.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"output_format": "openai_multimodal"`, "\"depths\": [\n          16,\n          24\n        ]", `"format": "jpeg"`, `"mean": 0.5`} {
		if !strings.Contains(string(b), want) {
			t.Errorf("input_config lacks %s", want)
		}
	}
	seen := map[string]bool{}
	for i, content := range inputContents(t, run) {
		if len(content) != 4 || content[0]["type"] != "text" || content[1]["type"] != "image_url" ||
			content[2]["type"] != "image_url" || content[3]["type"] != "input_audio" {
			t.Fatalf("entry %d: content %v, want text, 2 image_url, input_audio", i, partTypes(content))
		}
		for _, p := range content[1:3] {
			url := p["image_url"].(map[string]any)["url"].(string)
			if seen[url] {
				t.Errorf("entry %d: a picture repeats", i)
			}
			seen[url] = true
			raw, _ := base64.StdEncoding.DecodeString(strings.TrimPrefix(url, "data:image/jpeg;base64,"))
			cfg, format, err := image.DecodeConfig(bytes.NewReader(raw))
			if err != nil || format != "jpeg" || cfg.Width != 64 || cfg.Height != 48 {
				t.Errorf("entry %d: picture %s %dx%d (%v), want a 64x48 jpeg", i, format, cfg.Width, cfg.Height, err)
			}
		}
		audio := content[3]["input_audio"].(map[string]any)
		raw, _ := base64.StdEncoding.DecodeString(audio["data"].(string))
		if audio["format"] != "wav" || !bytes.HasPrefix(raw, []byte("RIFF")) {
			t.Errorf("entry %d: clip %v, want a wav", i, audio["format"])
		}
	}
	if len(seen) != 12 {
		t.Errorf("%d distinct pictures, want 6 entries × 2", len(seen))
	}
	// records.parquet keeps the media: report recomputes the same line.
	rep := runCLI(t, dir, "report", run)
	if rep.code != 0 || !strings.Contains(rep.stdout, "Media per request (avg; ISL counts the text alone): 2.00 images (") {
		t.Errorf("report: exit %d, want the media line:\n%s%s", rep.code, rep.stdout, rep.stderr)
	}
}

// --endpoint-type image_retrieval sends GenAI-Perf's {"input": [image_url
// ...]} to v1/infer and reports its Image Retrieval table: image
// throughput and latency per request beside the request latency.
func TestProfileImageRetrieval(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	r := runCLI(t, dir, "profile", "-m", "yolox", "-u", "sim://?ttft=5ms", "--endpoint-type", "image_retrieval",
		"--image-width-mean", "28", "--image-height-mean", "28", "--batch-size-image", "4",
		"--concurrency", "1", "--request-count", "5", "--server-metrics-url", "http://127.0.0.1:1/metrics")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if !strings.Contains(r.stdout, "NVIDIA GenAI-Perf | Image Retrieval Metrics") || !strings.Contains(r.stdout, "Image Latency (ms/image)") {
		t.Errorf("want the Image Retrieval table:\n%s", r.stdout)
	}
	m := genaiPerfJSON(t, filepath.Join(dir, "artifacts", "yolox-openai-image_retrieval-concurrency1"))
	lat, img := m["request_latency"], m["image_latency"]
	if img["unit"] != "ms/image" || m["image_throughput"]["unit"] != "images/sec" || img["avg"].(float64)*4 != lat["avg"].(float64) {
		t.Errorf("image_latency %v with request_latency %v: want a quarter of it (4 pictures)", img, lat)
	}
}

// Bad media flags exit 2 naming the flag.
func TestMultimodalFlagErrors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	base := []string{"profile", "-m", "vlm", "-u", "sim://", "--endpoint-type", "multimodal"}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--image-width-mean=-5", "--image-height-mean", "10"}, "--image-width-mean: got -5, want >= 0"},
		{[]string{"--image-width-mean", "10"}, "--image-width-mean and --image-height-mean: got 10 and 0"},
		{[]string{"--image-width-mean", "10", "--image-height-mean", "10", "--image-format", "gif"}, `--image-format: got "gif", want png or jpeg`},
		{[]string{"--audio-length-mean", "1", "--audio-format", "mp3"}, "--audio-format mp3: mp3 cannot be generated"},
		{[]string{"--audio-length-mean", "1", "--audio-depths", "12"}, "--audio-depths: got 12 bits"},
		{[]string{"--audio-length-mean", "1", "--audio-num-channels", "3"}, "--audio-num-channels: got 3"},
		{[]string{"--batch-size-image", "0"}, "--batch-size-image: got 0, want >= 1"},
		{[]string{"--image-width-mean", "4096", "--image-height-mean", "4096", "--num-dataset-entries", "1000"},
			"--num-dataset-entries 1000 × --batch-size-image 1 pictures of 4096×4096 px would take about 15.6 GiB"},
	} {
		r := runCLI(t, dir, append(base, c.args...)...)
		if r.code != 2 || !strings.Contains(r.stderr, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", c.args, r.code, r.stderr, c.want)
		}
	}
	r := runCLI(t, dir, "profile", "-m", "m", "-u", "sim://", "--endpoint-type", "completions", "--image-width-mean", "8", "--image-height-mean", "8")
	if r.code != 2 || !strings.Contains(r.stderr, "--endpoint-type completions: synthetic images and audio") {
		t.Errorf("completions with images: exit %d, %q", r.code, r.stderr)
	}
}

// inputContents is every inputs.json entry's user-turn content parts.
func inputContents(t *testing.T, run string) [][]map[string]any {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(run, "inputs.json"))
	if err != nil {
		t.Fatal(err)
	}
	var inputs struct {
		Data []struct {
			Payload []struct {
				Messages []struct {
					Content []map[string]any
				}
			}
		}
	}
	if err := json.Unmarshal(b, &inputs); err != nil {
		t.Fatal(err)
	}
	var out [][]map[string]any
	for _, d := range inputs.Data {
		out = append(out, d.Payload[0].Messages[0].Content)
	}
	return out
}

func partTypes(content []map[string]any) []any {
	var out []any
	for _, p := range content {
		out = append(out, p["type"])
	}
	return out
}

// GenAI-Perf's YAML input.image and input.audio sections (config -f)
// become the media flags: the run carries the pictures and clips asked
// for, with the lists GenAI-Perf's config writes.
func TestConfigFileMultimodal(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	yaml := `model_name: vlm
endpoint:
  type: multimodal
  url: sim://?ttft=2ms&itl=1ms
perf_analyzer:
  stimulus:
    concurrency: 2
  measurement:
    mode: request_count
    num: 6
  path: perf_analyzer
input:
  num_dataset_entries: 3
  image:
    batch_size: 2
    format: jpeg
    width: {mean: 40, stddev: 0}
    height: {mean: 30, stddev: 0}
  audio:
    sample_rates: [8, 16]
    depths: [16, 24]
    length: {mean: 0.25, stddev: 0}
`
	if err := os.WriteFile(filepath.Join(dir, "mm.yaml"), []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	r := runCLI(t, dir, "config", "-f", "mm.yaml", "--override-config", "--server-metrics-url=http://127.0.0.1:1/metrics")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if !strings.Contains(r.stdout, "2.00 images (") || !strings.Contains(r.stdout, "1.00 audio clips (") {
		t.Errorf("console lacks the media line:\n%s", r.stdout)
	}
	contents := inputContents(t, filepath.Join(dir, "artifacts", "vlm-openai-multimodal-concurrency2"))
	if len(contents) != 3 || len(contents[0]) != 4 || contents[0][1]["type"] != "image_url" || contents[0][3]["type"] != "input_audio" {
		t.Errorf("inputs.json: %d entries, first %v; want 3 of text, 2 pictures, a clip", len(contents), partTypes(contents[0]))
	}
	// scenario-from-config writes the same media as synthetic(images=,
	// audio=), and the scenario checks.
	if r := runCLI(t, dir, "scenario-from-config", "mm.yaml", "-o", "mm.star"); r.code != 0 {
		t.Fatalf("scenario-from-config: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	r = runCLI(t, dir, "check", "mm.star")
	if r.code != 0 || !strings.Contains(r.stdout, `images=image(width=fixed(40), height=fixed(30), format="jpeg", count=2)`) ||
		!strings.Contains(r.stdout, `audio=audio(length=fixed(0.25), format="wav", sample_rates=[8, 16], depths=[16, 24]`) {
		t.Errorf("check mm.star: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
}
