package deploy

import (
	"bytes"
	"encoding/json"
	"fmt"

	"sigs.k8s.io/yaml"
)

// kustomization is the part of kustomize's Kustomization that
// deploy/k8s/kustomization.yaml uses. It is decoded strictly, so a field
// outside this subset (a typo, or a feature these tests do not check) is an
// error rather than something kustomize would read and these tests would
// not.
type kustomization struct {
	APIVersion         string            `json:"apiVersion"`
	Kind               string            `json:"kind"`
	Resources          []string          `json:"resources"`
	Patches            []patch           `json:"patches"`
	ConfigMapGenerator []configMapSource `json:"configMapGenerator"`
	GeneratorOptions   struct {
		DisableNameSuffixHash bool `json:"disableNameSuffixHash"`
	} `json:"generatorOptions"`
}

// patch is one patches entry: a file or an inline patch, and its target.
type patch struct {
	Path   string `json:"path"`
	Patch  string `json:"patch"`
	Target *struct {
		Kind string `json:"kind"`
		Name string `json:"name"`
	} `json:"target"`
}

// configMapSource is one configMapGenerator entry.
type configMapSource struct {
	Name     string   `json:"name"`
	Behavior string   `json:"behavior"`
	Files    []string `json:"files"`
	Literals []string `json:"literals"`
}

// decodeKustomization converts YAML to JSON (duplicate keys are errors) and
// decodes it with unknown fields refused.
func decodeKustomization(data []byte) (*kustomization, error) {
	js, err := yaml.YAMLToJSONStrict(data)
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(js))
	dec.DisallowUnknownFields()
	var k kustomization
	if err := dec.Decode(&k); err != nil {
		return nil, err
	}
	if k.APIVersion != "kustomize.config.k8s.io/v1beta1" || k.Kind != "Kustomization" {
		return nil, fmt.Errorf("apiVersion %q kind %q, want kustomize.config.k8s.io/v1beta1 Kustomization", k.APIVersion, k.Kind)
	}
	return &k, nil
}

// generator returns the configMapGenerator entry called name.
func (k *kustomization) generator(name string) (configMapSource, bool) {
	for _, g := range k.ConfigMapGenerator {
		if g.Name == name {
			return g, true
		}
	}
	return configMapSource{}, false
}
