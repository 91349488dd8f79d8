package deploy

import (
	"strings"
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

func TestManifestInvariantsHold(t *testing.T) {
	m, err := loadManifests()
	if err != nil {
		t.Fatal(err)
	}
	for _, problem := range check(m) {
		t.Error(problem)
	}
}

// Each edit below breaks a run on a real cluster in a way only the run would
// show; check must name it.
func TestManifestInvariantsCatchBreakage(t *testing.T) {
	int32p := func(v int32) *int32 { return &v }
	shard := func(m *manifests) *corev1.Container { return &m.shards.Spec.Template.Spec.Containers[0] }
	merge := func(m *manifests) *corev1.Container { return &m.merge.Spec.Template.Spec.Containers[0] }
	setArg := func(c *corev1.Container, flag, value string) {
		for i, a := range c.Args {
			if a == flag {
				c.Args[i+1] = value
			}
		}
	}
	cases := []struct {
		name string
		edit func(*manifests)
		want string
	}{
		{"parallelism below completions", func(m *manifests) { m.shards.Spec.Parallelism = int32p(3) }, "parallelism 3 != completions 4"},
		{"NonIndexed", func(m *manifests) { mode := batchv1.NonIndexedCompletion; m.shards.Spec.CompletionMode = &mode }, "not Indexed"},
		{"retries", func(m *manifests) { m.shards.Spec.BackoffLimit = int32p(6) }, "backoffLimit 6"},
		{"no pod failure policy", func(m *manifests) { m.shards.Spec.PodFailurePolicy = nil }, "podFailurePolicy"},
		{"N of --shard not completions", func(m *manifests) { setArg(shard(m), "--shard", "$(JOB_COMPLETION_INDEX)/2") }, "--shard"},
		{"one folder for all shards", func(m *manifests) { setArg(shard(m), "--out", "/results/run") }, "does not name $(JOB_COMPLETION_INDEX)"},
		{"another subdomain", func(m *manifests) { m.shards.Spec.Template.Spec.Subdomain = "shards" }, "subdomain"},
		{"a ClusterIP service", func(m *manifests) { m.service.Spec.ClusterIP = "" }, "clusterIP"},
		{"selector misses the pods", func(m *manifests) { m.service.Spec.Selector["app.kubernetes.io/component"] = "worker" }, "does not select"},
		{"selector takes the merge pod too", func(m *manifests) { delete(m.service.Spec.Selector, "app.kubernetes.io/component") }, "also selects the merge pod"},
		{"barrier at shard 1", func(m *manifests) { setArg(shard(m), "--barrier", "llmbench-shard-1.llmbench-shard:7480") }, "--barrier"},
		{"barrier port not declared", func(m *manifests) { setArg(shard(m), "--barrier", "llmbench-shard-0.llmbench-shard:9999") }, "not a containerPort"},
		{"service port elsewhere", func(m *manifests) { m.service.Spec.Ports[0].TargetPort = intstr.FromInt32(8080) }, "service.yaml: port barrier"},
		{"merge skips a shard", func(m *manifests) { merge(m).Args = append([]string{"merge"}, merge(m).Args[2:]...) }, "want every shard folder"},
		{"merge over a shard folder", func(m *manifests) { setArg(merge(m), "--out", "/results/shard-0") }, "a folder of its own"},
		{"merge without the scenario", func(m *manifests) { setArg(merge(m), "--scenario", "/tmp/other.star") }, "--scenario"},
		{"merge image differs", func(m *manifests) { merge(m).Image = "llmbench:old" }, "image"},
		{"ReadWriteOnce", func(m *manifests) {
			m.pvc.Spec.AccessModes = []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce}
		}, "want [ReadWriteMany]"},
		{"results mounted read-only", func(m *manifests) { merge(m).VolumeMounts[0].ReadOnly = true }, "merge-job.yaml: does not mount claim"},
		{"writes outside the volume", func(m *manifests) { setArg(shard(m), "--out", "/data/shard-$(JOB_COMPLETION_INDEX)") }, "outside the results volume"},
		{"scenario not in the ConfigMap", func(m *manifests) { shard(m).Args[1] = "/scenario/other.star" }, "not a file of ConfigMap"},
		{"no target", func(m *manifests) { merge(m).EnvFrom = nil }, "LLM_URL"},
		{"root", func(m *manifests) { m.shards.Spec.Template.Spec.SecurityContext.RunAsUser = new(int64) }, "runAsNonRoot"},
		{"writable root", func(m *manifests) { f := false; shard(m).SecurityContext.ReadOnlyRootFilesystem = &f }, "readOnlyRootFilesystem"},
		{"no /tmp", func(m *manifests) { shard(m).VolumeMounts = shard(m).VolumeMounts[:2] }, "/tmp"},
		{"no requests", func(m *manifests) { merge(m).Resources.Requests = nil }, "requests"},
		{"no token", func(m *manifests) { shard(m).Env = withoutEnv(shard(m).Env, tokenVar) }, "no LLMBENCH_BARRIER_TOKEN"},
		{"a literal token", func(m *manifests) {
			shard(m).Env = append(withoutEnv(shard(m).Env, tokenVar), corev1.EnvVar{Name: tokenVar, Value: "0123456789abcdef"})
		}, "not taken from a Secret"},
		{"a token on the command line", func(m *manifests) { shard(m).Args = append(shard(m).Args, "--barrier-token", "x") }, "--barrier-token in args"},
		{"another Secret", func(m *manifests) {
			for i := range shard(m).Env {
				if e := &shard(m).Env[i]; e.Name == tokenVar {
					e.ValueFrom.SecretKeyRef.Name = "other"
				}
			}
		}, "want llmbench-barrier key token"},
		{"shard 0 on every interface", func(m *manifests) { setArg(shard(m), "--barrier-listen", ":7480") }, "--barrier-listen"},
		{"shard 0 on another port", func(m *manifests) { setArg(shard(m), "--barrier-listen", "[$(POD_IP)]:7481") }, "--barrier-listen"},
		{"no POD_IP", func(m *manifests) { shard(m).Env = withoutEnv(shard(m).Env, "POD_IP") }, "POD_IP"},
		{"the merge gets the token", func(m *manifests) {
			merge(m).Env = append(merge(m).Env, corev1.EnvVar{Name: tokenVar, Value: "x"})
		}, "needs no token"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m, err := loadManifests()
			if err != nil {
				t.Fatal(err)
			}
			c.edit(m)
			got := check(m)
			for _, problem := range got {
				if strings.Contains(problem, c.want) {
					return
				}
			}
			t.Fatalf("check found %q, want a problem containing %q", got, c.want)
		})
	}
}

// withoutEnv is env without the variable name.
func withoutEnv(env []corev1.EnvVar, name string) []corev1.EnvVar {
	var out []corev1.EnvVar
	for _, e := range env {
		if e.Name != name {
			out = append(out, e)
		}
	}
	return out
}
