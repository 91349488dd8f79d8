package deploy

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// run.sh creates the Secret the shards read their barrier token from,
// with a fresh random value, and passes it through a pipe only: a token on
// kubectl's command line (--from-literal) would show in ps.
func TestRunScriptCreatesTheBarrierSecret(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(manifestDir, "run.sh"))
	if err != nil {
		t.Fatal(err)
	}
	script := string(b)
	for _, want := range []string{"name: " + barrierSecret, "stringData:", "token: %s", "/dev/urandom", "apply -f -"} {
		if !strings.Contains(script, want) {
			t.Errorf("run.sh does not hold %q: it must create Secret %s with a random token", want, barrierSecret)
		}
	}
	if strings.Contains(script, "--from-literal") {
		t.Error("run.sh passes a Secret value on a command line (--from-literal)")
	}
	apply := strings.Index(script, `k apply -k "$kustomize_dir"`)
	secret := strings.LastIndex(script[:max(apply, 0)], "barrier_secret")
	if apply < 0 || secret < 0 {
		t.Error("run.sh does not create the barrier Secret before it applies the shard Job")
	}
}
