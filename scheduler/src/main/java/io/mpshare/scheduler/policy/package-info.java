/**
 * The extender's default placement policy: {@link io.mpshare.scheduler.policy.LearnedFragmentationPolicy}, the
 * core's fragmentation policy over a task mix learned from the GPU pods the cluster view sees, weighing host CPU and
 * memory as kube-scheduler counts them ({@link io.mpshare.scheduler.policy.HostRoom}: per node the allocatable CPU and
 * memory minus the effective requests of the pods bound there and not finished, kept incrementally from the
 * extender's node and pod informers, plus the pods the extender itself has booked in the ledger (pipelining holds,
 * binds in flight) before the informer shows them bound).
 */
package io.mpshare.scheduler.policy;
