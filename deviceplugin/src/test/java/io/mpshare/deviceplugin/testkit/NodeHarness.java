package io.mpshare.deviceplugin.testkit;

import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;
import io.mpshare.core.Names;
import io.mpshare.core.model.NodeInventory;
import io.mpshare.core.model.PodKey;
import io.mpshare.deviceplugin.DevicePluginConfig;
import io.mpshare.deviceplugin.DevicePluginNode;
import io.mpshare.deviceplugin.api.v1beta1.ContainerAllocateResponse;
import io.mpshare.deviceplugin.api.v1beta1.Device;
import io.mpshare.deviceplugin.api.v1beta1.Mount;
import io.mpshare.deviceplugin.cluster.InventoryPublisher;
import io.mpshare.deviceplugin.devices.DeviceCatalog;
import io.mpshare.deviceplugin.health.SupervisorProbe;
import io.mpshare.nvml.FfmNvml;
import io.mpshare.nvml.Nvml;
import io.mpshare.nvml.fake.FakeNvml;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;

/**
 * Drives the whole device plugin with no Kubernetes and no kubelet, for the GPU suite (e2e/gpu): an in-memory API
 * server (fabric8 mock, CRUD), a {@link FakeKubelet} on sockets under {@code <work dir>}, real NVML (or {@code fake:N}),
 * and the supervisor's status file under {@code <run dir>} as the daemon probe.
 *
 * <pre>
 * java -cp 'lib/*' io.mpshare.deviceplugin.testkit.NodeHarness WORK_DIR RUN_DIR nvml|fake:N
 * stdin, one command a line; each answer is one line on stdout:
 *   admit NAME GIB [CORE [GPU,GPU...]]  → the env and mounts Allocate answered, as KEY=VALUE lines then "end"
 *   health                              → "health gpu-mem healthy=H unhealthy=U" (what kubelet last received)
 *   tick                                → polls the daemon and Xids now, then prints health
 *   quit
 * </pre>
 * A pod is placed on the GPUs given (default 0), as the extender would annotate it; {@code --gpu-count} is their number.
 */
public final class NodeHarness {
    private NodeHarness() {}

    public static void main(String[] args) throws Exception {
        if (args.length < 3) {
            System.err.println("usage: NodeHarness WORK_DIR RUN_DIR nvml|fake:N");
            System.exit(2);
        }
        Path work = Path.of(args[0]);
        Path runDir = Path.of(args[1]);
        Nvml nvml = args[2].startsWith("fake:") ? fake(Integer.parseInt(args[2].substring(5))) : FfmNvml.open();
        var server = new KubernetesMockServer(new Context(), new MockWebServer(), new HashMap<>(), new KubernetesCrudDispatcher(), false);
        server.init();
        try (KubernetesClient client = server.createClient();
             FakeKubelet kubelet = new FakeKubelet(work.resolve("device-plugins"), work.resolve("pod-resources/kubelet.sock")).start()) {
            client.nodes().resource(new NodeBuilder().withNewMetadata().withName("node-1").endMetadata().build()).create();
            var cfg = DevicePluginConfig.defaults("node-1").withSockets(work.resolve("device-plugins"), kubelet.socket(),
                    work.resolve("pod-resources/kubelet.sock")).withRunDir(runDir, false)
                    // no policer here: its pods are not real, and the suite's own processes must never be judged
                    // (the policer has its own GPU harness, io.mpshare.policing.harness.PolicerHarness)
                    .withPolicing(io.mpshare.deviceplugin.policing.PolicingConfig.off()).withPodFieldSelector(false);
            try (DevicePluginNode node = DevicePluginNode.start(cfg, DevicePluginNode.Io.of(nvml, client,
                    colour -> new SupervisorProbe(runDir, colour, true), runDir))) {
                NodeInventory inv = InventoryPublisher.readHardware(nvml, "node-1");
                kubelet.awaitList(Names.RESOURCE_GPU_MEM, l -> l.getDevicesCount() > 0, Duration.ofSeconds(30));
                System.out.println("ready " + inv.gpus().size() + " GPU(s)");
                loop(client, kubelet, node, inv);
            }
        } finally {
            server.destroy();
            nvml.close();
        }
        System.exit(0);
    }

    private static void loop(KubernetesClient client, FakeKubelet kubelet, DevicePluginNode node, NodeInventory inv) throws Exception {
        var in = new BufferedReader(new InputStreamReader(System.in));
        for (String line; (line = in.readLine()) != null; ) {
            String[] w = line.trim().split("\\s+");
            switch (w[0]) {
                case "admit" -> admit(client, kubelet, node, inv, w);
                case "tick" -> { node.health().tick(); health(kubelet); }
                case "health" -> health(kubelet);
                case "quit" -> { return; }
                case "" -> { }
                default -> System.out.println("error unknown command " + w[0]);
            }
            System.out.flush();
        }
    }

    private static void admit(KubernetesClient client, FakeKubelet kubelet, DevicePluginNode node, NodeInventory inv, String[] w) throws Exception {
        String name = w[1];
        long gib = Long.parseLong(w[2]);
        int core = w.length > 3 ? Integer.parseInt(w[3]) : 0;
        int[] gpus = w.length > 4 ? java.util.Arrays.stream(w[4].split(",")).mapToInt(Integer::parseInt).toArray() : new int[]{0};
        var pod = TestPods.pod(name).memCore("main", gib, core).on("node-1").gpuCount(gpus.length).placed(inv, gpus).build();
        long v = node.pods().version();
        client.pods().inNamespace("default").resource(pod).create();
        long end = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (node.pods().get(PodKey.of("default", name)).isEmpty() && System.nanoTime() < end) node.pods().awaitChange(v, Duration.ofMillis(100));
        try {
            ContainerAllocateResponse r = kubelet.admit(PodKey.of("default", name), "main", Names.RESOURCE_GPU_MEM, (int) gib);
            for (var e : new TreeMap<>(r.getEnvsMap()).entrySet()) System.out.println(e.getKey() + "=" + e.getValue());
            for (Mount m : r.getMountsList()) System.out.println("mount " + m.getHostPath() + " " + m.getContainerPath() + (m.getReadOnly() ? " ro" : " rw"));
            System.out.println("end");
        } catch (RuntimeException e) {
            System.out.println("error " + e.getMessage());
        }
    }

    private static void health(FakeKubelet kubelet) {
        Map<String, Integer> n = new TreeMap<>();
        for (Device d : kubelet.latest(Names.RESOURCE_GPU_MEM).getDevicesList()) n.merge(d.getHealth(), 1, Integer::sum);
        System.out.println("health gpu-mem healthy=" + n.getOrDefault(DeviceCatalog.HEALTHY, 0) + " unhealthy=" + n.getOrDefault(DeviceCatalog.UNHEALTHY, 0));
    }

    private static Nvml fake(int n) {
        FakeNvml f = new FakeNvml();
        for (int i = 0; i < n; i++) f.addH200();
        return f;
    }
}
