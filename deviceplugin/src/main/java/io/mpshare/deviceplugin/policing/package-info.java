/**
 * The policer ({@code io.mpshare.policing}) inside the device plugin: its Kubernetes adapters (Events, the Eviction
 * API, the {@code mpshare.io/usage} annotation), the pod informer feeding its node view and container names, the
 * MPS control daemons of both colours, and {@link io.mpshare.deviceplugin.policing.NodePolicer}, which wires them.
 */
package io.mpshare.deviceplugin.policing;
