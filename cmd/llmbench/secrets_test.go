package main

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Credentials given in a header, in the URL's user info or query, or in the
// endpoint path's query are used for the requests and reach no artifact.
func TestCredentialsReachNoArtifact(t *testing.T) {
	dir := t.TempDir()
	r := runCLI(t, dir, "profile", "-m", "m", "-u", "sim://", "--streaming", "--request-count", "4",
		"--endpoint", "/v1/chat/completions?api_key=SECRET-PATH", "-H", "Authorization: Bearer SECRET-HEADER",
		"--generate-plots")
	if r.code != 0 {
		t.Fatalf("profile: exit %d\n%s", r.code, r.stderr)
	}
	for _, out := range []string{r.stdout, r.stderr} {
		if strings.Contains(out, "SECRET") {
			t.Errorf("a credential reached the console:\n%s", out)
		}
	}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(path)
		if err == nil && strings.Contains(string(b), "SECRET") {
			t.Errorf("%s holds a credential", path)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}
