package main

import (
	"strings"

	"github.com/llmbench/llmbench/reports/genaiperf"
	"github.com/llmbench/llmbench/runtime/gpflags"
)

// mediaConfig is the media flags as GenAI-Perf's input_config echoes
// them; nil when they ask for no media, so a text run's file keeps
// GenAI-Perf's defaults.
func mediaConfig(m *gpflags.MediaFlags) *genaiperf.MediaConfig {
	if !m.Any() {
		return nil
	}
	return &genaiperf.MediaConfig{
		ImageWidth:  genaiperf.TokenDist{Mean: m.ImageWidthMean, Stddev: m.ImageWidthStddev},
		ImageHeight: genaiperf.TokenDist{Mean: m.ImageHeightMean, Stddev: m.ImageHeightStddev},
		ImageFormat: strings.ToLower(m.ImageFormat), ImageBatch: m.BatchSizeImage,
		AudioLengthMean: m.AudioLengthMean, AudioLengthStddev: m.AudioLengthStddev, AudioFormat: strings.ToLower(m.AudioFormat),
		AudioDepths: m.Depths(), AudioSampleRates: m.SampleRates(),
		AudioChannels: m.AudioNumChannels, AudioBatch: m.BatchSizeAudio,
	}
}
