package io.mpshare.charts;

import com.marcnuri.helm.Helm;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.MutatingWebhookConfiguration;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingWebhook;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingWebhookConfiguration;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.rbac.ClusterRole;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBinding;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.mpshare.core.Names;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The chart, rendered twice (defaults; the other choice of every switch) and parsed into fabric8 types; each
 * assertion reads the shared renders, since a helm template call costs seconds.
 */
class ChartTest {
    static Rendered defaults, other;
    static final String FULL = "mpshare";

    @BeforeAll
    static void render() {
        defaults = Rendered.of(Map.of());
        other = Rendered.of(Map.ofEntries(
                Map.entry("scheduler.mode", "extender"),
                Map.entry("scheduler.extender.tls.secretName", "mpshare-extender-tls"),
                Map.entry("webhook.tls.mode", "secret"),
                Map.entry("webhook.tls.secretName", "mpshare-webhook-cert"),
                Map.entry("webhook.failurePolicy", "Ignore"),
                Map.entry("mpsControl.hostIPC", "true"),
                Map.entry("devicePlugin.mountDevShm", "true"),
                Map.entry("devicePlugin.deviceListStrategy", "device-specs"),
                Map.entry("devicePlugin.driverRoot", "/run/nvidia/driver"),
                Map.entry("mpsControl.colours.green.tag", "0.2.0"),
                Map.entry("runtimeClassName", "nvidia"),
                Map.entry("metrics.serviceMonitor.enabled", "true"),
                Map.entry("metrics.grafanaDashboard.enabled", "true"),
                Map.entry("kubeletRootDir", "/var/lib/k0s/kubelet")));
    }

    @Test
    void lint_passes() {
        var result = new Helm(Rendered.CHART).lint().strict().call();
        assertThat(result.isFailed()).as(String.join("\n", result.getMessages())).isFalse();
    }

    @Test
    void mpsControl_blueAndGreen_asTheSeedExpects() {
        for (String colour : List.of("blue", "green")) {
            DaemonSet ds = defaults.one(DaemonSet.class, FULL + "-mps-control-" + colour);
            PodSpec pod = ds.getSpec().getTemplate().getSpec();
            assertThat(ds.getSpec().getUpdateStrategy().getType()).isEqualTo("OnDelete");
            assertThat(pod.getPriorityClassName()).isEqualTo("system-node-critical");
            assertThat(pod.getNodeSelector()).containsEntry(Names.NODE_LABEL_SCHEDULE, Names.NODE_LABEL_SCHEDULE_MPS);
            assertThat(ds.getSpec().getTemplate().getMetadata().getLabels())
                    .containsEntry(Names.MPS_DAEMON_POD_LABEL, Names.MPS_DAEMON_POD_LABEL_VALUE)
                    .containsEntry("mpshare.io/colour", colour);
            assertThat(ds.getSpec().getSelector().getMatchLabels()).containsEntry("mpshare.io/colour", colour);
            assertThat(pod.getHostPID()).isTrue();
            assertThat(pod.getHostIPC()).isFalse();
            assertThat(hostPaths(pod)).containsExactly(Names.RUN_DIR + "/" + colour);
            Container c = Rendered.container(pod, "mps-control");
            assertThat(c.getArgs()).contains("mps-control", "--colour=" + colour, "--run-dir=" + Names.RUN_DIR);
            assertThat(c.getSecurityContext().getPrivileged()).isFalse();
            assertThat(c.getSecurityContext().getCapabilities().getDrop()).containsExactly("ALL");
            assertThat(c.getSecurityContext().getCapabilities().getAdd()).contains("SETUID", "SETGID", "KILL").doesNotContain("SYS_ADMIN");
            assertThat(env(c)).containsEntry(Names.ENV_VISIBLE_DEVICES, "all").containsEntry("NVIDIA_DRIVER_CAPABILITIES", "compute,utility");
            assertThat(c.getReadinessProbe().getExec().getCommand()).last().asString().contains(Names.RUN_DIR + "/" + colour + "/ready");
            assertThat(c.getLivenessProbe()).as("a liveness restart would kill every MPS client").isNull();
            assertThat(pod.getRuntimeClassName()).isNull();
        }
    }

    @Test
    void mpsControl_nonDefault_hostIpcAndPerColourTag() {
        PodSpec blue = other.one(DaemonSet.class, FULL + "-mps-control-blue").getSpec().getTemplate().getSpec();
        PodSpec green = other.one(DaemonSet.class, FULL + "-mps-control-green").getSpec().getTemplate().getSpec();
        assertThat(blue.getHostIPC()).isTrue();
        assertThat(green.getHostIPC()).isTrue();
        assertThat(blue.getContainers().getFirst().getImage()).endsWith(":0.1.0");
        assertThat(green.getContainers().getFirst().getImage()).endsWith(":0.2.0");
        assertThat(green.getRuntimeClassName()).isEqualTo("nvidia");
        PodSpec plugin = other.one(DaemonSet.class, FULL + "-device-plugin").getSpec().getTemplate().getSpec();
        assertThat(Rendered.container(plugin, "device-plugin").getArgs()).contains("--mount-dev-shm");
    }

    @Test
    void devicePlugin_deviceSpecs_findsTheDriverUnderTheHostsRootsMountedReadOnly() {
        PodSpec plugin = other.one(DaemonSet.class, FULL + "-device-plugin").getSpec().getTemplate().getSpec();
        Container c = Rendered.container(plugin, "device-plugin");
        assertThat(c.getArgs()).contains("--device-list-strategy=device-specs", "--driver-root=/run/nvidia/driver", "--driver-root-mount=/driver-root",
                "--dev-root=/", "--dev-root-mount=/host").noneMatch(a -> a.startsWith("--cdi-spec-dir"));
        assertThat(hostPaths(plugin)).contains("/run/nvidia/driver", "/dev");
        assertThat(c.getVolumeMounts()).filteredOn(m -> m.getMountPath().equals("/driver-root") || m.getMountPath().equals("/host/dev"))
                .hasSize(2).allMatch(m -> Boolean.TRUE.equals(m.getReadOnly()));
    }

    @Test
    void devicePlugin_rollingLeastPrivilege_kubeletSockets() {
        DaemonSet ds = defaults.one(DaemonSet.class, FULL + "-device-plugin");
        PodSpec pod = ds.getSpec().getTemplate().getSpec();
        assertThat(ds.getSpec().getUpdateStrategy().getType()).isEqualTo("RollingUpdate");
        assertThat(pod.getHostPID()).isTrue();
        assertThat(pod.getHostIPC()).isNull();
        assertThat(pod.getHostNetwork()).isNull();
        assertThat(hostPaths(pod)).containsExactlyInAnyOrder(Names.DEVICE_PLUGIN_DIR, "/var/lib/kubelet/pod-resources", Names.RUN_DIR);
        assertThat(Names.POD_RESOURCES_SOCKET).startsWith("/var/lib/kubelet/pod-resources/");
        Container c = Rendered.container(pod, "device-plugin");
        assertThat(c.getArgs()).containsExactly("device-plugin", "--node-name=$(NODE_NAME)", "--run-dir=" + Names.RUN_DIR,
                "--metrics-port=39996", "--gpu-mem-unit=GiB", "--fault-domain-default=tenant", "--domain-fault-health=domain",
                "--suspect-faults=2", "--suspect-window=10m", "--suspect-hold=1h");
        assertThat(c.getSecurityContext().getPrivileged()).isFalse();
        assertThat(c.getSecurityContext().getReadOnlyRootFilesystem()).isTrue();
        assertThat(c.getSecurityContext().getAllowPrivilegeEscalation()).isFalse();
        assertThat(c.getSecurityContext().getCapabilities().getAdd()).containsExactly("KILL");
        assertThat(pod.getNodeSelector()).containsEntry(Names.NODE_LABEL_SCHEDULE, Names.NODE_LABEL_SCHEDULE_MPS);
        assertThat(pod.getServiceAccountName()).isEqualTo(FULL + "-device-plugin");
    }

    /** kubeletRootDir moves the host side of the device plugin's socket mounts and is what the webhook protects. */
    @Test
    void kubeletRootDir_devicePluginMountsItAndTheWebhookProtectsIt() {
        PodSpec plugin = other.one(DaemonSet.class, FULL + "-device-plugin").getSpec().getTemplate().getSpec();
        // this render's device-specs strategy adds the driver's root and /dev (read-only; ChartTest's default render has neither)
        assertThat(hostPaths(plugin)).containsExactlyInAnyOrder("/var/lib/k0s/kubelet/device-plugins", "/var/lib/k0s/kubelet/pod-resources", Names.RUN_DIR,
                "/run/nvidia/driver", "/dev");
        assertThat(Rendered.container(plugin, "device-plugin").getVolumeMounts()).extracting(m -> m.getMountPath())
                .contains(Names.DEVICE_PLUGIN_DIR, "/var/lib/kubelet/pod-resources");
        assertThat(Rendered.container(other.one(Deployment.class, FULL + "-webhook").getSpec().getTemplate().getSpec(), "webhook").getArgs())
                .contains("--kubelet-root-dir=/var/lib/k0s/kubelet");
        assertThat(Rendered.container(defaults.one(Deployment.class, FULL + "-webhook").getSpec().getTemplate().getSpec(), "webhook").getArgs())
                .contains("--kubelet-root-dir=" + Names.KUBELET_DIR);
    }

    @Test
    void scheduler_bundled_kubeSchedulerWithExtenderConfig() {
        Deployment d = defaults.one(Deployment.class, FULL + "-scheduler");
        PodSpec pod = d.getSpec().getTemplate().getSpec();
        assertThat(pod.getContainers()).extracting(Container::getName).containsExactly("kube-scheduler", "extender");
        assertThat(Rendered.container(pod, "extender").getArgs()).contains("scheduler-extender", "--port=" + Names.EXTENDER_PORT,
                "--verbs-from=loopback", "--scheduler-name=" + Names.SCHEDULER_NAME,
                "--policy=" + Names.DEFAULT_PLACEMENT_POLICY); // the policy simulate's report names as the extender's
        // the same fault-domain default as the device plugin's: placement follows the daemons the plugin will run
        assertThat(Rendered.container(pod, "extender").getArgs()).contains("--fault-domain-default=tenant");
        assertThat(Rendered.container(defaults.one(DaemonSet.class, FULL + "-device-plugin").getSpec().getTemplate().getSpec(), "device-plugin")
                .getArgs()).contains("--fault-domain-default=tenant");
        assertThat(Rendered.container(pod, "kube-scheduler").getCommand()).contains("--config=/etc/mpshare/scheduler-config.yaml");
        assertThat(Rendered.container(pod, "extender").getReadinessProbe().getHttpGet().getPath()).isEqualTo(Names.EXTENDER_PREFIX + "/readyz");
        // the verbs and inspect listen on loopback: kubelet's probes and the metrics scrape use the probes' port
        assertThat(Rendered.container(pod, "extender").getArgs()).contains("--probe-port=39998");
        assertThat(Rendered.container(pod, "extender").getPorts()).extracting(p -> p.getName() + ":" + p.getContainerPort()).containsExactly("probes:39998");
        assertThat(Rendered.container(pod, "extender").getReadinessProbe().getHttpGet().getPort().getStrVal()).isEqualTo("probes");
        assertThat(Rendered.container(pod, "extender").getLivenessProbe().getHttpGet().getPort().getStrVal()).isEqualTo("probes");
        assertThat(defaults.one(Service.class, FULL + "-scheduler-metrics").getMetadata().getLabels()).containsEntry("mpshare.io/metrics", "true");
        assertThat(defaults.one(Service.class, FULL + "-scheduler-metrics").getSpec().getPorts().getFirst().getTargetPort().getStrVal()).isEqualTo("probes");

        Map<String, Object> cfg = yaml(defaults.one(ConfigMap.class, FULL + "-scheduler-config").getData().get("scheduler-config.yaml"));
        assertThat(cfg).containsEntry("apiVersion", "kubescheduler.config.k8s.io/v1").containsEntry("kind", "KubeSchedulerConfiguration");
        assertThat(map(cfg.get("leaderElection"))).containsEntry("leaderElect", true);
        assertThat(map(list(cfg.get("profiles")).getFirst())).containsEntry("schedulerName", Names.SCHEDULER_NAME);
        Map<String, Object> ext = map(list(cfg.get("extenders")).getFirst());
        assertThat(ext).containsEntry("urlPrefix", "http://127.0.0.1:" + Names.EXTENDER_PORT + Names.EXTENDER_PREFIX)
                .containsEntry("filterVerb", "filter").containsEntry("prioritizeVerb", "prioritize").containsEntry("bindVerb", "bind")
                .containsEntry("preemptVerb", Names.EXTENDER_VERB_PREEMPT)
                .containsEntry("nodeCacheCapable", true);
        assertThat(list(ext.get("managedResources"))).containsExactly(
                Map.of("name", Names.RESOURCE_GPU_MEM, "ignoredByScheduler", false),
                Map.of("name", Names.RESOURCE_GPU_CORE, "ignoredByScheduler", false));

        assertThat(defaults.all(ClusterRoleBinding.class)).extracting(b -> b.getRoleRef().getName())
                .contains("system:kube-scheduler", "system:volume-scheduler", FULL + "-scheduler-extender");
        assertThat(defaults.has("Role", FULL + "-scheduler-leader-election")).isTrue();
        assertThat(defaults.has("RoleBinding", FULL + "-scheduler-auth-reader")).isTrue();
    }

    /** The agent reads namespaces (their fault-domain label) and never writes them. */
    @Test
    void devicePlugin_role_readsNamespacesOnly() {
        ClusterRole role = defaults.one(ClusterRole.class, FULL + "-device-plugin");
        Map<String, List<String>> verbs = new TreeMap<>();
        for (var rule : role.getRules())
            for (String res : rule.getResources()) verbs.computeIfAbsent(res, k -> new ArrayList<>()).addAll(rule.getVerbs());
        assertThat(verbs).containsEntry("namespaces", List.of("get", "list", "watch"));
    }

    /**
     * The extender's own role: it reads pods, nodes and namespaces (their fault-domain label), creates Bindings (annotations
     * inside) and patches pods (the requeue note).
     */
    @Test
    void scheduler_extenderRole_readsPodsNodesAndNamespaces_writesBindingsAndPatchesPods() {
        ClusterRole role = defaults.one(ClusterRole.class, FULL + "-scheduler-extender");
        Map<String, List<String>> verbs = new java.util.TreeMap<>();
        for (var rule : role.getRules())
            for (String res : rule.getResources()) verbs.computeIfAbsent(res, k -> new ArrayList<>()).addAll(rule.getVerbs());
        assertThat(verbs).containsOnly(
                Map.entry("nodes", List.of("get", "list", "watch")),
                Map.entry("namespaces", List.of("get", "list", "watch")),
                Map.entry("pods", List.of("get", "list", "watch", "patch")),
                Map.entry("pods/binding", List.of("create")),
                Map.entry("bindings", List.of("create")));
    }

    @Test
    void scheduler_extenderMode_noKubeSchedulerButAService() {
        PodSpec pod = other.one(Deployment.class, FULL + "-scheduler").getSpec().getTemplate().getSpec();
        assertThat(pod.getContainers()).extracting(Container::getName).containsExactly("extender");
        assertThat(other.one(Deployment.class, FULL + "-scheduler").getSpec().getReplicas()).isEqualTo(1);
        assertThat(other.has("ConfigMap", FULL + "-scheduler-config")).isFalse();
        Service svc = other.one(Service.class, FULL + "-scheduler-extender");
        assertThat(svc.getSpec().getPorts().getFirst().getPort()).isEqualTo(Names.EXTENDER_PORT);
        Container ext = Rendered.container(pod, "extender");
        assertThat(ext.getArgs()).contains("--scheduler-name=default-scheduler", "--tls-cert=/etc/mpshare/extender-tls/tls.crt",
                "--tls-key=/etc/mpshare/extender-tls/tls.key", "--tls-client-ca=/etc/mpshare/extender-tls/ca.crt").doesNotContain("--verbs-from=loopback");
        assertThat(ext.getReadinessProbe().getHttpGet().getScheme()).isEqualTo("HTTPS");
        assertThat(pod.getVolumes()).extracting(v -> v.getSecret() == null ? null : v.getSecret().getSecretName()).contains("mpshare-extender-tls");
    }

    /** Issue 12, item 6: the example scheduler config and the chart's give kube-scheduler the same extender entry (URL and weight aside). */
    @Test
    void scheduler_exampleConfigAgreesWithChart() throws Exception {
        java.nio.file.Path example = null;
        for (java.nio.file.Path p = java.nio.file.Path.of("").toAbsolutePath(); p != null && example == null; p = p.getParent())
            if (java.nio.file.Files.isRegularFile(p.resolve("scheduler/examples/kube-scheduler-config.yaml"))) example = p.resolve("scheduler/examples/kube-scheduler-config.yaml");
        assertThat(example).as("scheduler/examples/kube-scheduler-config.yaml above " + java.nio.file.Path.of("").toAbsolutePath()).isNotNull();
        Map<String, Object> mine = map(list(yaml(java.nio.file.Files.readString(example)).get("extenders")).getFirst());
        Map<String, Object> chart = map(list(yaml(defaults.one(ConfigMap.class, FULL + "-scheduler-config").getData().get("scheduler-config.yaml")).get("extenders")).getFirst());
        for (String k : List.of("filterVerb", "prioritizeVerb", "preemptVerb", "bindVerb", "enableHTTPS", "nodeCacheCapable", "ignorable", "managedResources"))
            assertThat(mine.get(k)).as(k).isEqualTo(chart.get(k));
        Map<String, Object> myProfile = map(list(yaml(java.nio.file.Files.readString(example)).get("profiles")).getFirst());
        Map<String, Object> chartProfile = map(list(yaml(defaults.one(ConfigMap.class, FULL + "-scheduler-config").getData().get("scheduler-config.yaml")).get("profiles")).getFirst());
        assertThat(chartProfile).as("every feasible node reaches the extender").containsEntry("percentageOfNodesToScore", 100);
        assertThat(myProfile.get("percentageOfNodesToScore")).isEqualTo(chartProfile.get("percentageOfNodesToScore"));
    }

    /** Issue 12, item 9: in extender mode the verbs must not be open to the cluster; without a TLS Secret the chart refuses to render. */
    @Test
    void scheduler_extenderModeWithoutTlsSecret_refusedWithHowTo() {
        assertThatThrownBy(() -> Rendered.of(Map.of("scheduler.mode", "extender")))
                .hasMessageContaining("scheduler.extender.tls.secretName").hasMessageContaining("client certificate");
    }

    @Test
    void webhook_selfSigned_failClosedScopedAndSteering() {
        Deployment d = defaults.one(Deployment.class, FULL + "-webhook");
        Container c = Rendered.container(d.getSpec().getTemplate().getSpec(), "webhook");
        assertThat(c.getArgs()).contains("webhook", "--service=" + FULL + "-webhook", "--namespace=" + Rendered.NAMESPACE,
                "--scheduler-name=" + Names.SCHEDULER_NAME, "--validating-webhook-configuration=" + FULL + "-webhook",
                "--mutating-webhook-configuration=" + FULL + "-webhook", "--tls-secret=" + FULL + "-webhook-tls");
        assertThat(defaults.one(Service.class, FULL + "-webhook").getSpec().getPorts().getFirst().getPort()).isEqualTo(443);
        ValidatingWebhook v = defaults.one(ValidatingWebhookConfiguration.class, FULL + "-webhook").getWebhooks().getFirst();
        assertThat(v.getFailurePolicy()).isEqualTo("Fail");
        assertThat(v.getSideEffects()).isEqualTo("None");
        assertThat(v.getClientConfig().getService().getPath()).isEqualTo("/validate");
        assertThat(v.getClientConfig().getService().getName()).isEqualTo(FULL + "-webhook");
        assertThat(v.getRules().getFirst().getResources()).containsExactly("pods");
        assertThat(v.getNamespaceSelector().getMatchExpressions().getFirst().getValues()).containsExactly("kube-system", Rendered.NAMESPACE);
        var m = defaults.one(MutatingWebhookConfiguration.class, FULL + "-webhook").getWebhooks().getFirst();
        assertThat(m.getClientConfig().getService().getPath()).isEqualTo("/mutate");
        assertThat(m.getReinvocationPolicy()).isEqualTo("Never");
        assertThat(defaults.has("PodDisruptionBudget", FULL + "-webhook")).isTrue();
    }

    @Test
    void webhook_secretMode_mountsItAndDoesNotMutateForTheDefaultScheduler() {
        Deployment d = other.one(Deployment.class, FULL + "-webhook");
        PodSpec pod = d.getSpec().getTemplate().getSpec();
        assertThat(Rendered.container(pod, "webhook").getArgs()).contains("--tls-cert-file=/tls/tls.crt", "--tls-key-file=/tls/tls.key")
                .noneMatch(a -> a.startsWith("--scheduler-name"));
        assertThat(pod.getVolumes()).extracting(Volume::getSecret).filteredOn(s -> s != null)
                .extracting(s -> s.getSecretName()).containsExactly("mpshare-webhook-cert");
        assertThat(other.all(MutatingWebhookConfiguration.class)).isEmpty();
        assertThat(other.one(ValidatingWebhookConfiguration.class, FULL + "-webhook").getWebhooks().getFirst().getFailurePolicy()).isEqualTo("Ignore");
        assertThat(other.has("Role", FULL + "-webhook-tls")).isFalse();
    }

    @Test
    void everyContainer_hasResourcesAndProbes() {
        for (Rendered r : List.of(defaults, other)) {
            r.podSpecs().forEach(e -> {
                for (Container c : e.getValue().getContainers()) {
                    String where = e.getKey() + "/" + c.getName();
                    assertThat(c.getResources().getRequests()).as(where).containsKeys("cpu", "memory");
                    assertThat(c.getResources().getLimits()).as(where).containsKey("memory");
                    assertThat(c.getReadinessProbe()).as(where).isNotNull();
                    if (!c.getName().equals("mps-control")) assertThat(c.getLivenessProbe()).as(where).isNotNull();
                    assertThat(c.getSecurityContext().getSeccompProfile().getType()).as(where).isEqualTo("RuntimeDefault");
                }
            });
        }
    }

    @Test
    void monitoring_offByDefault_onWhenAsked() {
        assertThat(defaults.names()).noneMatch(n -> n.startsWith("ServiceMonitor/") || n.endsWith("-dashboard"));
        assertThat(other.has("ServiceMonitor", FULL)).isTrue();
        String dashboard = other.one(ConfigMap.class, FULL + "-dashboard").getData().get("mpshare.json");
        Map<String, Object> json = yaml(dashboard);
        assertThat(json).containsEntry("uid", "mpshare-overview");
        assertThat(list(json.get("panels"))).hasSizeGreaterThan(5);
    }

    /** The filter's shortlist (docs/decisions/filter-shortlist.md): 32 by default, 0 keeps every node; never 1 (kube-scheduler would skip prioritize). */
    @Test
    void scheduler_shortlist_defaultZeroAndOne() {
        PodSpec pod = defaults.one(Deployment.class, FULL + "-scheduler").getSpec().getTemplate().getSpec();
        assertThat(Rendered.container(pod, "extender").getArgs()).contains("--shortlist=32");
        PodSpec off = Rendered.of(Map.of("scheduler.extender.shortlist", "0")).one(Deployment.class, FULL + "-scheduler").getSpec().getTemplate().getSpec();
        assertThat(Rendered.container(off, "extender").getArgs()).contains("--shortlist=0").doesNotContain("--shortlist=32");
        assertThatThrownBy(() -> Rendered.of(Map.of("scheduler.extender.shortlist", "1"))).hasMessageContaining("shortlist");
    }

    /** The filter's pick for GPU pods without preferences (docs/decisions/pick-in-filter.md): on by default, off when set false. */
    @Test
    void scheduler_pickInFilter_onByDefault_offWhenFalse() {
        PodSpec pod = defaults.one(Deployment.class, FULL + "-scheduler").getSpec().getTemplate().getSpec();
        assertThat(Rendered.container(pod, "extender").getArgs()).contains("--pick-in-filter=true");
        PodSpec off = Rendered.of(Map.of("scheduler.extender.pickInFilter", "false")).one(Deployment.class, FULL + "-scheduler").getSpec().getTemplate().getSpec();
        assertThat(Rendered.container(off, "extender").getArgs()).contains("--pick-in-filter=false");
    }

    @Test
    void schema_rejectsUnknownMode() {
        assertThatThrownBy(() -> Rendered.of(Map.of("scheduler.mode", "bogus"))).hasMessageContaining("scheduler.mode");
    }

    private static List<String> hostPaths(PodSpec pod) {
        return pod.getVolumes().stream().filter(v -> v.getHostPath() != null).map(v -> v.getHostPath().getPath()).toList();
    }

    private static Map<String, String> env(Container c) {
        return c.getEnv().stream().filter(e -> e.getValue() != null).collect(java.util.stream.Collectors.toMap(EnvVar::getName, EnvVar::getValue));
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> yaml(String text) { return new KubernetesSerialization().unmarshal(text, Map.class); }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> map(Object o) { return (Map<String, Object>) o; }

    @SuppressWarnings("unchecked")
    private static List<Object> list(Object o) { return (List<Object>) o; }
}
