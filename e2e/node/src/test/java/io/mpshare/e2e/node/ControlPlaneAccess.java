package io.mpshare.e2e.node;

import io.mpshare.e2e.k8s.Binaries;
import io.mpshare.e2e.k8s.ChartDeployment;
import io.mpshare.e2e.k8s.Cluster;
import io.mpshare.e2e.k8s.Components;
import io.mpshare.e2e.k8s.Pki;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * The node's control plane, from {@code e2e/k8s}: its own {@link Cluster} (the chart's RBAC and ServiceAccounts
 * applied), the chart's extender and kube-scheduler (profile {@link #SCHEDULER}) as the chart's ServiceAccount,
 * kubelet's client certificate for {@code system:node:<name>} in {@code system:nodes} signed by the API server's
 * client CA, and the device plugin's kubeconfig as the chart's device-plugin ServiceAccount, so RBAC is the chart's.
 */
final class ControlPlaneAccess {
    static final String SCHEDULER = "mpshare-scheduler";
    static final String DEVICE_PLUGIN_ACCOUNT = ChartDeployment.RELEASE + "-device-plugin";

    private ControlPlaneAccess() {}

    /** Why there is no control plane here (one line), or null when there is one. */
    static String missing(Path repo) {
        return Binaries.locate(System.getenv(), repo) instanceof Binaries.Missing m ? m.why() : null;
    }

    /** A started cluster and what the node needs of it; closing the cluster stops every process it started. */
    record Started(Cluster cluster, ClusterAccess access) {}

    static Started start(Path repo, Path target) {
        Binaries bin = switch (Binaries.locate(System.getenv(), repo)) {
            case Binaries.Found f -> f.binaries();
            case Binaries.Missing m -> throw new IllegalStateException(m.why());
        };
        Cluster cluster = Cluster.start(bin, repo, target, Map.of());
        try {
            Path logs = cluster.logs("e2e-node");
            var ext = cluster.components().extender("node-extender", List.of(), logs);
            cluster.components().scheduler("node-scheduler", Components.SchedulerSettings.single(SCHEDULER, ext.port()), logs);
            var cp = cluster.controlPlane();
            String file = "node-" + RealNode.NAME;
            Pki pki = cp.pki();
            pki.client(file, "system:node:" + RealNode.NAME, List.of("system:nodes"));
            var kubelet = new Kubelet.ApiAccess(cp.server(), pki.caFile(), pki.certFile(file), pki.keyFile(file));
            Path plugin = cp.kubeconfigForServiceAccount(ChartDeployment.NAMESPACE, DEVICE_PLUGIN_ACCOUNT);
            return new Started(cluster, new ClusterAccess(cluster.client(), kubelet, plugin, SCHEDULER));
        } catch (RuntimeException e) {
            cluster.close();
            throw e;
        }
    }
}
