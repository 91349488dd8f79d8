package tokenizer

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
)

// smallJSON is a small real tokenizer.json (trained by the fixture
// generator), used where the test is about finding the file.
func smallJSON(t *testing.T) []byte { return gunzip(t, "testdata/synth-bytelevel.json.gz") }

func writeFile(t *testing.T, path string, data []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// isolateHub points every Hugging Face variable at a fresh folder so that
// no test reads the real cache or reaches the network.
func isolateHub(t *testing.T) string {
	dir := t.TempDir()
	for _, k := range []string{"HF_HUB_CACHE", "HF_TOKEN", "HF_TOKEN_PATH", "HF_HUB_OFFLINE", "XDG_CACHE_HOME"} {
		t.Setenv(k, "")
	}
	t.Setenv("HF_HOME", filepath.Join(dir, "hf"))
	t.Setenv("HF_ENDPOINT", "http://127.0.0.1:1") // nothing listens there
	return filepath.Join(dir, "hf", "hub")
}

func mustEncode(t *testing.T, tk *Tokenizer, want *Tokenizer) {
	t.Helper()
	text := "Hello, world! 123"
	if got, exp := tk.Encode(text), want.Encode(text); !slices.Equal(got, exp) {
		t.Fatalf("Encode = %v, want %v", got, exp)
	}
}

func TestLoadFileAndFolder(t *testing.T) {
	isolateHub(t)
	ref := testTokenizer(t, "synth-bytelevel")
	dir := t.TempDir()
	plain := filepath.Join(dir, "model", "tokenizer.json")
	writeFile(t, plain, smallJSON(t))
	for _, src := range []string{plain, filepath.Dir(plain), "testdata/synth-bytelevel.json.gz"} {
		tk, err := Load(src)
		if err != nil {
			t.Fatalf("Load(%q): %v", src, err)
		}
		if tk.Source() != src {
			t.Errorf("Source() = %q, want %q", tk.Source(), src)
		}
		mustEncode(t, tk, ref)
	}
}

func TestLoadErrorsNameTheSource(t *testing.T) {
	isolateHub(t)
	empty := t.TempDir()
	cases := []struct{ src, want string }{
		{"", "no tokenizer given"},
		{"./missing/tokenizer.json", `tokenizer "./missing/tokenizer.json": no such file or folder`},
		{empty, "has no tokenizer.json"},
		{"testdata/gen", "has no tokenizer.json"},
	}
	for _, c := range cases {
		_, err := Load(c.src)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Load(%q) error = %v, want it to contain %q", c.src, err, c.want)
		}
	}
}

func TestLoadUnsupportedComponents(t *testing.T) {
	base := string(smallJSON(t))
	cases := []struct{ old, new, want string }{
		{`"type":"BPE"`, `"type":"Unigram"`, `model "Unigram" is not supported`},
		{`"normalizer":{`, `"normalizer":{"type":"BertNormalizer"},"x":{`, `normalizer "BertNormalizer" is not supported`},
		{`"pre_tokenizer":{`, `"pre_tokenizer":{"type":"Whitespace"},"x":{`, `pre_tokenizer "Whitespace" is not supported`},
		{`"decoder":{`, `"decoder":{"type":"WordPiece"},"x":{`, `decoder "WordPiece" is not supported`},
	}
	for _, c := range cases {
		if !strings.Contains(base, c.old) {
			t.Fatalf("fixture lacks %q", c.old)
		}
		path := filepath.Join(t.TempDir(), "tokenizer.json")
		writeFile(t, path, []byte(strings.Replace(base, c.old, c.new, 1)))
		_, err := Load(path)
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), path) {
			t.Errorf("error = %v, want it to name %q and the file", err, c.want)
		}
	}
}

// TestLoadFromHubCache finds a model downloaded earlier by huggingface_hub,
// through refs/main, without any network.
func TestLoadFromHubCache(t *testing.T) {
	hub := isolateHub(t)
	t.Setenv("HF_HUB_OFFLINE", "1")
	repo := filepath.Join(hub, "models--acme--tiny")
	writeFile(t, filepath.Join(repo, "snapshots", "old", "tokenizer.json"), []byte("{broken"))
	writeFile(t, filepath.Join(repo, "snapshots", "abc123", "tokenizer.json"), smallJSON(t))
	writeFile(t, filepath.Join(repo, "refs", "main"), []byte("abc123\n"))
	tk, err := Load("acme/tiny")
	if err != nil {
		t.Fatal(err)
	}
	mustEncode(t, tk, testTokenizer(t, "synth-bytelevel"))

	t.Setenv("HF_HUB_CACHE", filepath.Join(t.TempDir(), "elsewhere"))
	_, err = Load("acme/tiny")
	if err == nil || !strings.Contains(err.Error(), `tokenizer "acme/tiny": not found in the Hugging Face cache (`) ||
		!strings.Contains(err.Error(), "HF_HUB_OFFLINE") {
		t.Errorf("offline miss: %v", err)
	}
}

// TestLoadDownloads fetches tokenizer.json from a local endpoint into the
// cache layout, sending HF_TOKEN, and then works with the endpoint gone.
func TestLoadDownloads(t *testing.T) {
	hub := isolateHub(t)
	t.Setenv("HF_TOKEN", "secret")
	body := smallJSON(t)
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		switch {
		case r.Header.Get("Authorization") != "Bearer secret":
			http.Error(w, "no token", http.StatusUnauthorized)
		case r.URL.Path == "/acme/tiny/resolve/main/tokenizer.json":
			w.Header().Set("X-Repo-Commit", strings.Repeat("ab", 20))
			w.Write(body)
		default:
			http.NotFound(w, r)
		}
	}))
	t.Setenv("HF_ENDPOINT", srv.URL+"/")
	tk, err := Load("acme/tiny")
	if err != nil {
		t.Fatal(err)
	}
	mustEncode(t, tk, testTokenizer(t, "synth-bytelevel"))
	snap := filepath.Join(hub, "models--acme--tiny", "snapshots", strings.Repeat("ab", 20), "tokenizer.json")
	if _, err := os.Stat(snap); err != nil {
		t.Errorf("not cached in the hub layout: %v", err)
	}
	srv.Close()
	if _, err := Load("acme/tiny"); err != nil || hits.Load() != 1 {
		t.Errorf("second load: err %v, %d requests (want 1)", err, hits.Load())
	}
}

func TestLoadDownloadFailures(t *testing.T) {
	hub := isolateHub(t)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.URL.Path, "/gated/") {
			http.Error(w, "gated", http.StatusForbidden)
			return
		}
		http.NotFound(w, r)
	}))
	defer srv.Close()
	t.Setenv("HF_ENDPOINT", srv.URL)
	cases := []struct{ id, want string }{
		{"gated/model", "403 Forbidden (gated or private model: set HF_TOKEN)"},
		{"acme/missing", "404 Not Found"},
	}
	for _, c := range cases {
		_, err := Load(c.id)
		want := `tokenizer "` + c.id + `": not found in the Hugging Face cache (` + hub + `) and download failed: GET `
		if err == nil || !strings.HasPrefix(err.Error(), want) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Load(%q) = %v\nwant prefix %q and %q", c.id, err, want, c.want)
		}
	}
}

// TestLoadRevisionFromHubCache resolves a revision as huggingface_hub
// lays out its cache: refs/<branch or tag> names the snapshot, a commit id
// is the snapshot itself, and a revision not in the cache is not replaced
// by another snapshot.
func TestLoadRevisionFromHubCache(t *testing.T) {
	hub := isolateHub(t)
	t.Setenv("HF_HUB_OFFLINE", "1")
	repo := filepath.Join(hub, "models--acme--tiny")
	commit := strings.Repeat("c0", 20)
	writeFile(t, filepath.Join(repo, "snapshots", "m41n", "tokenizer.json"), []byte("{broken"))
	writeFile(t, filepath.Join(repo, "refs", "main"), []byte("m41n"))
	writeFile(t, filepath.Join(repo, "snapshots", commit, "tokenizer.json"), smallJSON(t))
	writeFile(t, filepath.Join(repo, "refs", "v2"), []byte(commit+"\n"))
	writeFile(t, filepath.Join(repo, "refs", "refs", "pr", "1"), []byte(commit))
	ref := testTokenizer(t, "synth-bytelevel")
	for _, rev := range []string{"v2", commit, "refs/pr/1"} {
		tk, err := LoadRevision("acme/tiny", rev)
		if err != nil {
			t.Fatalf("revision %s: %v", rev, err)
		}
		mustEncode(t, tk, ref)
	}
	if _, err := Load("acme/tiny"); err == nil {
		t.Error("main (a broken snapshot) loaded: the revision was not what chose the file")
	}
	_, err := LoadRevision("acme/tiny", "v3")
	if err == nil || !strings.Contains(err.Error(), `tokenizer "acme/tiny": revision v3 not found in the Hugging Face cache`) {
		t.Errorf("missing revision: %v", err)
	}
	for _, bad := range []string{"../../etc", "/abs", "a//b", `a\b`} {
		if _, err := LoadRevision("acme/tiny", bad); err == nil || !strings.Contains(err.Error(), "want a branch, tag or commit id") {
			t.Errorf("revision %q: %v", bad, err)
		}
	}
}

// TestLoadRevisionDownloads asks the hub for the revision (escaped, as
// huggingface_hub does) and records it under refs/, so the next load of
// that revision is offline.
func TestLoadRevisionDownloads(t *testing.T) {
	hub := isolateHub(t)
	body := smallJSON(t)
	commit := strings.Repeat("d1", 20)
	var paths []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		paths = append(paths, r.URL.EscapedPath())
		w.Header().Set("X-Repo-Commit", commit)
		w.Write(body)
	}))
	t.Setenv("HF_ENDPOINT", srv.URL)
	if _, err := LoadRevision("acme/tiny", "refs/pr/1"); err != nil {
		t.Fatal(err)
	}
	if want := "/acme/tiny/resolve/refs%2Fpr%2F1/tokenizer.json"; len(paths) != 1 || paths[0] != want {
		t.Errorf("requested %v, want [%s]", paths, want)
	}
	if b, err := os.ReadFile(filepath.Join(hub, "models--acme--tiny", "refs", "refs", "pr", "1")); err != nil || string(b) != commit {
		t.Errorf("refs/refs/pr/1 = %q, %v; want the commit", b, err)
	}
	srv.Close()
	if _, err := LoadRevision("acme/tiny", "refs/pr/1"); err != nil {
		t.Errorf("second load, offline: %v", err)
	}
}

// TestLoadRefusesIncompleteFiles: a tokenizer.json cut short (a failed
// download, a full disk) or followed by garbage is refused with the file
// and the byte where it stops, not loaded as if whole (jsonparser finds
// "model" without reading past it) nor called "not a tokenizer.json".
func TestLoadRefusesIncompleteFiles(t *testing.T) {
	isolateHub(t)
	whole := smallJSON(t)
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(whole)
	zw.Close()
	half := len(whole) / 2
	cases := []struct {
		name string
		data []byte
		want string
	}{
		{"no final brace", whole[:len(whole)-1], fmt.Sprintf("truncated at byte %d (want a complete tokenizer.json)", len(whole)-1)},
		{"no final brace, newline", append(bytes.Clone(whole[:len(whole)-1]), '\n'), fmt.Sprintf("truncated at byte %d (want a complete tokenizer.json)", len(whole))},
		{"cut in the vocab", whole[:half], fmt.Sprintf("truncated at byte %d (want a complete tokenizer.json)", half)},
		{"cut after the model", whole[:bytes.Index(whole, []byte(`"model"`))+1], "truncated at byte"},
		{"trailing garbage", append(bytes.Clone(whole), []byte("\n garbage")...), fmt.Sprintf("unexpected data after the JSON object at byte %d", len(whole)+3)},
		{"two objects", append(bytes.Clone(whole), []byte("{}")...), "unexpected data after the JSON object"},
		{"malformed", bytes.Replace(whole, []byte(`"model":`), []byte(`"model";`), 1), "malformed JSON at byte"},
		{"empty", nil, "empty file"},
		{"an array", []byte(`[1, 2]`), "a JSON array, not an object"},
		{"gzip cut short", gz.Bytes()[:gz.Len()/2], "truncated: its gzip stream ends after"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "tokenizer.json")
			writeFile(t, path, c.data)
			for _, src := range []string{path, dir} {
				_, err := Load(src)
				if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), path) {
					t.Errorf("Load(%s) error = %v, want it to name %s and say %q", src, err, path, c.want)
				}
			}
		})
	}
	path := filepath.Join(t.TempDir(), "tokenizer.json")
	writeFile(t, path, append(bytes.Clone(whole), " \n\t"...))
	if _, err := Load(path); err != nil {
		t.Errorf("trailing whitespace refused: %v", err)
	}
}
