package transport

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// The default response limits: far above any real answer (a 128k-token
// answer streamed as one event per token is a few tens of MB), low enough
// that a runaway server cannot take the client's memory.
const (
	DefaultMaxResponseSize int64 = 256 << 20
	DefaultMaxSSELineSize  int64 = 16 << 20
)

// DefaultIdleTimeout is how long a request may wait on a silent server
// when the user set no idle timeout (--stream-idle-timeout,
// endpoint(idle_timeout=)). A minute is longer than any real prefill of a
// long prompt on a loaded server (the wait before a stream's first byte),
// yet a server that takes a request and never answers costs a run a
// minute, not the whole 10-minute request timeout. A non-streamed answer
// sends nothing until it is complete, so one generating for longer than
// this needs the timeout raised; the failure message says so. The client
// itself applies none: Config.IdleTimeout 0 is off.
const DefaultIdleTimeout = 60 * time.Second

// sizeError is a response that grew past a configured limit. The message
// names the limit, its value and where to raise it.
type sizeError struct {
	what  string // "response", "SSE line"
	limit int64
	flag  string // the profile flag; the scenario parameter is its snake_case
}

func (e *sizeError) Error() string {
	param := strings.ReplaceAll(strings.TrimPrefix(e.flag, "--"), "-", "_")
	return fmt.Sprintf("%s larger than the %s limit (%s, endpoint %s=)", e.what, FormatSize(e.limit), e.flag, param)
}

func errResponseSize(limit int64) error {
	return &sizeError{what: "response", limit: limit, flag: "--max-response-size"}
}

func errLineSize(limit int64) error {
	return &sizeError{what: "SSE line", limit: limit, flag: "--max-sse-line-size"}
}

// isOversize reports a sizeError anywhere in err's chain.
func isOversize(err error) bool {
	var se *sizeError
	return errors.As(err, &se)
}

// sizeUnits are the suffixes ParseSize accepts, longest first so "MiB" is
// not read as "B".
var sizeUnits = []struct {
	suffix string
	factor int64
}{
	{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30},
	{"KB", 1e3}, {"MB", 1e6}, {"GB", 1e9}, {"B", 1},
}

// ParseSize reads a byte size as users write it for --max-response-size
// and friends: a positive whole number with an optional unit, binary (KiB,
// MiB, GiB) or decimal (KB, MB, GB), case-insensitive: "256MiB",
// "16 MiB", "1048576".
func ParseSize(s string) (int64, error) {
	num, factor := strings.TrimSpace(s), int64(1)
	for _, u := range sizeUnits {
		if len(num) > len(u.suffix) && strings.EqualFold(num[len(num)-len(u.suffix):], u.suffix) {
			num, factor = strings.TrimSpace(num[:len(num)-len(u.suffix)]), u.factor
			break
		}
	}
	n, err := strconv.ParseInt(num, 10, 64)
	if err != nil || n <= 0 || n > math.MaxInt64/factor {
		return 0, fmt.Errorf("got %q, want a size > 0 in bytes, optionally with a unit: 1048576, 512KiB, 16MiB, 1GiB", s)
	}
	return n * factor, nil
}

// FormatSize writes n in the largest binary unit that divides it, the
// form ParseSize reads back: 268435456 is "256MiB", 1000 is "1000B".
func FormatSize(n int64) string {
	for _, u := range []struct {
		suffix string
		factor int64
	}{{"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}} {
		if n >= u.factor && n%u.factor == 0 {
			return strconv.FormatInt(n/u.factor, 10) + u.suffix
		}
	}
	return strconv.FormatInt(n, 10) + "B"
}
