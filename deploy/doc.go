// Package deploy holds the Kubernetes manifests for sharded runs (k8s/) and
// the image's Dockerfile. It has no code of its own: its tests decode every
// manifest strictly with Kubernetes' own Go types and check the invariants
// that a cluster would only reveal at run time (a barrier address that does
// not resolve, shards that disagree on N, a merge that skips a shard).
//
// The Kubernetes modules are imported only by these tests, so they never
// become dependencies of the llmbench binary.
package deploy
