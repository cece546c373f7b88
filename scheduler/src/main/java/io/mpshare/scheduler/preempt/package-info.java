/**
 * Preemption that frees the right GPU: the extender's {@code preempt} verb ({@link io.mpshare.scheduler.preempt.PreemptVerb};
 * its JSON, {@code ExtenderPreemptionArgs} → {@code ExtenderPreemptionResult}, is the HTTP adapter's) names, per
 * candidate node, the victims whose removal gives the preemptor room on one GPU; {@link io.mpshare.scheduler.preempt.Nominations} follows
 * pods' priorities and {@code status.nominatedNodeName} from the pod informer, and
 * {@link io.mpshare.scheduler.preempt.NominationHold} keeps a nominated pod's room from lower-priority pods in filter.
 * The choices themselves are pure core code ({@link io.mpshare.core.preempt.VictimSelection},
 * {@link io.mpshare.core.preempt.NominatedHold}).
 */
package io.mpshare.scheduler.preempt;
