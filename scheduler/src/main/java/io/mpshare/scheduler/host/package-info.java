/**
 * Host CPU and memory as kube-scheduler counts them, for the default placement policy: per node the
 * allocatable CPU and memory ({@code status.allocatable}) minus the effective requests of the pods bound
 * there and not finished, kept incrementally from the extender's node and pod informers; per pod its own
 * effective request. {@link io.mpshare.scheduler.host.HostRoom} also counts the pods the extender itself has
 * booked in the ledger (pipelining holds, binds in flight) before the informer shows them bound.
 */
package io.mpshare.scheduler.host;
