/**
 * The isolation arithmetic, stated once for cluster and host mode: a client's MPS memory cap on each GPU it sees
 * (layer 1), the server ceiling of each MPS server (layer 2) and the env a client is started with
 * ({@link io.mpshare.core.isolation.MpsLimits}). Pure: the device plugin, the ceiling controller, host mode and the
 * policer's metrics call it; none of them repeats a rule of it.
 */
package io.mpshare.core.isolation;
