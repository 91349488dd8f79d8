package deploy

import (
	"path"
	"slices"
	"strings"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
)

// checkVolumes: one ReadWriteMany results volume that both Jobs mount
// writable and write under, the scenario from the generated ConfigMap, the
// target from the other one.
func checkVolumes(m *manifests, p *problems) {
	if modes := m.pvc.Spec.AccessModes; !slices.Equal(modes, []corev1.PersistentVolumeAccessMode{corev1.ReadWriteMany}) {
		p.addf("pvc.yaml: accessModes %v, want [ReadWriteMany]: N shard pods on several nodes and the merge share it", modes)
	}
	for _, job := range []*batchv1.Job{m.shards, m.merge} {
		file := fileOf(m, job)
		c, ok := container(job)
		if !ok {
			continue
		}
		results, ok := mountOf(job, c, func(v corev1.Volume) bool {
			return v.PersistentVolumeClaim != nil && v.PersistentVolumeClaim.ClaimName == m.pvc.Name
		})
		if !ok || results.ReadOnly {
			p.addf("%s: does not mount claim %s writable", file, m.pvc.Name)
		}
		for _, dir := range outputs(job, c) {
			if !ok || !under(dir, results.MountPath) {
				p.addf("%s: writes %s outside the results volume (%s)", file, dir, results.MountPath)
			}
		}
		checkScenarioMount(m, job, c, p)
		checkTarget(m, c, file, p)
	}
}

// outputs are the folders a Job's container writes (its --out) and the
// folders it reads from the results volume (merge's inputs).
func outputs(job *batchv1.Job, c corev1.Container) []string {
	dirs := []string{}
	if out, ok := flagValue(c.Args, "--out"); ok {
		dirs = append(dirs, out)
	}
	if len(c.Args) > 0 && c.Args[0] == "merge" {
		dirs = append(dirs, positional(c.Args[1:])...)
	}
	return dirs
}

// checkScenarioMount: the scenario path in the args is the generated
// ConfigMap's file, mounted read-only.
func checkScenarioMount(m *manifests, job *batchv1.Job, c corev1.Container, p *problems) {
	file := fileOf(m, job)
	scenario := scenarioArg(c)
	var gen configMapSource
	mount, ok := mountOf(job, c, func(v corev1.Volume) bool {
		if v.ConfigMap == nil {
			return false
		}
		g, found := m.kust.generator(v.ConfigMap.Name)
		gen = g
		return found && len(g.Files) > 0
	})
	if !ok {
		p.addf("%s: mounts no ConfigMap from kustomization.yaml's configMapGenerator files", file)
		return
	}
	want := []string{}
	for _, f := range gen.Files {
		want = append(want, path.Join(mount.MountPath, path.Base(f)))
	}
	if !slices.Contains(want, scenario) {
		p.addf("%s: scenario %q is not a file of ConfigMap %s (%v)", file, scenario, gen.Name, want)
	}
	if !mount.ReadOnly {
		p.addf("%s: the scenario ConfigMap is mounted writable", file)
	}
}

// scenarioArg is the scenario path: run's first argument, merge's
// --scenario.
func scenarioArg(c corev1.Container) string {
	if v, ok := flagValue(c.Args, "--scenario"); ok {
		return v
	}
	if len(c.Args) > 1 {
		return c.Args[1]
	}
	return ""
}

// checkTarget: the variables the scenario reads come from a generated
// ConfigMap that sets LLM_URL.
func checkTarget(m *manifests, c corev1.Container, file string, p *problems) {
	for _, from := range c.EnvFrom {
		if from.ConfigMapRef == nil {
			continue
		}
		g, ok := m.kust.generator(from.ConfigMapRef.Name)
		if ok && slices.ContainsFunc(g.Literals, func(l string) bool { return strings.HasPrefix(l, "LLM_URL=") }) {
			return
		}
	}
	p.addf("%s: no envFrom ConfigMap of kustomization.yaml sets LLM_URL, which the scenario needs", file)
}

// mountOf finds the volume that match accepts and the container's mount of
// it.
func mountOf(job *batchv1.Job, c corev1.Container, match func(corev1.Volume) bool) (corev1.VolumeMount, bool) {
	for _, v := range job.Spec.Template.Spec.Volumes {
		if !match(v) {
			continue
		}
		for _, vm := range c.VolumeMounts {
			if vm.Name == v.Name {
				return vm, true
			}
		}
	}
	return corev1.VolumeMount{}, false
}

// checkPodSecurity: non-root, read-only root file system with every written
// path on a volume, no privilege escalation, resources stated.
func checkPodSecurity(job *batchv1.Job, file string, p *problems) {
	pod := job.Spec.Template.Spec.SecurityContext
	if pod == nil || pod.RunAsNonRoot == nil || !*pod.RunAsNonRoot || pod.RunAsUser == nil || *pod.RunAsUser == 0 {
		p.addf("%s: the pod is not runAsNonRoot with a non-zero runAsUser", file)
	}
	c, ok := container(job)
	if !ok {
		return
	}
	sc := c.SecurityContext
	if sc == nil || sc.ReadOnlyRootFilesystem == nil || !*sc.ReadOnlyRootFilesystem {
		p.addf("%s: readOnlyRootFilesystem is not true", file)
	}
	if sc == nil || sc.AllowPrivilegeEscalation == nil || *sc.AllowPrivilegeEscalation {
		p.addf("%s: allowPrivilegeEscalation is not false", file)
	}
	if _, ok := mountOf(job, c, func(v corev1.Volume) bool { return v.EmptyDir != nil }); !ok ||
		!slices.ContainsFunc(c.VolumeMounts, func(vm corev1.VolumeMount) bool { return vm.MountPath == "/tmp" }) {
		p.addf("%s: no emptyDir at /tmp ($HOME and temporary files, the root file system being read-only)", file)
	}
	r := c.Resources
	if r.Requests.Cpu().IsZero() || r.Requests.Memory().IsZero() || r.Limits.Memory().IsZero() {
		p.addf("%s: want cpu and memory requests and a memory limit", file)
	}
	if job.Labels["app.kubernetes.io/name"] != "llmbench" || job.Spec.Template.Labels["app.kubernetes.io/name"] != "llmbench" {
		p.addf("%s: the Job or its pods lack app.kubernetes.io/name=llmbench", file)
	}
}

// fileOf names the file a Job came from, for messages.
func fileOf(m *manifests, job *batchv1.Job) string {
	if job == m.merge {
		return "merge-job.yaml"
	}
	return "job.yaml"
}
