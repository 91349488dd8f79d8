#!/usr/bin/env bash
# A throw-away single-node Kubernetes cluster on this machine, offline: the
# components built from the Go module proxy, Debian's containerd, runc and
# etcd, no registry, no pod DNS, a hostPath results volume. It is how
# deploy/k8s was run on a real cluster where nothing else is reachable
# (docs/distributed.md). Needs root; everything lives under $WORK.
#
#   deploy/single-node/cluster.sh build   # once: kube-* from k8s.io/kubernetes@v$K8S_VERSION (~20 min on 2 cores)
#   deploy/single-node/cluster.sh up      # start it, import out/llmbench-image.tar (task image)
#   export KUBECONFIG=$WORK/admin.kubeconfig PATH=$WORK/bin:$PATH
#   KUSTOMIZE_DIR=deploy/single-node deploy/k8s/run.sh
#   deploy/single-node/cluster.sh down    # stop what up started
set -euo pipefail

WORK=${WORK:-/tmp/llmbench-cluster}
K8S_VERSION=${K8S_VERSION:-1.37.2}
IMAGE_TAR=${IMAGE_TAR:-out/llmbench-image.tar}
RESULTS=/var/lib/llmbench-results # pv.yaml's hostPath
PAUSE=registry.k8s.io/pause:3.10

log() { echo "cluster.sh: $*" >&2; }

# build: k8s.io/kubernetes cannot be `go install`ed (its go.mod replaces the
# staging modules with ./staging/...), so a wrapper module requires it and
# points each staging module at its published v0.X.Y instead.
build() {
  local src=$WORK/src staging
  mkdir -p "$src" "$WORK/bin"
  cd "$src"
  staging=$(go mod download -json "k8s.io/kubernetes@v$K8S_VERSION" | sed -n 's/.*"GoMod": "\(.*\)".*/\1/p')
  {
    printf 'module llmbenchcluster\n\ngo 1.26.0\n\nrequire k8s.io/kubernetes v%s\n\nreplace (\n' "$K8S_VERSION"
    awk -v v="v0.${K8S_VERSION#1.}" '$2 == "=>" && $3 ~ /^\.\/staging/ {print "\t" $1 " => " $1 " " v}' "$staging"
    printf ')\n'
  } >go.mod
  cat >tools.go <<'EOF'
//go:build tools

package tools

import (
	_ "k8s.io/kubernetes/cmd/kube-apiserver"
	_ "k8s.io/kubernetes/cmd/kube-controller-manager"
	_ "k8s.io/kubernetes/cmd/kube-scheduler"
	_ "k8s.io/kubernetes/cmd/kubectl"
	_ "k8s.io/kubernetes/cmd/kubelet"
)
EOF
  go mod tidy
  nice -n 19 go build -trimpath -ldflags=-s -o "$WORK/bin/" \
    k8s.io/kubernetes/cmd/kube-apiserver k8s.io/kubernetes/cmd/kube-controller-manager \
    k8s.io/kubernetes/cmd/kube-scheduler k8s.io/kubernetes/cmd/kubelet k8s.io/kubernetes/cmd/kubectl
  log "built $(ls "$WORK/bin" | tr '\n' ' ')"
}

# start NAME CMD...: runs CMD in the background, its pid in $WORK/NAME.pid.
start() {
  local name=$1
  shift
  nohup "$@" >"$WORK/$name.log" 2>&1 &
  echo $! >"$WORK/$name.pid"
}

# until_ok WHAT CMD...: retries CMD for a minute.
until_ok() {
  local what=$1
  shift
  for _ in $(seq 60); do
    if "$@" >/dev/null 2>&1; then return 0; fi
    sleep 1
  done
  log "$what did not come up; see $WORK/*.log"
  return 1
}

certs() {
  local p=$WORK/pki
  mkdir -p "$p"
  [ -f "$p/admin.crt" ] && return
  openssl genrsa -out "$p/ca.key" 2048
  openssl req -x509 -new -key "$p/ca.key" -subj /CN=llmbench-cluster-ca -days 30 -out "$p/ca.crt"
  openssl genrsa -out "$p/apiserver.key" 2048
  openssl req -new -key "$p/apiserver.key" -subj /CN=kube-apiserver -out "$p/apiserver.csr"
  printf 'subjectAltName=DNS:localhost,IP:127.0.0.1\nextendedKeyUsage=serverAuth\n' >"$p/apiserver.ext"
  openssl x509 -req -in "$p/apiserver.csr" -CA "$p/ca.crt" -CAkey "$p/ca.key" -CAcreateserial -days 30 \
    -extfile "$p/apiserver.ext" -out "$p/apiserver.crt"
  # One client for everything, in system:masters (authorization is AlwaysAllow anyway).
  openssl genrsa -out "$p/admin.key" 2048
  openssl req -new -key "$p/admin.key" -subj "/CN=admin/O=system:masters" -out "$p/admin.csr"
  printf 'extendedKeyUsage=clientAuth\n' >"$p/client.ext"
  openssl x509 -req -in "$p/admin.csr" -CA "$p/ca.crt" -CAkey "$p/ca.key" -CAcreateserial -days 30 \
    -extfile "$p/client.ext" -out "$p/admin.crt"
  openssl genrsa -out "$p/sa.key" 2048
  openssl rsa -in "$p/sa.key" -pubout -out "$p/sa.pub"
  cat >"$WORK/admin.kubeconfig" <<EOF
apiVersion: v1
kind: Config
clusters:
- name: local
  cluster: {server: "https://127.0.0.1:6443", certificate-authority: "$p/ca.crt"}
users:
- name: admin
  user: {client-certificate: "$p/admin.crt", client-key: "$p/admin.key"}
contexts:
- name: local
  context: {cluster: local, user: admin}
current-context: local
EOF
}

# pause: the pod sandbox image, which would come from a registry: a static
# program that waits for SIGTERM, on scratch.
pause_image() {
  ctr -n k8s.io images ls -q | grep -qx "$PAUSE" && return
  local d=$WORK/pause
  mkdir -p "$d/ctx"
  printf 'module pause\n\ngo 1.26\n' >"$d/go.mod"
  cat >"$d/main.go" <<'EOF'
// Command pause holds a pod's namespaces until the pod is stopped.
package main

import (
	"os"
	"os/signal"
	"syscall"
)

func main() {
	c := make(chan os.Signal, 1)
	signal.Notify(c, syscall.SIGINT, syscall.SIGTERM)
	<-c
}
EOF
  (cd "$d" && CGO_ENABLED=0 go build -trimpath -ldflags=-s -o ctx/pause .)
  printf 'FROM scratch\nCOPY pause /pause\nUSER 65535:65535\nENTRYPOINT ["/pause"]\n' >"$d/ctx/Dockerfile"
  buildah build --layers=false -t "$PAUSE" "$d/ctx"
  rm -f "$d/pause.tar"
  buildah push "$PAUSE" "docker-archive:$d/pause.tar:$PAUSE"
  ctr -n k8s.io images import "$d/pause.tar"
}

containerd_up() {
  mkdir -p "$WORK/cni"
  # A bridge for pods without hostNetwork (the merge pod); it sends nothing.
  cat >"$WORK/cni/10-pods.conflist" <<'EOF'
{"cniVersion": "1.0.0", "name": "pods", "plugins": [
  {"type": "bridge", "bridge": "kcni0", "isGateway": false, "ipMasq": false,
   "ipam": {"type": "host-local", "ranges": [[{"subnet": "10.88.0.0/24"}]]}},
  {"type": "loopback"}
]}
EOF
  # This sandbox withholds CAP_SYS_RESOURCE, so runc cannot lower
  # oom_score_adj (kubelet asks -998 for every pod sandbox): clamp a negative
  # oomScoreAdj to 0 before runc reads the bundle. Not needed on a real node.
  cat >"$WORK/runc" <<'EOF'
#!/bin/sh
prev=
for a in "$@"; do
  if [ "$prev" = --bundle ] || [ "$prev" = -b ]; then
    python3 -c 'import json, sys
p = sys.argv[1]; c = json.load(open(p))
if c.get("process", {}).get("oomScoreAdj", 0) < 0:
    c["process"]["oomScoreAdj"] = 0; json.dump(c, open(p, "w"))' "$a/config.json"
  fi
  prev=$a
done
exec /usr/sbin/runc "$@"
EOF
  chmod +x "$WORK/runc"
  containerd config default |
    sed -e "s|sandbox_image = .*|sandbox_image = \"$PAUSE\"|" \
      -e 's|bin_dir = "/opt/cni/bin"|bin_dir = "/usr/lib/cni"|' \
      -e "s|conf_dir = \"/etc/cni/net.d\"|conf_dir = \"$WORK/cni\"|" \
      -e "/runtimes.runc.options\]/,/SystemdCgroup/ s|BinaryName = \"\"|BinaryName = \"$WORK/runc\"|" \
      >"$WORK/containerd.toml"
  start containerd containerd --config "$WORK/containerd.toml"
  until_ok containerd ctr version
}

control_plane_up() {
  local p=$WORK/pki kc=$WORK/admin.kubeconfig b=$WORK/bin
  mkdir -p "$WORK/etcd"
  start etcd etcd --data-dir "$WORK/etcd" --listen-client-urls http://127.0.0.1:2379 \
    --advertise-client-urls http://127.0.0.1:2379 --listen-peer-urls http://127.0.0.1:2380 \
    --initial-advertise-peer-urls http://127.0.0.1:2380 --initial-cluster default=http://127.0.0.1:2380
  # Loopback only: --endpoint-reconciler-type=none because the reconciler
  # refuses a loopback advertise address; kubelets are reached by hostname
  # (this host's name resolves to 127.0.0.1 here).
  start kube-apiserver "$b/kube-apiserver" --etcd-servers=http://127.0.0.1:2379 \
    --bind-address=127.0.0.1 --secure-port=6443 --advertise-address=127.0.0.1 --endpoint-reconciler-type=none \
    --service-cluster-ip-range=10.96.0.0/24 --tls-cert-file="$p/apiserver.crt" --tls-private-key-file="$p/apiserver.key" \
    --client-ca-file="$p/ca.crt" --service-account-issuer=https://kubernetes.default.svc \
    --service-account-key-file="$p/sa.pub" --service-account-signing-key-file="$p/sa.key" \
    --authorization-mode=AlwaysAllow --kubelet-preferred-address-types=Hostname \
    --kubelet-client-certificate="$p/admin.crt" --kubelet-client-key="$p/admin.key"
  until_ok kube-apiserver "$b/kubectl" --kubeconfig "$kc" get --raw /readyz
  start kube-controller-manager "$b/kube-controller-manager" --kubeconfig="$kc" \
    --authentication-kubeconfig="$kc" --authorization-kubeconfig="$kc" --bind-address=127.0.0.1 \
    --service-account-private-key-file="$p/sa.key" --root-ca-file="$p/ca.crt" --leader-elect=false \
    --controllers='*,-nodeipam'
  start kube-scheduler "$b/kube-scheduler" --kubeconfig="$kc" --authentication-kubeconfig="$kc" \
    --authorization-kubeconfig="$kc" --bind-address=127.0.0.1 --leader-elect=false
}

kubelet_up() {
  mkdir -p "$WORK/kubelet"
  # cgroup v1 here (failCgroupV1: false), no swap check, no eviction of a
  # nearly full development disk.
  cat >"$WORK/kubelet.yaml" <<'EOF'
apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
authentication: {anonymous: {enabled: true}, webhook: {enabled: false}}
authorization: {mode: AlwaysAllow}
cgroupDriver: cgroupfs
failCgroupV1: false
failSwapOn: false
containerRuntimeEndpoint: unix:///run/containerd/containerd.sock
address: 127.0.0.1
healthzBindAddress: 127.0.0.1
readOnlyPort: 0
evictionHard: {memory.available: "100Mi", nodefs.available: "1%", imagefs.available: "1%"}
imageGCHighThresholdPercent: 100
imageGCLowThresholdPercent: 99
enforceNodeAllocatable: []
EOF
  start kubelet "$WORK/bin/kubelet" --kubeconfig="$WORK/admin.kubeconfig" --config="$WORK/kubelet.yaml" \
    --root-dir="$WORK/kubelet" --hostname-override="$(hostname)"
  until_ok "node Ready" sh -c "'$WORK/bin/kubectl' --kubeconfig '$WORK/admin.kubeconfig' get nodes \
    -o jsonpath='{.items[0].status.conditions[?(@.type==\"Ready\")].status}' | grep -qx True"
}

up() {
  [ -x "$WORK/bin/kubelet" ] || { log "no $WORK/bin/kubelet: run '$0 build' first"; exit 2; }
  mkdir -p "$WORK"
  certs
  containerd_up
  pause_image
  if [ -f "$IMAGE_TAR" ]; then ctr -n k8s.io images import "$IMAGE_TAR"; else log "no $IMAGE_TAR (task image): import the llmbench image yourself"; fi
  install -d -o 65532 -g 65532 "$RESULTS"
  control_plane_up
  kubelet_up
  "$WORK/bin/kubectl" --kubeconfig "$WORK/admin.kubeconfig" get nodes -o wide
  log "up: export KUBECONFIG=$WORK/admin.kubeconfig PATH=$WORK/bin:\$PATH"
}

# stop PID: SIGTERM, then SIGKILL if it is still there after 30 s.
stop() {
  kill "$1" 2>/dev/null || return 0
  for _ in $(seq 30); do
    kill -0 "$1" 2>/dev/null || return 0
    sleep 1
  done
  kill -KILL "$1" 2>/dev/null || true
}

# down: stops what up started (by the pids it recorded), the pods'
# containers first, and unmounts the kubelet's volumes.
down() {
  local name
  if [ -f "$WORK/kubelet.pid" ]; then stop "$(cat "$WORK/kubelet.pid")"; fi
  for id in $(ctr -n k8s.io tasks ls -q 2>/dev/null); do ctr -n k8s.io tasks kill -s KILL "$id" 2>/dev/null || true; done
  sleep 2
  for id in $(ctr -n k8s.io containers ls -q 2>/dev/null); do
    ctr -n k8s.io tasks delete "$id" 2>/dev/null || true
    ctr -n k8s.io containers delete "$id" 2>/dev/null || true
  done
  # In this order, each gone before the next: an API server whose etcd is
  # gone never finishes its graceful shutdown.
  for name in kubelet kube-scheduler kube-controller-manager kube-apiserver etcd containerd; do
    [ -f "$WORK/$name.pid" ] || continue
    stop "$(cat "$WORK/$name.pid")"
    rm -f "$WORK/$name.pid"
  done
  grep -o " $WORK/kubelet[^ ]*" /proc/mounts | sort -r | xargs -r -n1 umount 2>/dev/null || true
  # The CNI bridge and its address bookkeeping (10-pods.conflist).
  ip link delete kcni0 2>/dev/null || true
  rm -rf /var/lib/cni/networks/pods
  log "down (state kept in $WORK; rm -rf it and $RESULTS for a fresh start)"
}

case ${1:-} in
build | up | down) "$1" ;;
*)
  echo "usage: $0 build|up|down" >&2
  exit 2
  ;;
esac
