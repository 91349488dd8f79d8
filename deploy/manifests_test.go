package deploy

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestManifestsDecodeStrictly(t *testing.T) {
	if _, err := loadManifests(); err != nil {
		t.Fatal(err)
	}
}

// The decoder these tests rely on must refuse what kubectl apply
// --validate=strict would refuse, and accept a correct object.
func TestStrictDecoderRefuses(t *testing.T) {
	const job = "apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: j\nspec:\n"
	cases := []struct {
		name, yaml, want string
	}{
		{"a valid Job", job + "  parallelism: 2\n", ""},
		{"a misspelt field", job + "  paralelism: 2\n", `unknown field "spec.paralelism"`},
		{"a duplicate field", job + "  parallelism: 2\n  parallelism: 3\n", `key "parallelism" already set`},
		{"a wrongly typed field", job + "  parallelism: two\n", "parallelism"},
		{"a kind outside deploy/k8s", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n", "not one deploy/ may hold"},
		{"a kind outside the scheme", "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: d\n", "no kind"},
		{"two objects in one file", job + "---\n" + job, "2 objects"},
		{"only comments", "# nothing\n", "0 objects"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := decodeManifest("case.yaml", []byte(c.yaml))
			switch {
			case c.want == "" && err != nil:
				t.Fatalf("refused: %v", err)
			case c.want != "" && err == nil:
				t.Fatalf("accepted, want an error containing %q", c.want)
			case c.want != "" && !strings.Contains(err.Error(), c.want):
				t.Fatalf("error %q, want it to contain %q", err, c.want)
			}
		})
	}
}

func TestKustomizationDecoderRefusesUnknownFields(t *testing.T) {
	cases := map[string]string{
		"misspelt field":    "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresource: [a.yaml]\n",
		"duplicate key":     "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources: [a.yaml]\nresources: [b.yaml]\n",
		"wrong kind":        "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Component\n",
		"unknown sub-field": "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\ngeneratorOptions:\n  disableHash: true\n",
	}
	for name, text := range cases {
		if _, err := decodeKustomization([]byte(text)); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

// kustomize fails on a missing resource; a manifest left out of resources
// would silently never be applied. merge-job.yaml is the one exception: it
// must start only after the shards are done.
func TestKustomizationListsTheShardManifests(t *testing.T) {
	m, err := loadManifests()
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"job.yaml", "pvc.yaml", "service.yaml"}
	got := slices.Sorted(slices.Values(m.kust.Resources))
	if !slices.Equal(got, want) {
		t.Errorf("resources %v, want %v (merge-job.yaml is applied after the shard Job completes)", got, want)
	}
	for _, g := range m.kust.ConfigMapGenerator {
		for _, f := range g.Files {
			if _, err := os.Stat(filepath.Join(manifestDir, f)); err != nil {
				t.Errorf("configMapGenerator %s: %v", g.Name, err)
			}
		}
	}
	if !m.kust.GeneratorOptions.DisableNameSuffixHash {
		t.Error("generatorOptions.disableNameSuffixHash is false: merge-job.yaml, applied outside kustomize, could not find the ConfigMaps")
	}
}
