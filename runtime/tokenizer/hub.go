package tokenizer

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	neturl "net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"
)

// hub is the part of the Hugging Face Hub client this package needs: the
// local cache layout shared with huggingface_hub and transformers (so a
// model already downloaded by Python is found offline), and one download.
type hub struct {
	cache    string // the "hub" cache folder
	endpoint string
	token    string
	offline  bool
}

const tokenizerFile = "tokenizer.json"

// hubFromEnv reads the same environment variables as huggingface_hub.
func hubFromEnv() hub {
	home := os.Getenv("HF_HOME")
	if home == "" {
		base := os.Getenv("XDG_CACHE_HOME")
		if base == "" {
			if h, err := os.UserHomeDir(); err == nil {
				base = filepath.Join(h, ".cache")
			}
		}
		home = filepath.Join(base, "huggingface")
	}
	h := hub{cache: os.Getenv("HF_HUB_CACHE"), endpoint: os.Getenv("HF_ENDPOINT")}
	if h.cache == "" {
		h.cache = filepath.Join(home, "hub")
	}
	if h.endpoint == "" {
		h.endpoint = "https://huggingface.co"
	}
	h.endpoint = strings.TrimRight(h.endpoint, "/")
	h.token = hubToken(home)
	switch strings.ToUpper(os.Getenv("HF_HUB_OFFLINE")) {
	case "1", "ON", "YES", "TRUE":
		h.offline = true
	}
	return h
}

// hubToken is $HF_TOKEN, else the token file `huggingface-cli login` wrote.
func hubToken(home string) string {
	if t := os.Getenv("HF_TOKEN"); t != "" {
		return t
	}
	path := os.Getenv("HF_TOKEN_PATH")
	if path == "" {
		path = filepath.Join(home, "token")
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}

// defaultRevision is the branch huggingface_hub resolves when none is given.
const defaultRevision = "main"

func readHub(id, revision string) ([]byte, string, error) {
	if revision == "" {
		revision = defaultRevision
	}
	if err := checkRevision(revision); err != nil {
		return nil, "", err
	}
	h := hubFromEnv()
	if p, ok := h.cached(id, revision); ok {
		data, err := readFile(p)
		return data, p, err
	}
	missing := "not found in the Hugging Face cache (" + h.cache + ")"
	if revision != defaultRevision {
		missing = "revision " + revision + " " + missing
	}
	if h.offline {
		return nil, "", fmt.Errorf("%s and HF_HUB_OFFLINE forbids downloading", missing)
	}
	p, err := h.download(id, revision)
	if err != nil {
		return nil, "", fmt.Errorf("%s and download failed: %w", missing, err)
	}
	data, err := readFile(p)
	return data, p, err
}

// checkRevision refuses a revision that could name a file outside the
// cache's refs folder; branch names may hold "/" ("refs/pr/1").
func checkRevision(revision string) error {
	for _, part := range strings.Split(revision, "/") {
		if part == "" || part == "." || part == ".." || strings.Contains(part, `\`) {
			return fmt.Errorf("revision %q: want a branch, tag or commit id", revision)
		}
	}
	return nil
}

func (h hub) repoDir(id string) string {
	return filepath.Join(h.cache, "models--"+strings.ReplaceAll(id, "/", "--"))
}

// cached finds tokenizer.json in the snapshot of revision: the commit
// itself for a commit id, else the commit refs/<revision> points to. For
// "main" without a ref, the most recently written snapshot that has one
// stands in (a cache copied by hand often lacks refs); another revision
// has no such fallback, since any snapshot could be the wrong one.
func (h hub) cached(id, revision string) (string, bool) {
	dir := h.repoDir(id)
	snapshot := func(commit string) (string, bool) {
		p := filepath.Join(dir, "snapshots", commit, tokenizerFile)
		_, err := os.Stat(p)
		return p, err == nil
	}
	if commitHash.MatchString(revision) {
		return snapshot(revision)
	}
	if ref, err := os.ReadFile(filepath.Join(dir, "refs", filepath.FromSlash(revision))); err == nil {
		if p, ok := snapshot(strings.TrimSpace(string(ref))); ok {
			return p, true
		}
	}
	if revision != defaultRevision {
		return "", false
	}
	entries, _ := os.ReadDir(filepath.Join(dir, "snapshots"))
	best, bestTime := "", time.Time{}
	for _, e := range entries {
		p := filepath.Join(dir, "snapshots", e.Name(), tokenizerFile)
		if info, err := os.Stat(p); err == nil && (best == "" || info.ModTime().After(bestTime)) {
			best, bestTime = p, info.ModTime()
		}
	}
	return best, best != ""
}

var commitHash = regexp.MustCompile(`^[0-9a-f]{40}$`)

// download fetches <endpoint>/<id>/resolve/<revision>/tokenizer.json into
// snapshots/<commit>/ and, unless the revision is itself a commit id,
// points refs/<revision> at it, as huggingface_hub would.
func (h hub) download(id, revision string) (string, error) {
	url := h.endpoint + "/" + id + "/resolve/" + neturl.PathEscape(revision) + "/" + tokenizerFile
	body, commit, err := h.fetch(url)
	if err != nil {
		return "", err
	}
	if !commitHash.MatchString(commit) {
		commit = revision
	}
	dir := h.repoDir(id)
	snap := filepath.Join(dir, "snapshots", filepath.FromSlash(commit))
	if err := os.MkdirAll(snap, 0o755); err != nil {
		return "", err
	}
	p := filepath.Join(snap, tokenizerFile)
	if err := writeAtomic(p, body); err != nil {
		return "", err
	}
	if commitHash.MatchString(revision) {
		return p, nil
	}
	ref := filepath.Join(dir, "refs", filepath.FromSlash(revision))
	if err := os.MkdirAll(filepath.Dir(ref), 0o755); err != nil {
		return "", err
	}
	return p, writeAtomic(ref, []byte(commit))
}

// maxTokenizerBytes bounds a download; real tokenizer.json files are
// at most a few tens of megabytes.
const maxTokenizerBytes = 512 << 20

func (h hub) fetch(url string) ([]byte, string, error) {
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		return nil, "", err
	}
	req.Header.Set("User-Agent", "llmbench")
	if h.token != "" {
		req.Header.Set("Authorization", "Bearer "+h.token)
	}
	resp, err := (&http.Client{Timeout: 10 * time.Minute}).Do(req)
	if err != nil {
		return nil, "", err
	}
	defer resp.Body.Close()
	switch {
	case resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden:
		return nil, "", fmt.Errorf("GET %s: %s (gated or private model: set HF_TOKEN)", url, resp.Status)
	case resp.StatusCode != http.StatusOK:
		return nil, "", fmt.Errorf("GET %s: %s", url, resp.Status)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxTokenizerBytes+1))
	if err != nil {
		return nil, "", fmt.Errorf("GET %s: %w", url, err)
	}
	if len(body) > maxTokenizerBytes {
		return nil, "", fmt.Errorf("GET %s: larger than %d bytes", url, maxTokenizerBytes)
	}
	if trimmed := strings.TrimSpace(string(body[:min(len(body), 64)])); !strings.HasPrefix(trimmed, "{") {
		return nil, "", errors.New("GET " + url + ": response is not a JSON object")
	}
	return body, resp.Header.Get("X-Repo-Commit"), nil
}

// writeAtomic writes through a temporary file so that a concurrent reader
// or an interrupted download never leaves a truncated file in the cache.
func writeAtomic(path string, data []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), ".tmp-*")
	if err != nil {
		return err
	}
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return err
	}
	if err := tmp.Close(); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	return nil
}
