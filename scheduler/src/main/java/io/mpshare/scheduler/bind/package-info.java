/**
 * Safe binds: {@link io.mpshare.scheduler.bind.Binder} books GPUs in the ledger, POSTs the Binding that carries
 * the allocation annotations, and confirms, rolling back on failure. {@code io.mpshare.kube.PodApi} is the only
 * door to the API server here, so the binder is tested against an in-memory API as well as fabric8's mock server.
 */
package io.mpshare.scheduler.bind;
