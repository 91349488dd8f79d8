package deploy

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer/json"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
)

// manifestDir is the folder kustomize and kubectl read.
const manifestDir = "k8s"

// knownKinds are the only kinds deploy/ may hold: anything else is a typo
// or a kind these tests do not check.
var knownKinds = map[schema.GroupVersionKind]bool{
	corev1.SchemeGroupVersion.WithKind("Service"):               true,
	corev1.SchemeGroupVersion.WithKind("PersistentVolume"):      true,
	corev1.SchemeGroupVersion.WithKind("PersistentVolumeClaim"): true,
	batchv1.SchemeGroupVersion.WithKind("Job"):                  true,
}

// strictCodec decodes YAML with apimachinery's strict serializer, the one
// the API server uses for fieldValidation=Strict: unknown and duplicate
// fields are errors, not silently dropped.
func strictCodec() runtime.Decoder {
	scheme := runtime.NewScheme()
	if err := corev1.AddToScheme(scheme); err != nil {
		panic(err)
	}
	if err := batchv1.AddToScheme(scheme); err != nil {
		panic(err)
	}
	return json.NewSerializerWithOptions(json.DefaultMetaFactory, scheme, scheme,
		json.SerializerOptions{Yaml: true, Strict: true})
}

// decodeManifest decodes one file that must hold exactly one object of a
// known kind.
func decodeManifest(name string, data []byte) (runtime.Object, error) {
	docs, err := splitDocuments(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if len(docs) != 1 {
		return nil, fmt.Errorf("%s: %d objects, want exactly one per file", name, len(docs))
	}
	obj, gvk, err := strictCodec().Decode(docs[0], nil, nil)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if !knownKinds[*gvk] {
		return nil, fmt.Errorf("%s: kind %s is not one deploy/ may hold", name, gvk)
	}
	return obj, nil
}

// splitDocuments cuts a YAML stream at its --- separators, dropping
// documents that are only comments or blank.
func splitDocuments(data []byte) ([][]byte, error) {
	reader := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(data)))
	var docs [][]byte
	for {
		doc, err := reader.Read()
		if errors.Is(err, io.EOF) {
			return docs, nil
		}
		if err != nil {
			return nil, err
		}
		if hasContent(doc) {
			docs = append(docs, doc)
		}
	}
}

// hasContent reports whether a YAML document has a line that is neither
// blank nor a comment.
func hasContent(doc []byte) bool {
	for _, line := range bytes.Split(doc, []byte("\n")) {
		line = bytes.TrimSpace(line)
		if len(line) > 0 && line[0] != '#' && !bytes.Equal(line, []byte("---")) {
			return true
		}
	}
	return false
}

// manifests is deploy/k8s decoded: one field per file.
type manifests struct {
	service *corev1.Service
	pvc     *corev1.PersistentVolumeClaim
	shards  *batchv1.Job
	merge   *batchv1.Job
	kust    *kustomization
}

// loadManifests decodes every YAML file of deploy/k8s and fails on one
// these tests do not know, so a new manifest cannot go unchecked.
func loadManifests() (*manifests, error) {
	files, err := filepath.Glob(filepath.Join(manifestDir, "*.yaml"))
	if err != nil {
		return nil, err
	}
	m := &manifests{}
	for _, path := range files {
		if err := m.load(path); err != nil {
			return nil, err
		}
	}
	if m.service == nil || m.pvc == nil || m.shards == nil || m.merge == nil || m.kust == nil {
		return nil, fmt.Errorf("%s: want kustomization.yaml, service.yaml, pvc.yaml, job.yaml and merge-job.yaml, have %v", manifestDir, files)
	}
	return m, nil
}

// load decodes one file into the field its name says.
func (m *manifests) load(path string) error {
	name := filepath.Base(path)
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	if name == "kustomization.yaml" {
		m.kust, err = decodeKustomization(data)
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		return nil
	}
	obj, err := decodeManifest(name, data)
	if err != nil {
		return err
	}
	var ok bool
	switch name {
	case "service.yaml":
		m.service, ok = obj.(*corev1.Service)
	case "pvc.yaml":
		m.pvc, ok = obj.(*corev1.PersistentVolumeClaim)
	case "job.yaml":
		m.shards, ok = obj.(*batchv1.Job)
	case "merge-job.yaml":
		m.merge, ok = obj.(*batchv1.Job)
	default:
		return fmt.Errorf("%s: a manifest these tests do not check; teach manifests.load about it", name)
	}
	if !ok {
		return fmt.Errorf("%s: holds a %T, not the kind its name says", name, obj)
	}
	return nil
}
