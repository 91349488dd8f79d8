package sim

import (
	"net/http"
)

// resetPrefixCache answers POST /reset_prefix_cache as vLLM 0.32 does
// under VLLM_SERVER_DEV_MODE=1 (vllm/entrypoints/serve/dev/cache/
// api_router.py): {"success": true} once the cache is empty, and
// {"success": false} while requests are running, since vLLM cannot free
// blocks a running request holds. A server without a prefix cache has
// nothing to reset and says it succeeded, as vLLM does with prefix
// caching off. It lets llmbench's reset_prefix_cache be tested on
// 127.0.0.1 without a real vLLM.
func (s *Server) resetPrefixCache(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	if s.batch.state().running > 0 {
		_, _ = w.Write([]byte(`{"success":false}`))
		return
	}
	if s.cache != nil {
		s.cache.reset()
	}
	_, _ = w.Write([]byte(`{"success":true}`))
}
