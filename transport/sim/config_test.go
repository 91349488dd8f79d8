package sim

import (
	"math"
	"strings"
	"testing"
	"time"
)

func TestDefaultConfigIsValid(t *testing.T) {
	if err := DefaultConfig().Validate(); err != nil {
		t.Fatal(err)
	}
}

func TestValidate(t *testing.T) {
	tests := []struct {
		name string
		edit func(*Config)
		want []string
	}{
		{"max_batch", func(c *Config) { c.MaxBatch = 0 }, []string{"sim: max_batch must be >= 1, got 0"}},
		{"jitter high", func(c *Config) { c.Jitter = 1.5 }, []string{"sim: jitter must be in [0, 1], got 1.5"}},
		{"jitter NaN", func(c *Config) { c.Jitter = math.NaN() }, []string{"sim: jitter must be in [0, 1], got NaN"}},
		{"negative ttft", func(c *Config) { c.TTFT = -time.Millisecond }, []string{"sim: ttft must be >= 0, got -1ms"}},
		{"negative itl_per_seq", func(c *Config) { c.ITLPerSeq = -1 }, []string{"sim: itl_per_seq must be >= 0"}},
		{"output tokens", func(c *Config) { c.DefaultOutputTokens = 0 }, []string{"sim: default_output_tokens must be >= 1, got 0"}},
		{"addr", func(c *Config) { c.Addr = "" }, []string{"sim: addr must not be empty"}},
		{"model", func(c *Config) { c.Model = "" }, []string{"sim: model must not be empty"}},
		{"rate negative", func(c *Config) { c.ErrorRate429 = -0.1 }, []string{"sim: error_rate_429 must be in [0, 1], got -0.1"}},
		{"rate above one", func(c *Config) { c.ResetRate = 2 }, []string{"sim: reset_rate must be in [0, 1], got 2"}},
		{"rates sum", func(c *Config) { c.ErrorRate500, c.StallRate = 0.6, 0.6 },
			[]string{"sim: fault rates must add up to at most 1, got 1.2"}},
		{"reasoning", func(c *Config) { c.Reasoning, c.ReasoningTokens = true, 0 },
			[]string{"sim: reasoning_tokens must be >= 1 when reasoning is on, got 0"}},
		{"prefix cache", func(c *Config) { c.PrefixCacheBlocks = -1 }, []string{"sim: prefix_cache_blocks must be >= 0, got -1"}},
		{"prefix block", func(c *Config) { c.PrefixCacheBlocks, c.PrefixBlockTokens = 8, 0 },
			[]string{"sim: prefix_block_tokens must be >= 1 when the prefix cache is on, got 0"}},
		{"all at once", func(c *Config) { c.MaxBatch, c.Stall = -2, -time.Second },
			[]string{"max_batch must be >= 1, got -2", "stall must be >= 0, got -1s"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cfg := DefaultConfig()
			tc.edit(&cfg)
			err := cfg.Validate()
			if err == nil {
				t.Fatal("Validate accepted an invalid config")
			}
			for _, want := range tc.want {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q lacks %q", err, want)
				}
			}
			if _, err := Start(cfg); err == nil {
				t.Error("Start accepted an invalid config")
			}
		})
	}
}

func TestStartReportsListenError(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Addr = "127.0.0.1:-1"
	if _, err := Start(cfg); err == nil || !strings.Contains(err.Error(), "sim: listen on 127.0.0.1:-1") {
		t.Errorf("err = %v", err)
	}
}
