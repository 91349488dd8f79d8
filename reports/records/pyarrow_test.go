package records

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"testing"
)

// needPyarrow returns the python3 that imports pyarrow. pyarrow alone is
// what .ci/run installs, so the scripts run with it must not need pandas
// or numpy (e.g. no as_py() on nanosecond timestamps).
func needPyarrow(t *testing.T) string {
	t.Helper()
	py, err := exec.LookPath("python3")
	if err != nil {
		missingTool(t, "python3 not found")
	}
	if out, err := exec.Command(py, "-c", "import pyarrow.parquet").CombinedOutput(); err != nil {
		missingTool(t, "pyarrow not importable by "+py+" (pip install pyarrow): "+lastLine(out))
	}
	return py
}

// missingTool skips a test whose outside tool is missing, except under
// CI=true: .ci/run installs the tool there, so its absence means the
// install failed, which must fail the run rather than hide behind a skip.
func missingTool(t *testing.T, why string) {
	t.Helper()
	if os.Getenv("CI") == "true" {
		t.Fatalf("independent-reader check: %s; under CI=true .ci/run should have installed it", why)
	}
	t.Skipf("independent-reader check skipped: %s", why)
}

// lastLine is the last non-empty line of a command's output: the error
// of a Python traceback.
func lastLine(out []byte) string {
	lines := bytes.Split(bytes.TrimSpace(out), []byte("\n"))
	return string(lines[len(lines)-1])
}

// runPython runs script with py and returns its standard output, failing
// the test with the script's standard error when it fails.
func runPython(t *testing.T, py, script string, args ...string) []byte {
	t.Helper()
	out, err := exec.Command(py, append([]string{"-c", script}, args...)...).Output()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			t.Fatalf("python: %v\n%s", err, ee.Stderr)
		}
		t.Fatalf("python: %v", err)
	}
	return out
}
