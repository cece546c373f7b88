/**
 * What one pod's scheduling cycle carries across the extender's verbs, as kube-scheduler's {@code CycleState} does:
 * its {@link io.mpshare.scheduler.cycle.Ask} (what it asks, read and resolved once per verb call by
 * {@link io.mpshare.scheduler.cycle.AskReader}), and the room prioritize holds for its bind
 * ({@link io.mpshare.scheduler.cycle.PipelineHolds}, kube-scheduler's Reserve). The verbs and the binder both stand
 * on it; neither reaches into the other.
 */
package io.mpshare.scheduler.cycle;
