/**
 * Safe binds: {@link io.mpshare.scheduler.bind.Binder} books GPUs in the ledger, writes the allocation to
 * the pod's annotations (guarded by resourceVersion), creates the Binding and confirms, rolling back on
 * failure. {@link io.mpshare.scheduler.bind.PodApi} is the only door to the API server here, so the binder
 * is tested against an in-memory API as well as fabric8's mock server.
 */
package io.mpshare.scheduler.bind;
