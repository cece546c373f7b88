/**
 * The extender's live view of the cluster: fabric8 informers on labelled nodes (their GPU inventory from
 * {@code mpshare.io/gpus}) and on pods (their allocation annotations), feeding the ledger; readiness only
 * once both are synced and the ledger rebuilt; expiry of assumed allocations whose pods are gone.
 */
package io.mpshare.scheduler.cluster;
