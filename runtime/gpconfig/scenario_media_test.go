package gpconfig

import (
	"strings"
	"testing"
)

// A multimodal configuration's scenario: the multimodal endpoint type is
// chat, and input.image and input.audio become synthetic()'s images= and
// audio=, every setting carried over.
func TestScenarioMultimodal(t *testing.T) {
	c, err := Parse("mm.yaml", strings.NewReader(`model_names: llava
endpoint: {type: multimodal, url: "h:8000"}
input:
  image: {batch_size: 2, format: jpeg, width: {mean: 64, stddev: 8}, height: {mean: 32}}
  audio: {sample_rates: [8, 16], depths: [16, 24], num_channels: 2, length: {mean: 2}}
`))
	if err != nil {
		t.Fatal(err)
	}
	text, dropped, err := c.Scenario("mm.yaml")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`api = "chat"`,
		`images = image(width = normal(64, 8), height = fixed(32), format = "jpeg", count = 2)`,
		`audio = audio(length = fixed(2), sample_rates = [8, 16], depths = [16, 24], channels = 2)`} {
		if !strings.Contains(text, want) {
			t.Errorf("scenario lacks %q:\n%s", want, text)
		}
	}
	if len(dropped) != 0 {
		t.Errorf("dropped %v, want nothing", dropped)
	}
}
