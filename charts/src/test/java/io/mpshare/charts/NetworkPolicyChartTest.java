package io.mpshare.charts;

import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicy;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyIngressRule;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyPort;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * templates/network-policies.yaml: who may reach each of mpshare's ports. On by default where a wrong guess cannot stop
 * the cluster (the device plugin's metrics, the bundled scheduler pod, the MPS daemons); the webhook's and the
 * extender-mode extender's policies wait for the control plane's range.
 */
class NetworkPolicyChartTest {
    static final String FULL = Rendered.RELEASE;
    static Rendered defaults, controlPlane, extender, extenderWithRange;

    @BeforeAll
    static void render() {
        defaults = Rendered.of(Map.of());
        controlPlane = Rendered.of(Map.of("networkPolicy.controlPlaneCIDRs[0]", "10.0.0.0/24"));
        extender = Rendered.of(Map.of("scheduler.mode", "extender", "scheduler.extender.tls.secretName", "t"));
        extenderWithRange = Rendered.of(Map.of("scheduler.mode", "extender", "scheduler.extender.tls.secretName", "t",
                "networkPolicy.controlPlaneCIDRs[0]", "10.0.0.0/24"));
    }

    private static List<Integer> ports(NetworkPolicyIngressRule rule) {
        return rule.getPorts().stream().map(NetworkPolicyPort::getPort).map(p -> p.getIntVal()).toList();
    }

    private static void selects(NetworkPolicy np, Map<String, String> podLabels) {
        assertThat(podLabels).as(np.getMetadata().getName() + " selects the workload's pods").containsAllEntriesOf(np.getSpec().getPodSelector().getMatchLabels());
    }

    @Test
    void defaults_devicePluginMetricsFromMonitoringOnly_daemonsClosed_noWebhookPolicyWithoutTheRange() {
        NetworkPolicy dp = defaults.one(NetworkPolicy.class, FULL + "-device-plugin");
        DaemonSet ds = defaults.one(DaemonSet.class, FULL + "-device-plugin");
        selects(dp, ds.getSpec().getTemplate().getMetadata().getLabels());
        assertThat(dp.getSpec().getPolicyTypes()).containsExactly("Ingress");
        assertThat(dp.getSpec().getIngress()).singleElement().satisfies(rule -> {
            assertThat(ports(rule)).containsExactly(39996);
            assertThat(rule.getFrom()).singleElement().satisfies(peer ->
                    assertThat(peer.getNamespaceSelector().getMatchLabels()).containsEntry("kubernetes.io/metadata.name", "monitoring"));
        });

        NetworkPolicy mps = defaults.one(NetworkPolicy.class, FULL + "-mps-control");
        selects(mps, defaults.one(DaemonSet.class, FULL + "-mps-control-blue").getSpec().getTemplate().getMetadata().getLabels());
        selects(mps, defaults.one(DaemonSet.class, FULL + "-mps-control-green").getSpec().getTemplate().getMetadata().getLabels());
        assertThat(mps.getSpec().getIngress()).isNullOrEmpty();

        assertThat(defaults.all(NetworkPolicy.class)).noneMatch(n -> n.getMetadata().getName().equals(FULL + "-webhook"));
    }

    @Test
    void bundledScheduler_extenderAndKubeSchedulerPortsFromMetricsPeersOnly() {
        NetworkPolicy s = defaults.one(NetworkPolicy.class, FULL + "-scheduler");
        selects(s, defaults.one(Deployment.class, FULL + "-scheduler").getSpec().getTemplate().getMetadata().getLabels());
        assertThat(s.getSpec().getIngress()).singleElement().satisfies(rule -> assertThat(ports(rule)).containsExactly(39999, 10259));
    }

    @Test
    void controlPlaneRange_webhookPortFromItAlone() {
        NetworkPolicy w = controlPlane.one(NetworkPolicy.class, FULL + "-webhook");
        selects(w, controlPlane.one(Deployment.class, FULL + "-webhook").getSpec().getTemplate().getMetadata().getLabels());
        assertThat(w.getSpec().getIngress()).singleElement().satisfies(rule -> {
            assertThat(ports(rule)).containsExactly(9443);
            assertThat(rule.getFrom()).singleElement().satisfies(peer -> assertThat(peer.getIpBlock().getCidr()).isEqualTo("10.0.0.0/24"));
        });
    }

    @Test
    void extenderMode_policyOnlyWithTheRange_thenFromTheControlPlaneAndMetricsPeers() {
        assertThat(extender.all(NetworkPolicy.class)).noneMatch(n -> n.getMetadata().getName().equals(FULL + "-scheduler"));
        NetworkPolicy s = extenderWithRange.one(NetworkPolicy.class, FULL + "-scheduler");
        assertThat(s.getSpec().getIngress()).hasSize(2).allSatisfy(rule -> assertThat(ports(rule)).containsExactly(39999));
        assertThat(s.getSpec().getIngress().get(1).getFrom()).singleElement().satisfies(peer -> assertThat(peer.getIpBlock().getCidr()).isEqualTo("10.0.0.0/24"));
    }

    @Test
    void disabled_none() {
        assertThat(Rendered.of(Map.of("networkPolicy.enabled", "false", "networkPolicy.controlPlaneCIDRs[0]", "10.0.0.0/24"))
                .all(NetworkPolicy.class)).isEmpty();
        assertThat(Stream.of(defaults, controlPlane).flatMap(r -> r.all(NetworkPolicy.class).stream()))
                .allSatisfy(n -> assertThat(n.getMetadata().getNamespace()).isEqualTo(Rendered.NAMESPACE));
    }
}
