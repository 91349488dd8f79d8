package plan

import "fmt"

// The A/B modes (experiment(ab = ab(..., mode = ...))).
const (
	// ABModeABBA alternates the sides' rounds in ABBA order (A B B A A B
	// B A ...): one machine, one server at a time.
	ABModeABBA = "abba"
	// ABModeDuet sends both sides' rounds at the same time: two servers
	// on separate hardware behind one network path, whose interference
	// then hits both alike.
	ABModeDuet = "duet"
)

// DefaultABRounds is how many rounds each side gets unless told.
const DefaultABRounds = 8

// AB makes an experiment an interleaved A/B run (SPEC §13): its
// endpoint is the candidate (B), Baseline the endpoint it is judged
// against (A), each point cut into rounds that alternate between them,
// and the experiment's baseline gates judged on the rounds, paired.
type AB struct {
	// Baseline is side A, the endpoint the candidate is compared with.
	Baseline Endpoint `json:"baseline"`
	// Rounds is how many rounds each side gets (≥ 2): each a 1/Rounds
	// share of the point's requests or duration.
	Rounds int `json:"rounds"`
	// Mode is ABModeABBA or ABModeDuet.
	Mode string `json:"mode"`
	// Warmup is the warm-up requests sent to each side before its first
	// round, never measured; the experiment's warm-up when unset.
	Warmup *int `json:"warmup,omitempty"`
}

// Validate reports what makes the A/B settings unusable.
func (a *AB) Validate() error {
	switch {
	case a.Rounds < 2:
		return fmt.Errorf("rounds must be >= 2 (each side's rounds are paired with the other's), got %d", a.Rounds)
	case a.Mode != ABModeABBA && a.Mode != ABModeDuet:
		return fmt.Errorf("mode must be %q or %q, got %q", ABModeABBA, ABModeDuet, a.Mode)
	case a.Warmup != nil && *a.Warmup < 0:
		return fmt.Errorf("warmup must be >= 0, got %d", *a.Warmup)
	}
	return nil
}

// String is the A/B settings as `llmbench check` shows them: side A,
// the rounds and their order.
func (a *AB) String() string {
	warmup := "the experiment's warmup"
	if a.Warmup != nil {
		warmup = fmt.Sprintf("warmup %d", *a.Warmup)
	}
	return fmt.Sprintf("side A (baseline) %s; %d rounds per side, %s, %s per side before its first round", a.Baseline, a.Rounds, a.Mode, warmup)
}
