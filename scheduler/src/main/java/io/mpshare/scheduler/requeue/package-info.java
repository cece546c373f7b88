/**
 * Wake-ups for refused pods: {@link io.mpshare.scheduler.requeue.Requeue} records the pods a filter kept on no node and
 * the room the ledger and the nominations give back, and writes {@code requeue.mpshare.io/at} on each refused pod that now
 * fits, so that kube-scheduler retries it whatever the order in which it and the extender saw the release. The
 * decisions are {@link io.mpshare.scheduler.requeue.WakeBook}'s, without threads or I/O.
 */
package io.mpshare.scheduler.requeue;
