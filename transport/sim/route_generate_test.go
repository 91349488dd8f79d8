package sim

import "testing"

func TestKServeModel(t *testing.T) {
	for _, tc := range []struct {
		path, model string
		ok          bool
	}{
		{"/v2/models/ensemble/generate", "ensemble", true},
		{"/v2/models/ensemble/generate_stream", "ensemble", true},
		{"/v2/models/a%20b%2Fc/versions/2/generate_stream", "a b/c", true},
		{"/v2/models/ensemble/infer", "", false},
		{"/v2/models//generate", "", false},
		{"/v2/models/m/versions//generate", "", false},
		{"/v1/models/m/generate", "", false},
	} {
		model, ok := kserveModel(tc.path)
		if model != tc.model || ok != tc.ok {
			t.Errorf("%s: %q %v, want %q %v", tc.path, model, ok, tc.model, tc.ok)
		}
	}
}
