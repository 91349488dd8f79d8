package deploy

import (
	"fmt"
	"path"
	"slices"
	"strconv"
	"strings"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
)

// indexVar is the variable the Job controller sets in every pod of an
// Indexed Job; Kubernetes expands $(indexVar) in args.
const indexVar = "$(JOB_COMPLETION_INDEX)"

// problems collects what is wrong with the manifests, one sentence each.
type problems []string

func (p *problems) addf(format string, args ...any) { *p = append(*p, fmt.Sprintf(format, args...)) }

// check runs every invariant on m.
func check(m *manifests) problems {
	var p problems
	checkShardJob(m, &p)
	checkService(m, &p)
	checkBarrier(m, &p)
	checkBarrierToken(m, &p)
	checkMerge(m, &p)
	checkVolumes(m, &p)
	for _, job := range []*batchv1.Job{m.shards, m.merge} {
		checkPodSecurity(job, fileOf(m, job), &p)
	}
	return p
}

// checkShardJob: one pod per shard, all at once, never retried.
func checkShardJob(m *manifests, p *problems) {
	spec := m.shards.Spec
	if spec.CompletionMode == nil || *spec.CompletionMode != batchv1.IndexedCompletion {
		p.addf("job.yaml: completionMode is not Indexed: pods would get no JOB_COMPLETION_INDEX")
	}
	if spec.Completions == nil || spec.Parallelism == nil || *spec.Completions != *spec.Parallelism {
		p.addf("job.yaml: parallelism %s != completions %s: shards not all running at once never pass the barrier",
			ptrString(spec.Parallelism), ptrString(spec.Completions))
	}
	if spec.BackoffLimit == nil || *spec.BackoffLimit != 0 {
		p.addf("job.yaml: backoffLimit %s, want 0: a retried shard starts after the shared instant", ptrString(spec.BackoffLimit))
	}
	if !failsJobOnNonZeroExit(spec.PodFailurePolicy) {
		p.addf("job.yaml: podFailurePolicy has no FailJob rule for a non-zero exit of container llmbench")
	}
	if spec.Template.Spec.RestartPolicy != corev1.RestartPolicyNever {
		p.addf("job.yaml: restartPolicy %q, want Never (a restarted container re-runs its share late)", spec.Template.Spec.RestartPolicy)
	}
	c, ok := container(m.shards)
	if !ok {
		p.addf("job.yaml: want one container named llmbench")
		return
	}
	if len(c.Args) < 2 || c.Args[0] != "run" {
		p.addf("job.yaml: args %q, want run SCENARIO ...", c.Args)
	}
	if v, _ := flagValue(c.Args, "--shard"); spec.Completions != nil && v != indexVar+"/"+strconv.Itoa(int(*spec.Completions)) {
		p.addf("job.yaml: --shard %q, want %s/%d (N = completions)", v, indexVar, *spec.Completions)
	}
	if out, _ := flagValue(c.Args, "--out"); !strings.Contains(out, indexVar) {
		p.addf("job.yaml: --out %q does not name %s: shards would write into one folder", out, indexVar)
	}
	for _, e := range c.Env {
		if e.Name == "JOB_COMPLETION_INDEX" {
			p.addf("job.yaml: env sets JOB_COMPLETION_INDEX, hiding the Job controller's")
		}
	}
}

// failsJobOnNonZeroExit reports whether the policy ends the Job when
// container llmbench exits with anything but 0.
func failsJobOnNonZeroExit(policy *batchv1.PodFailurePolicy) bool {
	if policy == nil {
		return false
	}
	for _, r := range policy.Rules {
		e := r.OnExitCodes
		if r.Action == batchv1.PodFailurePolicyActionFailJob && e != nil &&
			e.Operator == batchv1.PodFailurePolicyOnExitCodesOpNotIn && slices.Equal(e.Values, []int32{0}) &&
			(e.ContainerName == nil || *e.ContainerName == "llmbench") {
			return true
		}
	}
	return false
}

// checkService: headless, publishing shards before readiness, selecting the
// shard pods and only them.
func checkService(m *manifests, p *problems) {
	s := m.service.Spec
	if s.ClusterIP != corev1.ClusterIPNone {
		p.addf("service.yaml: clusterIP %q, want None (headless: per-pod DNS names)", s.ClusterIP)
	}
	if !s.PublishNotReadyAddresses {
		p.addf("service.yaml: publishNotReadyAddresses is false: shard 0's name may not resolve when the others start")
	}
	if m.shards.Spec.Template.Spec.Subdomain != m.service.Name {
		p.addf("job.yaml: subdomain %q, want the headless Service's name %q", m.shards.Spec.Template.Spec.Subdomain, m.service.Name)
	}
	if len(s.Selector) == 0 || !selects(s.Selector, m.shards.Spec.Template.Labels) {
		p.addf("service.yaml: selector %v does not select the shard pods' labels %v", s.Selector, m.shards.Spec.Template.Labels)
	}
	if selects(s.Selector, m.merge.Spec.Template.Labels) {
		p.addf("service.yaml: selector %v also selects the merge pod", s.Selector)
	}
}

// selects reports whether every key=value of selector is among labels.
func selects(selector, labels map[string]string) bool {
	for k, v := range selector {
		if labels[k] != v {
			return false
		}
	}
	return true
}

// checkBarrier: --barrier names shard 0's stable DNS name and the port shard
// 0 listens on, declared on the container and in the Service.
func checkBarrier(m *manifests, p *problems) {
	c, _ := container(m.shards)
	addr, _ := flagValue(c.Args, "--barrier")
	host, port, ok := strings.Cut(addr, ":")
	if want := m.shards.Name + "-0." + m.service.Name; !ok || host != want {
		p.addf("job.yaml: --barrier %q, want %s:PORT (shard 0's pod hostname in the headless Service)", addr, want)
	}
	var declared []string
	for _, cp := range c.Ports {
		declared = append(declared, strconv.Itoa(int(cp.ContainerPort)))
		if cp.Name == "barrier" && strconv.Itoa(int(cp.ContainerPort)) != port {
			p.addf("job.yaml: containerPort barrier %d, want the --barrier port %s", cp.ContainerPort, port)
		}
	}
	if !slices.Contains(declared, port) {
		p.addf("job.yaml: --barrier port %q is not a containerPort (%v)", port, declared)
	}
	for _, sp := range m.service.Spec.Ports {
		target := sp.TargetPort.String()
		if sp.Name == "barrier" && (strconv.Itoa(int(sp.Port)) != port || (target != "barrier" && target != port)) {
			p.addf("service.yaml: port barrier %d -> %s, want %s -> barrier", sp.Port, target, port)
		}
	}
}

// tokenVar is where llmbench reads the barrier's shared token.
const tokenVar = "LLMBENCH_BARRIER_TOKEN"

// checkBarrierToken: the shards take the barrier's token from a Secret,
// never from a literal in a manifest or from a command line that every
// reader of the pod spec sees; shard 0 listens on its pod's address (the
// --barrier port), not on every interface; the merge gets no token.
func checkBarrierToken(m *manifests, p *problems) {
	c, _ := container(m.shards)
	if _, ok := flagValue(c.Args, "--barrier-token"); ok {
		p.addf("job.yaml: --barrier-token in args: the token would be in the pod spec for all to read; use %s from a Secret", tokenVar)
	}
	token, ok := envVar(c, tokenVar)
	switch {
	case !ok:
		p.addf("job.yaml: no %s: a barrier off loopback refuses to run without a token", tokenVar)
	case token.Value != "" || token.ValueFrom == nil || token.ValueFrom.SecretKeyRef == nil:
		p.addf("job.yaml: %s is not taken from a Secret (secretKeyRef)", tokenVar)
	case token.ValueFrom.SecretKeyRef.Name != barrierSecret || token.ValueFrom.SecretKeyRef.Key != "token":
		p.addf("job.yaml: %s from Secret %s key %s, want %s key token (the one run.sh creates)",
			tokenVar, token.ValueFrom.SecretKeyRef.Name, token.ValueFrom.SecretKeyRef.Key, barrierSecret)
	}
	barrier, _ := flagValue(c.Args, "--barrier")
	_, port, _ := strings.Cut(barrier, ":")
	if listen, _ := flagValue(c.Args, "--barrier-listen"); listen != "[$(POD_IP)]:"+port {
		p.addf("job.yaml: --barrier-listen %q, want [$(POD_IP)]:%s (shard 0's pod address and the --barrier port)", listen, port)
	}
	if ip, ok := envVar(c, "POD_IP"); !ok || ip.ValueFrom == nil || ip.ValueFrom.FieldRef == nil || ip.ValueFrom.FieldRef.FieldPath != "status.podIP" {
		p.addf("job.yaml: POD_IP is not the downward API's status.podIP")
	}
	if mc, _ := container(m.merge); hasEnv(mc, tokenVar) {
		p.addf("merge-job.yaml: sets %s: the merge meets no one and needs no token", tokenVar)
	}
}

// barrierSecret is the Secret holding the barrier's token.
const barrierSecret = "llmbench-barrier"

// envVar finds a container's variable by name.
func envVar(c corev1.Container, name string) (corev1.EnvVar, bool) {
	for _, e := range c.Env {
		if e.Name == name {
			return e, true
		}
	}
	return corev1.EnvVar{}, false
}

func hasEnv(c corev1.Container, name string) bool { _, ok := envVar(c, name); return ok }

// checkMerge: one merge of exactly the N shard folders, judged with the
// shards' scenario, never retried.
func checkMerge(m *manifests, p *problems) {
	c, ok := container(m.merge)
	if !ok {
		p.addf("merge-job.yaml: want one container named llmbench")
		return
	}
	if len(c.Args) == 0 || c.Args[0] != "merge" {
		p.addf("merge-job.yaml: args %q, want merge DIR...", c.Args)
		return
	}
	shard, _ := container(m.shards)
	out, _ := flagValue(shard.Args, "--out")
	var want []string
	if m.shards.Spec.Completions != nil {
		for i := range int(*m.shards.Spec.Completions) {
			want = append(want, strings.ReplaceAll(out, indexVar, strconv.Itoa(i)))
		}
	}
	if got := positional(c.Args[1:]); !slices.Equal(got, want) {
		p.addf("merge-job.yaml: merges %q, want every shard folder %q", got, want)
	}
	if merged, _ := flagValue(c.Args, "--out"); merged == "" || slices.Contains(want, merged) {
		p.addf("merge-job.yaml: --out %q, want a folder of its own", merged)
	}
	scenario, _ := flagValue(c.Args, "--scenario")
	if len(shard.Args) < 2 || scenario != shard.Args[1] {
		p.addf("merge-job.yaml: --scenario %q, want the shards' scenario %q", scenario, shard.Args[1:2])
	}
	if b := m.merge.Spec.BackoffLimit; b == nil || *b != 0 {
		p.addf("merge-job.yaml: backoffLimit %s, want 0 (its exit code is the verdict)", ptrString(b))
	}
	if m.merge.Spec.Template.Spec.RestartPolicy != corev1.RestartPolicyNever {
		p.addf("merge-job.yaml: restartPolicy %q, want Never", m.merge.Spec.Template.Spec.RestartPolicy)
	}
	if shard.Image != c.Image {
		p.addf("merge-job.yaml: image %q, the shards run %q", c.Image, shard.Image)
	}
}

// positional returns the arguments before the first flag.
func positional(args []string) []string {
	for i, a := range args {
		if strings.HasPrefix(a, "-") {
			return args[:i]
		}
	}
	return args
}

// container returns a Job's only container, which must be named llmbench.
func container(job *batchv1.Job) (corev1.Container, bool) {
	cs := job.Spec.Template.Spec.Containers
	if len(cs) != 1 || cs[0].Name != "llmbench" {
		return corev1.Container{}, false
	}
	return cs[0], true
}

// flagValue finds --flag VALUE or --flag=VALUE in args.
func flagValue(args []string, flag string) (string, bool) {
	for i, a := range args {
		if a == flag && i+1 < len(args) {
			return args[i+1], true
		}
		if v, ok := strings.CutPrefix(a, flag+"="); ok {
			return v, true
		}
	}
	return "", false
}

// under reports whether p is dir or inside it.
func under(p, dir string) bool {
	rel := strings.TrimPrefix(path.Clean(p), path.Clean(dir))
	return rel == "" || (len(rel) < len(path.Clean(p)) && strings.HasPrefix(rel, "/"))
}

func ptrString(v *int32) string {
	if v == nil {
		return "unset"
	}
	return strconv.Itoa(int(*v))
}
