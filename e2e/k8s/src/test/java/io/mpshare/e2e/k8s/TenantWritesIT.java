package io.mpshare.e2e.k8s;

import io.fabric8.kubernetes.api.model.BindingBuilder;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.EnvFromSourceBuilder;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.LabelSelector;
import io.fabric8.kubernetes.api.model.LabelSelectorRequirement;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.MatchResources;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingAdmissionPolicy;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingAdmissionPolicyBinding;
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder;
import io.fabric8.kubernetes.api.model.authentication.TokenRequestBuilder;
import io.fabric8.kubernetes.api.model.rbac.ClusterRole;
import io.fabric8.kubernetes.api.model.rbac.RoleBindingBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.mpshare.core.Names;
import io.mpshare.e2e.k8s.junit.RealControlPlane;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A tenant that holds only the stock {@code edit} ClusterRole in its namespace (a real user, by client certificate)
 * against kube-apiserver v1.31.14 with the chart's tenant-annotations ValidatingAdmissionPolicy, the chart's webhook
 * entries and mpshare's scheduler and extender: each route of the hostile-tenant review that goes through the API
 * server is tried and refused, and the honest paths still work (docs/security.md, docs/decisions/tenant-annotations.md).
 * The policy's binding is limited to this class's namespaces so that other classes of the shared cluster do not see it.
 */
@ExtendWith(RealControlPlane.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class TenantWritesIT {
    static final String NAME = "tw", TRUSTED = "tw-trusted", TENANT = "tw-alice";
    static final String POLICY = ChartDeployment.RELEASE + "-tenant-annotations";
    static final String BINDING = POLICY + "-" + NAME;
    static final String DEVICE_PLUGIN = ChartDeployment.RELEASE + "-device-plugin";
    static final PatchContext MERGE = new PatchContext.Builder().withPatchType(PatchType.JSON_MERGE).build();
    static final String FORGED = "v1;node=tw-0;gpus=0;uuids=GPU-x;reserve=1024;charge=140000/0;c=main:138976:0";
    private Cluster cluster;
    private Scenario s;
    private Webhooks.Webhook webhook;
    private KubernetesClient tenant, agent;
    /** The tenant's shared-GPU pod, bound by mpshare's scheduler with its allocation. */
    private Pod train;

    @BeforeAll
    void setUp(Cluster cluster) {
        this.cluster = cluster;
        s = new Scenario(cluster, NAME, Map.of());
        cluster.controlPlane().createNamespace(TRUSTED, Map.of(Names.LABEL_TENANCY, Names.TENANCY_TRUSTED));
        s.nodes(1, 8);
        s.schedulerAndExtender();
        webhook = cluster.webhooks().startIn(NAME + "-webhook", List.of(NAME, TRUSTED), s.schedulerName, cluster.logs(NAME));
        KubernetesClient admin = cluster.client();
        applyPolicyTo(cluster, List.of(NAME, TRUSTED));
        tenant = ControlPlane.clientFor(cluster.controlPlane().kubeconfigFor(TENANT, List.of()));
        grantEdit(cluster, admin);
        // a policy is in force once kube-apiserver's policy informer has it: until then a pod carrying one of mpshare's annotations is admitted
        cluster.controlPlane().waitFor("the tenant-annotations policy in force", null, () -> {
            try {
                tenant.resource(plain("probe", Map.of(Names.ANN_USAGE, "v1;at=2026-12-01T00:00:00Z"))).create();
                tenant.pods().inNamespace(NAME).withName("probe").withGracePeriod(0).delete();
                return false;
            } catch (KubernetesClientException e) {
                return e.getMessage().contains(POLICY);
            }
        });
        tenant.resource(strictGpuPod("train", Map.of())).create();
        train = awaitBound(NAME, "train");
        Pod agentPod = admin.resource(new PodBuilder().withNewMetadata().withNamespace(ChartDeployment.NAMESPACE).withName("agent-tw").endMetadata()
                .withNewSpec().withNodeName(NAME + "-0").withServiceAccountName(DEVICE_PLUGIN)
                .addNewContainer().withName("c").withImage("pause").endContainer().endSpec().build()).create();
        agent = clientWithToken(cluster, boundToken(admin, agentPod));
    }

    @AfterAll
    void tearDown() {
        if (cluster == null) return;
        if (tenant != null) tenant.close();
        if (agent != null) agent.close();
        if (webhook != null) cluster.webhooks().stop(webhook);
        KubernetesClient admin = cluster.client();
        admin.resources(ValidatingAdmissionPolicyBinding.class).withName(BINDING).delete();
        if (admin.resources(ValidatingAdmissionPolicyBinding.class).list().getItems().stream().noneMatch(b -> b.getSpec().getPolicyName().equals(POLICY)))
            admin.resources(ValidatingAdmissionPolicy.class).withName(POLICY).delete();
        admin.pods().inNamespace(ChartDeployment.NAMESPACE).withName("agent-tw").withGracePeriod(0).delete();
        admin.pods().inNamespace(TRUSTED).withGracePeriod(0).delete();
        admin.namespaces().withName(TRUSTED).delete();
        if (s != null) s.close();
    }

    /** The chart's policy, and its binding limited to {@code namespaces}. */
    private static void applyPolicyTo(Cluster cluster, List<String> namespaces) {
        KubernetesClient admin = cluster.client();
        for (HasMetadata o : cluster.chart().objects()) {
            if (o instanceof ValidatingAdmissionPolicy p && p.getMetadata().getName().equals(POLICY)) admin.resource(p).forceConflicts().serverSideApply();
            if (o instanceof ValidatingAdmissionPolicyBinding b && b.getMetadata().getName().equals(POLICY)) {
                var copy = admin.getKubernetesSerialization().clone(b);
                copy.getMetadata().setName(BINDING);
                var ns = new LabelSelector();
                ns.setMatchExpressions(List.of(new LabelSelectorRequirement("kubernetes.io/metadata.name", "In", namespaces)));
                var match = new MatchResources();
                match.setNamespaceSelector(ns);
                copy.getSpec().setMatchResources(match);
                admin.resource(copy).forceConflicts().serverSideApply();
            }
        }
    }

    private void grantEdit(Cluster cluster, KubernetesClient admin) {
        // edit is an aggregated role: kube-controller-manager fills its rules from the aggregate-to-edit roles
        cluster.controlPlane().waitFor("ClusterRole edit aggregated", null, () -> {
            ClusterRole edit = admin.rbac().clusterRoles().withName("edit").get();
            return edit != null && edit.getRules() != null && edit.getRules().stream().anyMatch(r -> r.getResources().contains("pods"));
        });
        admin.resource(new RoleBindingBuilder().withNewMetadata().withNamespace(NAME).withName(TENANT + "-edit").endMetadata()
                .withNewRoleRef("rbac.authorization.k8s.io", "ClusterRole", "edit")
                .addNewSubject().withApiGroup("rbac.authorization.k8s.io").withKind("User").withName(TENANT).endSubject().build())
                .forceConflicts().serverSideApply();
        cluster.controlPlane().waitFor(TENANT + " may list pods in " + NAME, null, () -> tenant.pods().inNamespace(NAME).list() != null);
    }

    /** What kubelet mounts for the device plugin: a token of its ServiceAccount bound to its pod (and so to its node). */
    private static String boundToken(KubernetesClient admin, Pod pod) {
        var req = new TokenRequestBuilder().withNewSpec().withExpirationSeconds(3600L)
                .withNewBoundObjectRef().withApiVersion("v1").withKind("Pod").withName(pod.getMetadata().getName()).withUid(pod.getMetadata().getUid()).endBoundObjectRef()
                .endSpec().build();
        return admin.serviceAccounts().inNamespace(ChartDeployment.NAMESPACE).withName(DEVICE_PLUGIN).tokenRequest(req).getStatus().getToken();
    }

    private static KubernetesClient clientWithToken(Cluster cluster, String token) {
        var cp = cluster.controlPlane();
        return ControlPlane.clientFor(Kubeconfig.withToken(cp.runDir().resolve("kubeconfig").resolve("tw-agent"), cp.server(), cp.pki().caPem(), token));
    }

    /** A shared-GPU pod a strict namespace admits: non-root, no escalation, 2 GiB, kept to this class's node. */
    private static Pod strictGpuPod(String name, Map<String, String> annotations) {
        return strict(name, annotations, c -> c.withNewResources().addToLimits(Names.RESOURCE_GPU_MEM, new Quantity("2")).endResources());
    }

    private static Pod strict(String name, Map<String, String> annotations, UnaryOperator<ContainerBuilder> edit) {
        var main = edit.apply(new ContainerBuilder().withName("main").withImage("busybox:1.36")
                .withNewSecurityContext().withAllowPrivilegeEscalation(false).endSecurityContext());
        return new PodBuilder().withNewMetadata().withNamespace(NAME).withName(name).withAnnotations(annotations.isEmpty() ? null : annotations).endMetadata()
                .withNewSpec().withNodeSelector(Map.of(Scenario.GROUP, NAME))
                .withNewSecurityContext().withRunAsUser(1000L).withRunAsNonRoot(true).endSecurityContext()
                .addToContainers(main.build()).endSpec().build();
    }

    /** A pod that asks no GPU. */
    private static Pod plain(String name, Map<String, String> annotations) {
        return new PodBuilder().withNewMetadata().withNamespace(NAME).withName(name).withAnnotations(annotations.isEmpty() ? null : annotations).endMetadata()
                .withNewSpec().addToContainers(new ContainerBuilder().withName("main").withImage("busybox:1.36").build()).endSpec().build();
    }

    /** Waits until the pod is bound with its allocation annotation. */
    private Pod awaitBound(String ns, String name) {
        Instant end = Instant.now().plus(Duration.ofSeconds(60));
        Pod p = s.c.pods().inNamespace(ns).withName(name).get();
        while (!bound(p) && Instant.now().isBefore(end)) {
            ControlPlane.sleep(200);
            p = s.c.pods().inNamespace(ns).withName(name).get();
        }
        assertThat(p.getSpec().getNodeName()).as(name + " bound").isEqualTo(NAME + "-0");
        assertThat(p.getMetadata().getAnnotations()).as("the Binding's annotations on " + name).containsKey(Names.ANN_ALLOCATION);
        return p;
    }

    private static boolean bound(Pod p) {
        return p.getSpec().getNodeName() != null && p.getMetadata().getAnnotations() != null && p.getMetadata().getAnnotations().containsKey(Names.ANN_ALLOCATION);
    }

    private static String annotate(String key, String value) {
        return "{\"metadata\":{\"annotations\":{\"" + key + "\":" + (value == null ? "null" : "\"" + value + "\"") + "}}}";
    }

    /** Refused by the policy (403) with {@code says}. */
    private static void refusedByPolicy(Runnable call, String... says) {
        assertThatThrownBy(call::run).isInstanceOf(KubernetesClientException.class)
                .satisfies(e -> assertThat(((KubernetesClientException) e).getCode()).isEqualTo(403))
                .hasMessageContaining("ValidatingAdmissionPolicy '" + POLICY + "'").hasMessageContainingAll(says);
    }

    /** Refused by mpshare's webhook with {@code says}. */
    private static void refusedByWebhook(Runnable call, String... says) {
        assertThatThrownBy(call::run).isInstanceOf(KubernetesClientException.class)
                .hasMessageContaining("rejected by mpshare").hasMessageContainingAll(says);
    }

    private Map<String, String> annotationsOf(String name) { return s.c.pods().inNamespace(NAME).withName(name).get().getMetadata().getAnnotations(); }

    @Test
    void f2_tenantOverwritesItsPodsAllocation_refused() {
        String honest = annotationsOf("train").get(Names.ANN_ALLOCATION);
        assertThat(honest).as("written by the Binding").contains("node=" + NAME + "-0");
        var pod = tenant.pods().inNamespace(NAME).withName("train");
        refusedByPolicy(() -> pod.patch(MERGE, annotate(Names.ANN_ALLOCATION, FORGED)), Names.ANN_ALLOCATION, "written by mpshare alone", TENANT);
        refusedByPolicy(() -> pod.patch(MERGE, annotate(Names.ANN_ALLOCATION, null)), Names.ANN_ALLOCATION);
        refusedByPolicy(() -> pod.patch(MERGE, annotate(Names.ACK_GPU_MEM_IDX, "0,1")), Names.ACK_GPU_MEM_IDX);
        refusedByPolicy(() -> pod.patch(MERGE, annotate(Names.ANN_ASSIGNED, "true")), Names.ANN_ASSIGNED);
        assertThat(annotationsOf("train").get(Names.ANN_ALLOCATION)).isEqualTo(honest);
    }

    @Test
    void f3_tenantCreatesPodWithForgedAllocation_refused_alsoThroughItsDeployment_andNoBindingOfItsOwn() {
        Pod squat = new PodBuilder(plain("squat", Map.of(Names.ANN_ALLOCATION, FORGED, Names.ANN_ASSIGNED, "true")))
                .editSpec().withSchedulerName("no-such-scheduler").endSpec().build();
        refusedByPolicy(() -> tenant.resource(squat).create(), Names.ANN_ALLOCATION, Names.ANN_ASSIGNED);
        assertThat(s.c.pods().inNamespace(NAME).withName("squat").get()).isNull();

        // a controller copies a template's annotations into the pods it creates: the ReplicaSet controller is refused too
        var d = new DeploymentBuilder().withNewMetadata().withNamespace(NAME).withName("squatters").endMetadata()
                .withNewSpec().withReplicas(1).withNewSelector().addToMatchLabels("app", "squatters").endSelector()
                .withNewTemplate().withNewMetadata().addToLabels("app", "squatters").addToAnnotations(Names.ACK_GPU_MEM_IDX, "0").endMetadata()
                .withNewSpec().withSchedulerName("no-such-scheduler").addToContainers(new ContainerBuilder().withName("main").withImage("busybox:1.36").build())
                .endSpec().endTemplate().endSpec().build();
        tenant.resource(d).create();
        cluster.controlPlane().waitFor("the ReplicaSet's FailedCreate naming the policy", null, () ->
                s.c.v1().events().inNamespace(NAME).list().getItems().stream().anyMatch(e -> "FailedCreate".equals(e.getReason())
                        && e.getMessage().contains(POLICY) && e.getMessage().contains(Names.ACK_GPU_MEM_IDX)));
        assertThat(s.c.pods().inNamespace(NAME).withLabel("app", "squatters").list().getItems()).isEmpty();

        // the Binding, whose annotations kube-apiserver copies onto the pod, is the extender's door: edit grants no pods/binding
        var binding = new BindingBuilder().withNewMetadata().withName("train").withNamespace(NAME)
                .addToAnnotations(Names.ANN_ALLOCATION, FORGED).endMetadata().withNewTarget().withKind("Node").withName(NAME + "-0").endTarget().build();
        assertThatThrownBy(() -> tenant.resource(binding).create()).isInstanceOf(KubernetesClientException.class)
                .satisfies(e -> assertThat(((KubernetesClientException) e).getCode()).isEqualTo(403)).hasMessageContaining("forbidden");
    }

    @Test
    void f5_podWithoutGpuAsRootMountingTheRunFolder_refused() {
        Pod shell = new PodBuilder(plain("shell", Map.of())).editSpec()
                .withNodeSelector(Map.of(Names.NODE_LABEL_SCHEDULE, Names.NODE_LABEL_SCHEDULE_MPS)).addNewToleration().withOperator("Exists").endToleration()
                .editFirstContainer().withNewSecurityContext().withRunAsUser(0L).endSecurityContext()
                .addNewVolumeMount().withName("m").withMountPath("/m").endVolumeMount().endContainer()
                .addNewVolume().withName("m").withNewHostPath().withPath(Names.RUN_DIR).endHostPath().endVolume().endSpec().build();
        refusedByWebhook(() -> tenant.resource(shell).create(), "volume m mounts host path " + Names.RUN_DIR, "control sockets");
    }

    @Test
    void f7_envFromConfigMapWithNvidiaVisibleDevices_refused_alsoThroughAPrefix() {
        tenant.resource(new ConfigMapBuilder().withNewMetadata().withNamespace(NAME).withName("all-gpus").endMetadata()
                .addToData(Names.ENV_VISIBLE_DEVICES, "all").build()).create();
        tenant.resource(new ConfigMapBuilder().withNewMetadata().withNamespace(NAME).withName("idia").endMetadata()
                .addToData("IDIA_VISIBLE_DEVICES", "all").build()).create();
        refusedByWebhook(() -> tenant.resource(strict("ef-none", Map.of(), c -> c.withNewResources().addToLimits(Names.RESOURCE_GPU_MEM, new Quantity("2")).endResources()
                .addToEnvFrom(new EnvFromSourceBuilder().withNewConfigMapRef().withName("all-gpus").endConfigMapRef().build()))).create(),
                "takes env from ConfigMap all-gpus", "NVIDIA_VISIBLE_DEVICES");
        refusedByWebhook(() -> tenant.resource(strict("ef-nv", Map.of(), c -> c.withNewResources().addToLimits(Names.RESOURCE_GPU_MEM, new Quantity("2")).endResources()
                .addToEnvFrom(new EnvFromSourceBuilder().withPrefix("NV").withNewConfigMapRef().withName("idia").endConfigMapRef().build()))).create(),
                "prefix NV and a key IDIA_VISIBLE_DEVICES make NVIDIA_VISIBLE_DEVICES");
        // the honest way: a prefix that parts from every reserved family
        tenant.resource(strict("ef-app", Map.of(), c -> c.withNewResources().addToLimits(Names.RESOURCE_GPU_MEM, new Quantity("2")).endResources()
                .addToEnvFrom(new EnvFromSourceBuilder().withPrefix("APP_").withNewConfigMapRef().withName("all-gpus").endConfigMapRef().build()))).create();
    }

    @Test
    void f9_cdiAnnotationAddedAfterCreateToAGatedPod_refused() {
        Pod gated = new PodBuilder(strictGpuPod("gated", Map.of())).editSpec().addNewSchedulingGate().withName("e2e.mpshare.io/hold").endSchedulingGate().endSpec().build();
        tenant.resource(gated).create();
        refusedByPolicy(() -> tenant.pods().inNamespace(NAME).withName("gated").patch(MERGE, annotate(Names.CDI_ANNOTATION_PREFIX + "x", "nvidia.com/gpu=all")),
                Names.CDI_ANNOTATION_PREFIX + "x", "CDI-enabled container runtime");
        assertThat(annotationsOf("gated")).doesNotContainKey(Names.CDI_ANNOTATION_PREFIX + "x");
    }

    @Test
    void f12_tenantWritesMpsColourOrUsage_refused() {
        var pod = tenant.pods().inNamespace(NAME).withName("train");
        refusedByPolicy(() -> pod.patch(MERGE, annotate(Names.ANN_MPS_COLOUR, Names.MPS_COLOUR_GREEN)), Names.ANN_MPS_COLOUR);
        refusedByPolicy(() -> pod.patch(MERGE, annotate(Names.ANN_USAGE, "v1;at=2026-12-01T00:00:00Z")), Names.ANN_USAGE);
    }

    @Test
    void honest_strictPodBoundByTheBinding_relabelledByItsTenant_contextReserveOnlyAtCreate() {
        assertThat(train.getMetadata().getAnnotations()).containsKeys(Names.ANN_ALLOCATION, Names.ANN_ASSUME_TIME, Names.ACK_GPU_MEM_IDX);
        var pod = tenant.pods().inNamespace(NAME).withName("train");
        assertThat(pod.patch(MERGE, "{\"metadata\":{\"labels\":{\"stage\":\"eval\"},\"annotations\":{\"team.example/owner\":\"alice\"}}}")
                .getMetadata().getLabels()).containsEntry("stage", "eval");

        tenant.resource(strictGpuPod("reserve", Map.of(Names.ANN_CONTEXT_RESERVE, "2048"))).create();
        assertThat(awaitBound(NAME, "reserve").getMetadata().getAnnotations().get(Names.ANN_ALLOCATION)).contains("reserve=2048");
        refusedByPolicy(() -> tenant.pods().inNamespace(NAME).withName("reserve").patch(MERGE, annotate(Names.ANN_CONTEXT_RESERVE, "8192")),
                Names.ANN_CONTEXT_RESERVE);
    }

    @Test
    void honest_seedLikePodInTrustedNamespace_bound() {
        Pod seed = new PodBuilder().withNewMetadata().withNamespace(TRUSTED).withName("mps-sample").endMetadata()
                .withNewSpec().withHostIPC(true).withHostPID(true).withNodeSelector(Map.of(Scenario.GROUP, NAME))
                .addToContainers(new ContainerBuilder().withName("mps-sample").withImage("registry.cn-hangzhou.aliyuncs.com/ai-samples/gpushare-sample:tensorflow-1.5")
                        .withNewResources().addToLimits(Names.RESOURCE_GPU_MEM, new Quantity("7")).endResources().build())
                .endSpec().build();
        s.c.resource(seed).create();
        assertThat(awaitBound(TRUSTED, "mps-sample").getSpec().getSchedulerName()).isEqualTo(s.schedulerName);
    }

    @Test
    void honest_devicePluginAccountWritesAssignedColourAndUsage() {
        var pod = agent.pods().inNamespace(NAME).withName("train");
        Pod marked = pod.patch(MERGE, "{\"metadata\":{\"annotations\":{\"" + Names.ANN_ASSIGNED + "\":\"true\",\"" + Names.ACK_GPU_MEM_ASSIGNED
                + "\":\"true\",\"" + Names.ANN_MPS_COLOUR + "\":\"" + Names.MPS_COLOUR_BLUE + "\"}}}");
        assertThat(marked.getMetadata().getAnnotations()).containsEntry(Names.ANN_ASSIGNED, "true").containsEntry(Names.ANN_MPS_COLOUR, Names.MPS_COLOUR_BLUE);
        assertThat(pod.patch(MERGE, annotate(Names.ANN_USAGE, "v1;at=2026-12-01T00:00:00Z")).getMetadata().getAnnotations()).containsKey(Names.ANN_USAGE);
    }

    /** Why the webhook need not see pod updates: every field it judges but the annotations is immutable once the pod exists. */
    @Test
    void podUpdate_envAndHostPathsImmutable_refusedByTheApiServerItself() {
        var pod = tenant.pods().inNamespace(NAME).withName("train");
        assertThatThrownBy(() -> pod.edit(p -> new PodBuilder(p).editSpec().editFirstContainer().addNewEnv().withName(Names.ENV_VISIBLE_DEVICES).withValue("all")
                .endEnv().endContainer().endSpec().build())).isInstanceOf(KubernetesClientException.class).hasMessageContaining("pod updates may not change fields");
        assertThatThrownBy(() -> pod.edit(p -> new PodBuilder(p).editSpec().editFirstContainer().addNewEnvFrom().withNewConfigMapRef().withName("all-gpus")
                .endConfigMapRef().endEnvFrom().endContainer().endSpec().build())).isInstanceOf(KubernetesClientException.class)
                .hasMessageContaining("pod updates may not change fields");
    }
}
