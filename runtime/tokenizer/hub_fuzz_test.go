package tokenizer

import (
	"bytes"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// hubAnswer is what the fuzzed Hub answers next.
type hubAnswer struct {
	status int
	commit string
	body   []byte
}

// FuzzHubAnswer has a Hub on 127.0.0.1 answer a tokenizer download with
// any status, X-Repo-Commit header and body. The download fails with an
// error, or writes exactly the body, a JSON object within the size bound,
// to a file inside the cache and nowhere else, under the commit the
// header names when it is a commit id (else under the revision), where
// the cache lookup then finds it: a hostile or broken answer can neither
// escape the cache nor leave a tokenizer the next run cannot find.
func FuzzHubAnswer(f *testing.F) {
	commit := strings.Repeat("a1", 20)
	for _, a := range []struct {
		status       uint16
		commit, body string
		id, revision string
	}{
		{200, commit, `{"model":{}}`, "org/model", "main"}, {200, "", ` {"a":1}`, "m", "v1.0"}, {200, "../../../../etc", `{}`, "org/m", "main"},
		{200, commit, `<html>`, "org/model", "main"}, {401, "", `{}`, "org/model", "main"}, {404, "", "", "org/model", "refs/pr/1"},
		{200, commit, `{}`, "org/model", commit}, {301, "", `{}`, "o/m", "main"}, {200, "x/../../y", `{}`, "o/m", "a/b"},
	} {
		f.Add(a.status, a.commit, []byte(a.body), a.id, a.revision)
	}
	var mu sync.Mutex
	var next hubAnswer
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		mu.Lock()
		a := next
		mu.Unlock()
		w.Header().Set("X-Repo-Commit", a.commit)
		w.WriteHeader(a.status)
		_, _ = w.Write(a.body)
	}))
	f.Cleanup(srv.Close)
	f.Fuzz(func(t *testing.T, status uint16, commit string, body []byte, id, revision string) {
		if checkRevision(revision) != nil || id == "" || strings.ContainsFunc(id+commit, func(r rune) bool { return r < 0x20 || r == 0x7f }) {
			return // refused before any download, or not a header
		}
		mu.Lock()
		next = hubAnswer{status: 200 + int(status)%400, commit: commit, body: body}
		mu.Unlock()
		root := t.TempDir()
		h := hub{cache: filepath.Join(root, "home", "huggingface", "hub"), endpoint: srv.URL}
		p, err := h.download(id, revision)
		files := filesUnder(t, root)
		if err != nil {
			return
		}
		if rel, rerr := filepath.Rel(h.cache, p); rerr != nil || strings.HasPrefix(rel, "..") {
			t.Fatalf("downloaded to %s, outside the cache %s", p, h.cache)
		}
		for _, file := range files {
			if rel, _ := filepath.Rel(h.cache, file); strings.HasPrefix(rel, "..") {
				t.Fatalf("wrote %s, outside the cache", file)
			}
		}
		got, rerr := os.ReadFile(p)
		if rerr != nil || !bytes.Equal(got, body) || !strings.HasPrefix(strings.TrimSpace(string(body)), "{") {
			t.Fatalf("wrote %q for the body %q (%v)", got, body, rerr)
		}
		if found, ok := h.cached(id, revision); !ok || found != p {
			t.Fatalf("downloaded %s, the cache then finds %q, %v", p, found, ok)
		}
	})
}

// filesUnder lists the regular files under root.
func filesUnder(t *testing.T, root string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			out = append(out, p)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}
