package dataset

import (
	"math"
	"math/rand/v2"
	"reflect"
	"testing"
)

func TestDistributionsHaveTheirMoments(t *testing.T) {
	cases := []struct {
		d          Dist
		mean, sd   float64
		minV, maxV float64
	}{
		{Fixed{7}, 7, 0, 7, 7},
		{Normal{300, 30}, 300, 30, math.Inf(-1), math.Inf(1)},
		{Uniform{100, 200}, 150, 100 / math.Sqrt(12), 100, 200},
		{LogNormal{800, 400}, 800, 400, 0, math.Inf(1)},
		{Choice{Values: []float64{10, 20}, Weights: []float64{3, 1}}, 12.5, math.Sqrt(18.75), 10, 20},
		{Choice{Values: []float64{1, 3}}, 2, 1, 1, 3},
	}
	for _, tc := range cases {
		rng := rand.New(rand.NewPCG(1, 2))
		const n = 200000
		var sum, sq float64
		for range n {
			v := tc.d.Sample(rng)
			if v < tc.minV || v > tc.maxV {
				t.Fatalf("%s sampled %g outside [%g, %g]", tc.d, v, tc.minV, tc.maxV)
			}
			sum += v
			sq += v * v
		}
		mean := sum / n
		sd := math.Sqrt(sq/n - mean*mean)
		if math.Abs(mean-tc.mean) > 0.01*tc.mean || math.Abs(sd-tc.sd) > 0.02*tc.sd+1e-9 {
			t.Errorf("%s: mean %.3f sd %.3f, want %.3f and %.3f", tc.d, mean, sd, tc.mean, tc.sd)
		}
		if math.Abs(tc.d.Mean()-tc.mean) > 1e-9 {
			t.Errorf("%s: Mean() = %g, want %g", tc.d, tc.d.Mean(), tc.mean)
		}
	}
}

func TestValidateDist(t *testing.T) {
	for _, d := range []Dist{Fixed{-1}, Normal{5, -1}, Uniform{5, 1}, LogNormal{0, 1}, Choice{},
		Choice{Values: []float64{1}, Weights: []float64{1, 2}}, Choice{Values: []float64{1}, Weights: []float64{0}}, nil} {
		if ValidateDist(d) == nil {
			t.Errorf("%v accepted", d)
		}
	}
}

// GenAI-Perf's lengths: input max(0, int(x)), output max(1, int(x)).
func TestSyntheticLengths(t *testing.T) {
	s := Synthetic{Input: Fixed{12}, Output: Fixed{0.5}, Deterministic: true, Entries: 5, PrefixTokens: 4, Prefixes: 2, Seed: 3}
	entries, err := s.Build(0)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 5 {
		t.Fatalf("%d entries, want 5", len(entries))
	}
	for _, e := range entries {
		if e.Words != 16 || CountWords(e.Text) != 16 || e.MaxTokens != 1 || e.MinTokens != 1 {
			t.Errorf("entry %+v: want 16 words and max/min tokens 1", e)
		}
	}
	again, _ := s.Build(0)
	for i := range entries {
		if !reflect.DeepEqual(entries[i], again[i]) {
			t.Fatal("same seed, different prompts")
		}
	}
	if _, err := (Synthetic{Input: Normal{-50, 0}}).Build(1); err == nil {
		t.Error("a dataset of empty prompts was accepted")
	}
	clamped := 0
	wide, _ := (Synthetic{Input: Normal{1, 1000}}).Build(50)
	for _, e := range wide {
		if e.Words < 0 || e.MaxTokens != 0 {
			t.Fatalf("negative length not clamped / max_tokens set without output: %+v", e)
		}
		if e.Words == 0 {
			clamped++
		}
	}
	if clamped == 0 {
		t.Error("no negative draw was clamped to 0 in 50 draws of normal(1, 1000)")
	}
}

func TestMixProportionsAndTags(t *testing.T) {
	m := Mix{
		Components: []Source{Synthetic{Input: Fixed{3}}, Synthetic{Input: Fixed{9}}},
		Names:      []string{"chat", ""},
		Weights:    []float64{0.8, 0.2},
		Seed:       5,
	}
	entries, err := m.Build(10000)
	if err != nil {
		t.Fatal(err)
	}
	counts := map[string]int{}
	for _, e := range entries {
		counts[e.Component]++
		if (e.Component == "chat") != (e.Words == 3) {
			t.Fatalf("entry %+v tagged with the wrong component", e)
		}
	}
	if c := counts["chat"]; c < 7800 || c > 8200 || counts["component1"]+c != 10000 {
		t.Errorf("counts %v, want about 8000/2000", counts)
	}
	again, _ := m.Build(10000)
	for i := range entries {
		if !reflect.DeepEqual(entries[i], again[i]) {
			t.Fatal("same seed, different mix")
		}
	}
	if (Mix{}).Validate() == nil || (Mix{Components: m.Components, Weights: []float64{1}}).Validate() == nil {
		t.Error("invalid mixes accepted")
	}
}
