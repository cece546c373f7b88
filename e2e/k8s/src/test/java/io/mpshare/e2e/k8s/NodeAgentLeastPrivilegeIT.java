package io.mpshare.e2e.k8s;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingAdmissionPolicy;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingAdmissionPolicyBinding;
import io.fabric8.kubernetes.api.model.authentication.TokenRequestBuilder;
import io.fabric8.kubernetes.api.model.policy.v1.EvictionBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.mpshare.e2e.k8s.junit.RealControlPlane;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;

import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The node agent's least privilege against the real kube-apiserver: the chart's device-plugin RBAC and its
 * ValidatingAdmissionPolicy (templates/node-agent-policy.yaml), with a token of the device plugin's ServiceAccount
 * bound to a pod on node lp-n1, as kubelet mounts it (docs/decisions/node-agent-least-privilege.md).
 */
@ExtendWith(RealControlPlane.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class NodeAgentLeastPrivilegeIT {
    static final String NS = "lp";
    static final String SA = ChartDeployment.RELEASE + "-device-plugin";
    static final String POLICY = SA + "-own-node";
    static final PatchContext MERGE = new PatchContext.Builder().withPatchType(PatchType.JSON_MERGE).build();
    static final String ANNOTATE = "{\"metadata\":{\"annotations\":{\"mpshare.io/lp-test\":\"x\"}}}";
    private Cluster cluster;
    private KubernetesClient agent;
    /** Whether the harness had the policy already; if not, it is removed again so other classes see the harness as it was. */
    private boolean policyWasThere;

    @BeforeAll
    void setUp(Cluster cluster) {
        this.cluster = cluster;
        KubernetesClient admin = cluster.client();
        // the policy and its binding, as rendered (the harness applies only ServiceAccounts and RBAC)
        policyWasThere = admin.resources(ValidatingAdmissionPolicy.class).withName(POLICY).get() != null;
        for (HasMetadata o : cluster.chart().objects())
            if ((o instanceof ValidatingAdmissionPolicy || o instanceof ValidatingAdmissionPolicyBinding) && o.getMetadata().getName().equals(POLICY))
                admin.resource(o).forceConflicts().serverSideApply();
        assertThat(admin.resources(ValidatingAdmissionPolicy.class).withName(POLICY).get()).as("the chart renders " + POLICY).isNotNull();
        GpuNodes.create(admin, GpuNodes.Spec.h200("lp-n1", 1, Map.of()));
        GpuNodes.create(admin, GpuNodes.Spec.h200("lp-n2", 1, Map.of()));
        cluster.controlPlane().createNamespace(NS, Map.of());
        Pod agentPod = admin.resource(pod(ChartDeployment.NAMESPACE, "agent-lp-n1", "lp-n1", SA)).create();
        for (String n : List.of("lp-n1", "lp-n2")) {
            admin.resource(pod(NS, "work-" + n, n, null)).create();
            admin.resource(pod(NS, "victim-" + n, n, null)).create();
        }
        agent = clientWithToken(boundToken(admin, agentPod));
        // a policy takes effect once the apiserver's policy informer has it: wait until lp-n2 is refused by it
        cluster.controlPlane().waitFor("the node-agent policy in force", null, () -> {
            try {
                agent.nodes().withName("lp-n2").patch(MERGE, "{\"metadata\":{\"annotations\":{\"mpshare.io/lp-probe\":\"1\"}}}");
                return false;
            } catch (KubernetesClientException e) {
                return e.getMessage().contains(POLICY);
            }
        });
    }

    @AfterAll
    void tearDown() {
        if (agent != null) agent.close();
        if (cluster == null || policyWasThere) return;
        cluster.client().resources(ValidatingAdmissionPolicyBinding.class).withName(POLICY).delete();
        cluster.client().resources(ValidatingAdmissionPolicy.class).withName(POLICY).delete();
    }

    static Pod pod(String ns, String name, String node, String serviceAccount) {
        return new PodBuilder().withNewMetadata().withNamespace(ns).withName(name).endMetadata()
                .withNewSpec().withNodeName(node).withServiceAccountName(serviceAccount).withAutomountServiceAccountToken(serviceAccount != null)
                .addNewContainer().withName("c").withImage("pause").endContainer().endSpec().build();
    }

    /** What kubelet mounts: a token of the pod's ServiceAccount bound to the pod (and so to its node). */
    static String boundToken(KubernetesClient admin, Pod pod) {
        var req = new TokenRequestBuilder().withNewSpec().withExpirationSeconds(3600L)
                .withNewBoundObjectRef().withApiVersion("v1").withKind("Pod").withName(pod.getMetadata().getName()).withUid(pod.getMetadata().getUid()).endBoundObjectRef()
                .endSpec().build();
        return admin.serviceAccounts().inNamespace(pod.getMetadata().getNamespace()).withName(SA).tokenRequest(req).getStatus().getToken();
    }

    private KubernetesClient clientWithToken(String token) {
        var cp = cluster.controlPlane();
        return ControlPlane.clientFor(Kubeconfig.withToken(cp.runDir().resolve("kubeconfig").resolve("lp-" + System.nanoTime()), cp.server(), cp.pki().caPem(), token));
    }

    private static void refused(Runnable call, String... parts) {
        assertThatThrownBy(call::run).isInstanceOf(KubernetesClientException.class)
                .satisfies(e -> assertThat(((KubernetesClientException) e).getCode()).isEqualTo(403))
                .hasMessageContaining(POLICY).hasMessageContainingAll(parts);
    }

    @Test
    void patchNode_ownNodeAllowed_otherNodeRefusedWithThePolicysMessage() {
        assertThat(agent.nodes().withName("lp-n1").patch(MERGE, ANNOTATE).getMetadata().getAnnotations()).containsEntry("mpshare.io/lp-test", "x");
        refused(() -> agent.nodes().withName("lp-n2").patch(MERGE, ANNOTATE), "on node lp-n1 may update only its own Node", "node lp-n2");
    }

    @Test
    void patchPod_onOwnNodeAllowed_onOtherNodeRefused() {
        assertThat(agent.pods().inNamespace(NS).withName("work-lp-n1").patch(MERGE, ANNOTATE).getMetadata().getAnnotations()).containsKey("mpshare.io/lp-test");
        refused(() -> agent.pods().inNamespace(NS).withName("work-lp-n2").patch(MERGE, ANNOTATE),
                "may update or delete only pods bound to that node", "lp/work-lp-n2 on node lp-n2");
    }

    @Test
    void deletePod_onOwnNodeAllowed_onOtherNodeRefused() {
        refused(() -> agent.pods().inNamespace(NS).withName("victim-lp-n2").delete(), "DELETE pod lp/victim-lp-n2 on node lp-n2");
        assertThat(cluster.client().pods().inNamespace(NS).withName("victim-lp-n2").get()).isNotNull();
        var pod = agent.pods().inNamespace(NS).withName("victim-lp-n1");
        assertThat(pod.lockResourceVersion(pod.get().getMetadata().getResourceVersion()).delete()).isNotEmpty();
    }

    @Test
    void evict_notGrantedAnyMore() {
        var eviction = new EvictionBuilder().withNewMetadata().withNamespace(NS).withName("work-lp-n1").endMetadata().build();
        assertThatThrownBy(() -> agent.pods().inNamespace(NS).withName("work-lp-n1").evict(eviction))
                .isInstanceOf(KubernetesClientException.class).hasMessageContaining("forbidden");
    }

    @Test
    void tokenWithoutNodeClaim_everyWriteRefused() {
        var req = new TokenRequestBuilder().withNewSpec().withExpirationSeconds(3600L).endSpec().build();
        String unbound = cluster.client().serviceAccounts().inNamespace(ChartDeployment.NAMESPACE).withName(SA).tokenRequest(req).getStatus().getToken();
        try (KubernetesClient c = clientWithToken(unbound)) {
            assertThat(c.nodes().withName("lp-n1").get()).as("reads stay allowed").isNotNull();
            refused(() -> c.nodes().withName("lp-n1").patch(MERGE, ANNOTATE), "no node-name claim");
        }
    }
}
