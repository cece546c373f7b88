/**
 * The upgrade of one node's MPS daemon as a pure state machine: {@link io.mpshare.upgrade.plan.UpgradePlan#next}
 * takes a {@link io.mpshare.upgrade.plan.NodeSnapshot} (the Node, its MPS daemon pods, its GPU pods, the progress
 * recorded on the Node, the time) and returns the one {@link io.mpshare.upgrade.plan.Step} to take next. No I/O here:
 * the {@code kube} package reads snapshots and carries steps out. Progress lives in the Node annotation
 * {@code mpshare.io/upgrade-state} ({@link io.mpshare.upgrade.plan.UpgradeState}), written before each action, so an
 * interrupted run resumes where it stopped.
 */
package io.mpshare.upgrade.plan;
