package tokenizer

import (
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// Load reads a tokenizer from source, which is one of:
//   - a tokenizer.json file, optionally gzip-compressed (".json.gz");
//   - a folder holding tokenizer.json (or tokenizer.json.gz);
//   - a Hugging Face model id ("org/name"), looked up in the local Hugging
//     Face cache ($HF_HUB_CACHE, $HF_HOME/hub or ~/.cache/huggingface/hub)
//     and downloaded from $HF_ENDPOINT into that cache when missing, unless
//     HF_HUB_OFFLINE is set. $HF_TOKEN is sent for gated models.
//
// Errors name the source and what was looked for, and a tokenizer.json
// using a model, normalizer, pre-tokenizer or decoder this package does not
// implement is refused with the component's name rather than encoded
// approximately.
func Load(source string) (*Tokenizer, error) { return LoadRevision(source, "") }

// LoadRevision is Load at a Hugging Face Hub revision: a branch, tag or
// commit id ("" means "main"), GenAI-Perf's --tokenizer-revision. It picks
// what a model id resolves to, in the cache (refs/<revision>, or the
// snapshot of a commit id) and when downloading; a file or folder has no
// revisions, so there it is ignored, as transformers ignores it for local
// paths.
func LoadRevision(source, revision string) (*Tokenizer, error) {
	data, file, err := readSource(source, revision)
	if err != nil {
		return nil, fmt.Errorf("tokenizer %q: %w", source, err)
	}
	t, err := parse(data)
	if err != nil && file != source {
		err = fmt.Errorf("%s: %w", file, err) // the file in the folder or the cache that is at fault
	}
	if err != nil {
		return nil, fmt.Errorf("tokenizer %q: %w", source, err)
	}
	t.source = source
	return t, nil
}

// modelID matches Hugging Face repository ids: "name" or "org/name".
var modelID = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*(/[A-Za-z0-9][A-Za-z0-9._-]*)?$`)

// readSource returns the tokenizer.json that source names and the file it
// was read from.
func readSource(source, revision string) (data []byte, file string, err error) {
	if source == "" {
		return nil, "", errors.New("no tokenizer given: expected a tokenizer.json path, a folder or a Hugging Face model id")
	}
	info, err := os.Stat(source)
	switch {
	case err == nil && info.IsDir():
		return readFolder(source)
	case err == nil:
		data, err := readFile(source)
		return data, source, err
	case !errors.Is(err, fs.ErrNotExist):
		return nil, "", err
	case looksLikePath(source) || !modelID.MatchString(source):
		return nil, "", fmt.Errorf("no such file or folder (and not a Hugging Face model id of the form org/name)")
	}
	return readHub(source, revision)
}

// looksLikePath tells a mistyped path from a model id, so that the error
// does not send the user looking in the Hugging Face cache.
func looksLikePath(s string) bool {
	return strings.HasPrefix(s, ".") || strings.HasPrefix(s, "/") || strings.HasPrefix(s, "~") ||
		strings.HasSuffix(s, ".json") || strings.HasSuffix(s, ".gz") || strings.Count(s, "/") > 1
}

func readFolder(dir string) ([]byte, string, error) {
	for _, name := range []string{"tokenizer.json", "tokenizer.json.gz"} {
		p := filepath.Join(dir, name)
		if _, err := os.Stat(p); err == nil {
			data, err := readFile(p)
			return data, p, err
		}
	}
	return nil, "", fmt.Errorf("folder %s has no tokenizer.json", dir)
}

// readFile reads a tokenizer.json, decompressing it when it is gzip (by
// content, whatever the name).
func readFile(path string) ([]byte, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	if !bytes.HasPrefix(data, []byte{0x1f, 0x8b}) {
		return data, nil
	}
	zr, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	out, err := io.ReadAll(zr)
	if errors.Is(err, io.ErrUnexpectedEOF) {
		return nil, fmt.Errorf("%s: truncated: its gzip stream ends after %d bytes of tokenizer.json (want a complete file)", path, len(out))
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return out, nil
}
