package deploy

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
)

// singleNodeDir is the overlay for a one-node cluster without pod DNS or
// shared storage.
const singleNodeDir = "single-node"

// singleNode is deploy/single-node decoded.
type singleNode struct {
	kust  *kustomization
	patch *batchv1.Job
	pv    *corev1.PersistentVolume
}

func loadSingleNode(t *testing.T) *singleNode {
	t.Helper()
	read := func(name string) []byte {
		data, err := os.ReadFile(filepath.Join(singleNodeDir, name))
		if err != nil {
			t.Fatal(err)
		}
		return data
	}
	files, _ := filepath.Glob(filepath.Join(singleNodeDir, "*.yaml"))
	if len(files) != 3 {
		t.Fatalf("%s holds %v; these tests check kustomization.yaml, job-patch.yaml and pv.yaml", singleNodeDir, files)
	}
	s := &singleNode{}
	var err error
	if s.kust, err = decodeKustomization(read("kustomization.yaml")); err != nil {
		t.Fatalf("kustomization.yaml: %v", err)
	}
	// A strategic merge patch is a partial object of its kind: decoding it
	// strictly as a Job catches a misspelt or misplaced field.
	for name, into := range map[string]any{"job-patch.yaml": &s.patch, "pv.yaml": &s.pv} {
		obj, err := decodeManifest(name, read(name))
		if err != nil {
			t.Fatal(err)
		}
		switch p := into.(type) {
		case **batchv1.Job:
			*p, _ = obj.(*batchv1.Job)
		case **corev1.PersistentVolume:
			*p, _ = obj.(*corev1.PersistentVolume)
		}
	}
	if s.patch == nil || s.pv == nil {
		t.Fatal("job-patch.yaml must hold a Job and pv.yaml a PersistentVolume")
	}
	return s
}

// The overlay keeps the shards' arguments but for the barrier, which is
// shard 0 on the same node's network, listening on 127.0.0.1 only; it drops the host port that four
// hostNetwork pods on one node could not share; its volume binds the claim.
func TestSingleNodeOverlay(t *testing.T) {
	m, err := loadManifests()
	if err != nil {
		t.Fatal(err)
	}
	s := loadSingleNode(t)
	if !slices.Contains(s.kust.Resources, "../k8s") {
		t.Errorf("resources %v do not build on ../k8s", s.kust.Resources)
	}
	if s.patch.Name != m.shards.Name {
		t.Errorf("job-patch.yaml patches job %q, the shard Job is %q", s.patch.Name, m.shards.Name)
	}
	pod := s.patch.Spec.Template.Spec
	if !pod.HostNetwork || pod.DNSPolicy != corev1.DNSClusterFirstWithHostNet {
		t.Errorf("hostNetwork %v dnsPolicy %q, want true and ClusterFirstWithHostNet", pod.HostNetwork, pod.DNSPolicy)
	}
	base, _ := container(m.shards)
	c, ok := container(s.patch)
	if !ok {
		t.Fatal("job-patch.yaml: want one container named llmbench")
	}
	barrier, _ := flagValue(base.Args, "--barrier")
	_, port, _ := strings.Cut(barrier, ":")
	want := slices.Clone(base.Args)
	want[slices.Index(want, barrier)] = "127.0.0.1:" + port
	// Shard 0 listens where the others reach it, 127.0.0.1 (the node's
	// address would be open to the node's network).
	if i := slices.Index(want, "--barrier-listen"); i >= 0 {
		want = slices.Delete(want, i, i+2)
	}
	if !slices.Equal(c.Args, want) {
		t.Errorf("job-patch.yaml args %q, want the shard Job's with the barrier at 127.0.0.1 and listening there: %q", c.Args, want)
	}
	if !removesPorts(s.kust.Patches, m.shards.Name) {
		t.Error("no patch removes the container's ports: with hostNetwork they are host ports, one pod per node")
	}
	checkSingleNodeVolume(t, m.pvc, s.pv)
}

// removesPorts reports whether an inline JSON patch of the shard Job drops
// its container's ports.
func removesPorts(patches []patch, job string) bool {
	for _, p := range patches {
		if p.Target != nil && p.Target.Kind == "Job" && p.Target.Name == job &&
			strings.Contains(p.Patch, "op: remove") && strings.Contains(p.Patch, "path: /spec/template/spec/containers/0/ports") {
			return true
		}
	}
	return false
}

// checkSingleNodeVolume: the hostPath volume can bind the claim.
func checkSingleNodeVolume(t *testing.T, pvc *corev1.PersistentVolumeClaim, pv *corev1.PersistentVolume) {
	t.Helper()
	if !slices.Equal(pv.Spec.AccessModes, pvc.Spec.AccessModes) {
		t.Errorf("pv.yaml accessModes %v, the claim asks %v", pv.Spec.AccessModes, pvc.Spec.AccessModes)
	}
	if pv.Spec.StorageClassName != "" || pvc.Spec.StorageClassName != nil {
		t.Errorf("storage classes %q and %v: both unset, or they do not bind without a default class", pv.Spec.StorageClassName, pvc.Spec.StorageClassName)
	}
	have, need := pv.Spec.Capacity[corev1.ResourceStorage], pvc.Spec.Resources.Requests[corev1.ResourceStorage]
	if have.Cmp(need) < 0 {
		t.Errorf("pv.yaml capacity %s, the claim asks %s", have.String(), need.String())
	}
	if pv.Spec.HostPath == nil || pv.Spec.PersistentVolumeReclaimPolicy != corev1.PersistentVolumeReclaimRetain {
		t.Error("pv.yaml: want a hostPath volume whose results are retained")
	}
}
