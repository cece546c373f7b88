package io.mpshare.e2e.node;

import io.fabric8.kubernetes.client.KubernetesClient;

import java.nio.file.Path;

/**
 * What the node needs from the control plane: an admin client for the test, kubelet's access as
 * {@code system:node:<name>} (a client certificate signed by the API server's client CA), a kubeconfig for the
 * device plugin, and the name of the scheduler profile that calls the mpshare extender.
 */
record ClusterAccess(KubernetesClient admin, Kubelet.ApiAccess kubelet, Path devicePluginKubeconfig, String schedulerName) {}
