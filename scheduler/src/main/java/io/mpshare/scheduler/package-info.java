/**
 * The kube-scheduler extender: {@link io.mpshare.scheduler.SchedulerExtender} wires the ledger, the
 * informer-backed cluster view ({@code .cluster}), the binder ({@code .bind}), metrics ({@code .metrics})
 * and the HTTP adapter ({@code .http}). {@link io.mpshare.scheduler.Verbs} holds filter, prioritize and
 * bind in domain terms, so the wire adapter only translates.
 */
package io.mpshare.scheduler;
