/**
 * The fabric8 adapter of {@code upgrade-node}: {@link io.mpshare.upgrade.kube.KubeNode} reads a
 * {@link io.mpshare.upgrade.plan.NodeSnapshot} from the API server and carries out one
 * {@link io.mpshare.upgrade.plan.Step} (a Node merge patch, a pod delete, evictions);
 * {@link io.mpshare.upgrade.kube.NodeUpgrader} loops snapshot → plan → act until the plan finishes, is blocked or
 * times out; {@link io.mpshare.upgrade.kube.FleetUpgrade} runs it over many nodes with a concurrency limit.
 */
package io.mpshare.upgrade.kube;
