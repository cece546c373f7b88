/**
 * The node agent's view of its node's pods: {@link io.mpshare.kube.node.NodeBookings} reads each pod event once, checks
 * its booking against the pod's own resources, and tells the agent's parts (Allocate, the server ceilings, the
 * policer) a {@link io.mpshare.kube.node.NodePod}. Only here does the node agent read a fabric8 {@code Pod}.
 */
package io.mpshare.kube.node;
