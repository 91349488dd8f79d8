package tokenizer

import (
	"errors"
	"fmt"
	"io"
	"net/http"
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

func readHub(id string) ([]byte, error) {
	h := hubFromEnv()
	if p, ok := h.cached(id); ok {
		return readFile(p)
	}
	if h.offline {
		return nil, fmt.Errorf("not found in the Hugging Face cache (%s) and HF_HUB_OFFLINE forbids downloading", h.cache)
	}
	p, err := h.download(id)
	if err != nil {
		return nil, fmt.Errorf("not found in the Hugging Face cache (%s) and download failed: %w", h.cache, err)
	}
	return readFile(p)
}

func (h hub) repoDir(id string) string {
	return filepath.Join(h.cache, "models--"+strings.ReplaceAll(id, "/", "--"))
}

// cached finds tokenizer.json in the snapshot refs/main points to, or, when
// there is no ref, in the most recently written snapshot that has one.
func (h hub) cached(id string) (string, bool) {
	dir := h.repoDir(id)
	if ref, err := os.ReadFile(filepath.Join(dir, "refs", "main")); err == nil {
		p := filepath.Join(dir, "snapshots", strings.TrimSpace(string(ref)), tokenizerFile)
		if _, err := os.Stat(p); err == nil {
			return p, true
		}
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

// download fetches <endpoint>/<id>/resolve/main/tokenizer.json into
// snapshots/<commit>/ and points refs/main at it, as huggingface_hub would.
func (h hub) download(id string) (string, error) {
	url := h.endpoint + "/" + id + "/resolve/main/" + tokenizerFile
	body, commit, err := h.fetch(url)
	if err != nil {
		return "", err
	}
	if !commitHash.MatchString(commit) {
		commit = "main"
	}
	dir := h.repoDir(id)
	snap := filepath.Join(dir, "snapshots", commit)
	if err := os.MkdirAll(snap, 0o755); err != nil {
		return "", err
	}
	p := filepath.Join(snap, tokenizerFile)
	if err := writeAtomic(p, body); err != nil {
		return "", err
	}
	if err := os.MkdirAll(filepath.Join(dir, "refs"), 0o755); err != nil {
		return "", err
	}
	return p, writeAtomic(filepath.Join(dir, "refs", "main"), []byte(commit))
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
