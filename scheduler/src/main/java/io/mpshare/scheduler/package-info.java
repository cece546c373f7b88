/**
 * The kube-scheduler extender: {@link io.mpshare.scheduler.SchedulerExtender} wires the ledger, the policy
 * ({@code .policy}), the verbs ({@code .verbs}) over what one scheduling cycle carries ({@code .cycle}: the pod's
 * resolved ask, the pipelining holds), the informer-backed cluster view ({@code .cluster}), the binder
 * ({@code .bind}), preemption ({@code .preempt}), metrics ({@code .metrics}) and the HTTP adapter ({@code .http}),
 * from one {@link io.mpshare.scheduler.ExtenderConfig}.
 */
package io.mpshare.scheduler;
