/**
 * Values: GPUs and node inventories, pods and their container requests, and the resolved per-GPU demand.
 * Records validate themselves; {@link io.mpshare.core.model.DemandResolver} holds the pod-to-demand rules.
 */
package io.mpshare.core.model;
