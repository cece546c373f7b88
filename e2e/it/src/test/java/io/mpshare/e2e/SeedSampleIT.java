package io.mpshare.e2e;

import io.mpshare.scheduler.cluster.BindingCrudDispatcher;

import io.fabric8.kubernetes.api.model.GroupVersionKindBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.admission.v1.AdmissionRequestBuilder;
import io.fabric8.kubernetes.api.model.admission.v1.AdmissionReview;
import io.fabric8.kubernetes.api.model.admission.v1.AdmissionReviewBuilder;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;
import io.mpshare.admission.review.PodAdmission;
import io.mpshare.core.MemoryUnit;
import io.mpshare.core.Names;
import io.mpshare.core.model.PodKey;
import io.mpshare.core.policy.BinpackPolicy;
import io.mpshare.core.validation.AdmissionRules;
import io.mpshare.core.validation.PodValidator;
import io.mpshare.core.validation.Tenancy;
import io.mpshare.deviceplugin.DevicePluginConfig;
import io.mpshare.deviceplugin.DevicePluginNode;
import io.mpshare.deviceplugin.api.v1beta1.ContainerAllocateResponse;
import io.mpshare.deviceplugin.testkit.FakeKubelet;
import io.mpshare.inspect.ClusterReader;
import io.mpshare.inspect.ReportRenderer;
import io.mpshare.mps.fake.FakeMpsControl;
import io.mpshare.nvml.fake.FakeNvml;
import io.mpshare.scheduler.ExtenderConfig;
import io.mpshare.scheduler.SchedulerExtender;
import io.mpshare.testing.Nodes;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.Base64;
import java.util.HashMap;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import java.util.function.BooleanSupplier;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The seed's sample Job (examples/mps-sample-job.yaml, byte for byte the seed's) where the modules meet: its pod
 * template through the webhook (validate, mutate), the extender's filter and bind over real HTTP against fabric8's
 * mock API server, the device plugin's Allocate through a fake kubelet on unix sockets (FakeNvml, FakeMpsControl),
 * and what {@code kubectl mpshare inspect} then prints.
 */
class SeedSampleIT {
    static final Duration WAIT = Duration.ofSeconds(30);
    /** The pass after an Allocate (250 ms by default) marks the pod, not the periodic one (30 s). */
    static final Duration ASSIGNED_WITHIN = Duration.ofSeconds(10);
    static final Path SAMPLE = Path.of("../../examples/mps-sample-job.yaml");

    KubernetesMockServer server;
    KubernetesClient client;
    FakeKubelet kubelet;
    DevicePluginNode node;
    SchedulerExtender extender;
    final HttpClient http = HttpClient.newHttpClient();
    @TempDir Path tmp;

    @BeforeEach void start() throws Exception {
        server = new KubernetesMockServer(new Context(), new MockWebServer(), new HashMap<>(), new BindingCrudDispatcher(), false);
        server.init();
        client = server.createClient();
        client.nodes().resource(Nodes.node("n1").noInventory().build()).create(); // labelled; the device plugin publishes the GPUs
        Path dir = tmp.resolve("device-plugins");
        Path podRes = tmp.resolve("pod-resources/kubelet.sock");
        kubelet = new FakeKubelet(dir, podRes).start();
        var mps = new FakeMpsControl();
        var cfg = DevicePluginConfig.defaults("n1").withSockets(dir, kubelet.socket(), podRes)
                .withPeriods(Duration.ofMillis(500), Duration.ofSeconds(1), DevicePluginConfig.defaults("n1").reconcileDelay())
                .withPodFieldSelector(false);
        node = DevicePluginNode.start(cfg, DevicePluginNode.Io.of(new FakeNvml().addH200().addH200(), client, c -> mps::daemonUp, cfg.runDir()));
        await("inventory published", () -> {
            var a = client.nodes().withName("n1").get().getMetadata().getAnnotations();
            return a != null && a.containsKey(Names.ANN_NODE_GPUS);
        });
        extender = new SchedulerExtender(ExtenderConfig.defaults().withPort(0).withStart(WAIT, "it"), client, new BinpackPolicy(), Clock.systemUTC());
        extender.start();
        kubelet.awaitList(Names.RESOURCE_GPU_MEM, l -> l.getDevicesCount() > 0, WAIT);
    }

    @AfterEach void stop() {
        if (extender != null) extender.close();
        if (node != null) node.close();
        if (kubelet != null) kubelet.close();
        client.close();
        server.destroy();
    }

    static void await(String what, BooleanSupplier cond) throws InterruptedException {
        long end = System.nanoTime() + WAIT.toNanos();
        while (!cond.getAsBoolean()) {
            if (System.nanoTime() > end) throw new AssertionError("not within " + WAIT + ": " + what);
            Thread.sleep(20);
        }
    }

    /** The Job's pod template as the Job controller would create it, with {@code <NODE_NAME>} filled in as the seed says. */
    static Pod samplePod(String nodeName) throws Exception {
        String yaml = Files.readString(SAMPLE).replace("<NODE_NAME>", nodeName);
        Job job = Serialization.unmarshal(yaml, Job.class);
        var t = job.getSpec().getTemplate();
        return new PodBuilder().withNewMetadata().withName("mps-sample-x7k2p").withNamespace("default")
                .withLabels(t.getMetadata().getLabels()).addToLabels("job-name", "mps-sample").endMetadata()
                .withSpec(t.getSpec()).build();
    }

    static AdmissionReview review(Pod pod) {
        return new AdmissionReviewBuilder().withApiVersion("admission.k8s.io/v1").withKind("AdmissionReview")
                .withRequest(new AdmissionRequestBuilder().withUid("req-1").withNamespace("default").withOperation("CREATE")
                        .withKind(new GroupVersionKindBuilder().withGroup("").withVersion("v1").withKind("Pod").build())
                        .withObject(pod).build()).build();
    }

    String post(String verb, String body) throws Exception {
        var r = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + extender.port() + Names.EXTENDER_PREFIX + "/" + verb))
                .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).isEqualTo(200);
        return r.body();
    }

    @Test void seedSample_webhookExtenderDevicePluginInspect() throws Exception {
        // byte for byte the seed's sample-job.yaml (its SHA-256, taken from the seed)
        assertThat(java.util.HexFormat.of().formatHex(java.security.MessageDigest.getInstance("SHA-256").digest(Files.readAllBytes(SAMPLE))))
                .isEqualTo("8aacf6c5f5eaa8ffb6be3d9d67e0b38105479b7ab92e848374e1feb00ea724e8");
        Pod pod = samplePod("n1");

        // 1. webhook: in a namespace labelled mpshare.io/tenancy=trusted allowed (root, hostPID and hostIPC warned about),
        //    steered to the mpshare scheduler, limits untouched; in a strict one refused with the label to add
        var admission = new PodAdmission(new PodValidator(AdmissionRules.defaults(Set.of("mpshare-system"))),
                () -> OptionalLong.of(FakeNvml.H200_MIB), Names.SCHEDULER_NAME);
        var validated = admission.validate(review(pod), Tenancy.TRUSTED).getResponse();
        assertThat(validated.getAllowed()).as("%s", validated.getStatus()).isTrue();
        assertThat(validated.getWarnings()).anySatisfy(w -> assertThat(w).contains("runs as root"));
        assertThat(admission.validate(review(pod), Tenancy.STRICT).getResponse().getStatus().getMessage())
                .contains(Names.LABEL_TENANCY + "=" + Names.TENANCY_TRUSTED);
        var mutated = admission.mutate(review(pod)).getResponse();
        String patch = new String(Base64.getDecoder().decode(mutated.getPatch()), StandardCharsets.UTF_8);
        assertThat(patch).contains("/spec/schedulerName").contains(Names.SCHEDULER_NAME).doesNotContain("resources");
        pod.getSpec().setSchedulerName(Names.SCHEDULER_NAME);
        client.pods().resource(pod).create();
        String uid = client.pods().inNamespace("default").withName(pod.getMetadata().getName()).get().getMetadata().getUid();

        // 2. extender over HTTP: filter keeps n1, bind writes the allocation and the binding
        String filterArgs = "{\"Pod\":" + Serialization.asJson(client.pods().inNamespace("default").withName(pod.getMetadata().getName()).get())
                + ",\"NodeNames\":[\"n1\"]}";
        await("extender sees n1's GPUs", () -> {
            try { return post("filter", filterArgs).contains("\"NodeNames\":[\"n1\"]"); } catch (Exception e) { return false; }
        });
        String bind = post("bind", "{\"PodName\":\"" + pod.getMetadata().getName() + "\",\"PodNamespace\":\"default\",\"PodUID\":\"" + uid
                + "\",\"Node\":\"n1\"}");
        assertThat(bind).contains("\"Error\":\"\"");
        Pod bound = client.pods().inNamespace("default").withName(pod.getMetadata().getName()).get();
        assertThat(bound.getSpec().getNodeName()).isEqualTo("n1");
        assertThat(bound.getMetadata().getAnnotations()).containsKey(Names.ANN_ALLOCATION);

        // 3. kubelet admits the container: the device plugin answers
        PodKey key = PodKey.of("default", pod.getMetadata().getName());
        await("device plugin sees the bound pod", () -> node.pods().get(key).map(p -> p.getSpec().getNodeName() != null
                && p.getMetadata().getAnnotations() != null && p.getMetadata().getAnnotations().containsKey(Names.ANN_ALLOCATION)).orElse(false));
        ContainerAllocateResponse r = kubelet.admit(key, "mps-sample", Names.RESOURCE_GPU_MEM, 7);
        Map<String, String> env = r.getEnvsMap();
        String gpuUuid = env.get(Names.ENV_VISIBLE_DEVICES);
        assertThat(gpuUuid).matches("GPU-fake-[01]");
        assertThat(env).containsEntry(Names.ENV_MPS_MEM_LIMIT, "0=8192M") // 7 GiB + the 1024 MiB default context reserve
                .containsEntry(Names.ENV_MPS_PIPE, "/run/mpshare/blue/pipe")
                .doesNotContainKey(Names.ENV_MPS_THREADS);
        long answered = System.nanoTime();
        await("assigned, with its colour", () -> {
            var a = client.pods().inNamespace("default").withName(pod.getMetadata().getName()).get().getMetadata().getAnnotations();
            return "true".equals(a.get(Names.ANN_ASSIGNED)) && "blue".equals(a.get(Names.ANN_MPS_COLOUR));
        });
        assertThat(Duration.ofNanos(System.nanoTime() - answered)).as("Allocate answered -> marked assigned").isLessThan(ASSIGNED_WITHIN);

        // 4. kubectl mpshare inspect
        client.pods().inNamespace("default").withName(pod.getMetadata().getName()).editStatus(p -> {
            p.setStatus(new io.fabric8.kubernetes.api.model.PodStatusBuilder().withPhase("Running").build());
            return p;
        });
        var renderer = new ReportRenderer(MemoryUnit.GIB);
        var report = new ClusterReader(client, MemoryUnit.GIB).read(null);
        String table = renderer.table(report, true);
        System.out.println(table);
        // 7 GiB + 1024 MiB reserve = 8192 MiB of 143771 MiB, shown in the cluster's unit (GiB)
        assertThat(table).containsPattern("n1 +" + gpuUuid.substring(gpuUuid.length() - 1) + " +NVIDIA H200 +8/140\\.4 \\(6%\\)")
                .containsPattern("default/mps-sample-x7k2p +8 ");
        String json = renderer.json(report);
        System.out.println(json);
        assertThat(json).contains("mps-sample-x7k2p").contains("8192").contains("143771");
    }

    @Test void quota_podCarriesTheLimitAQuotaOnRequestsCounts() throws Exception {
        // kube-apiserver defaults an extended resource's request to its limit and enforces ResourceQuota
        // "requests.aliyun.com/gpu-mem" at admission; what mpshare must guarantee is that the pod it admits still
        // carries that limit (the webhook only ever adds spec.schedulerName) and that nobody writes a smaller one.
        Pod pod = samplePod("n1");
        var admission = new PodAdmission(new PodValidator(AdmissionRules.defaults(Set.of("mpshare-system"))),
                () -> OptionalLong.of(FakeNvml.H200_MIB), Names.SCHEDULER_NAME);
        var mutated = admission.mutate(review(pod)).getResponse();
        String patch = new String(Base64.getDecoder().decode(mutated.getPatch()), StandardCharsets.UTF_8);
        assertThat(patch).isEqualTo("[{\"op\":\"add\",\"path\":\"/spec/schedulerName\",\"value\":\"" + Names.SCHEDULER_NAME + "\"}]");
        assertThat(pod.getSpec().getContainers().getFirst().getResources().getLimits())
                .containsEntry(Names.RESOURCE_GPU_MEM, new Quantity("7"));
        assertThat(Files.readString(Path.of("../../docs/quota.md"))).contains("requests." + Names.RESOURCE_GPU_MEM);
    }
}
