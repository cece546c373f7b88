package io.mpshare.e2e;

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
import io.mpshare.deviceplugin.api.v1beta1.ListAndWatchResponse;
import io.mpshare.deviceplugin.api.v1beta1.Mount;
import io.mpshare.deviceplugin.cluster.InventoryPublisher;
import io.mpshare.deviceplugin.devices.DeviceCatalog;
import io.mpshare.deviceplugin.health.SupervisorProbe;
import io.mpshare.deviceplugin.testkit.FakeKubelet;
import io.mpshare.deviceplugin.testkit.TestPods;
import io.mpshare.nvml.FfmNvml;
import io.mpshare.nvml.Nvml;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Predicate;

/**
 * The GPU suite's driver for the device plugin (e2e/gpu/deviceplugin-check.sh), with no Kubernetes and no kubelet: an
 * in-memory API server, a {@link FakeKubelet} on real gRPC unix sockets under WORK_DIR, real NVML, the supervisor's
 * status file under RUN_DIR as daemon probe, and a timed daemon kill seen through ListAndWatch.
 *
 * <pre>
 * java -cp '.device/lib/*:.device/dp-check.jar' io.mpshare.e2e.DevicePluginDrive WORK_DIR RUN_DIR [fake] [police]
 * (fake: one FakeNvml H200 instead of FfmNvml, for a dry run without a GPU; police: the policer on, every 500 ms,
 *  terminate: the suite's containers then sit in kubelet-shaped cgroups that map them to their pods)
 * stdin, one command a line:
 *   admit NAME GIB [CORE [UID]] → the pod (runAsUser UID, default 1000) with a running container "main" whose
 *                            containerID the policer can match ("cgroup /kubepods/pod&lt;uid&gt;/&lt;id&gt;"), then Allocate's
 *                            env (KEY=VALUE) and mounts ("mount HOST CONTAINER ro"), then "end"
 *   health                 → what kubelet last received for both resources
 *   killwatch PID          → SIGKILLs PID, prints when kubelet's ListAndWatch shows every gpu-mem device Unhealthy,
 *                            then when it shows them Healthy again (ms since the kill)
 *   quit
 * </pre>
 */
public final class DevicePluginDrive {
    private DevicePluginDrive() {}

    public static void main(String[] args) throws Exception {
        Path work = Path.of(args[0]);
        Path runDir = Path.of(args[1]);
        long t0 = System.nanoTime();
        Nvml nvml = java.util.List.of(args).contains("fake") ? fakeH200() : FfmNvml.open();
        boolean police = java.util.List.of(args).contains("police");
        var server = new KubernetesMockServer(new Context(), new MockWebServer(), new HashMap<>(), new KubernetesCrudDispatcher(), false);
        server.init();
        try (KubernetesClient client = server.createClient();
             FakeKubelet kubelet = new FakeKubelet(work.resolve("device-plugins"), work.resolve("pod-resources/kubelet.sock")).start()) {
            client.nodes().resource(new NodeBuilder().withNewMetadata().withName("node-1").endMetadata().build()).create();
            var cfg = DevicePluginConfig.defaults("node-1").withSockets(work.resolve("device-plugins"), kubelet.socket(),
                    work.resolve("pod-resources/kubelet.sock")).withRunDir(runDir, false)
                    // with "police" the suite's containers sit in kubelet-shaped cgroups of their pods: the policer judges them
                    .withPolicing(police ? io.mpshare.deviceplugin.policing.PolicingConfig.defaults().withInterval(Duration.ofMillis(500))
                            : io.mpshare.deviceplugin.policing.PolicingConfig.off()).withPodFieldSelector(false);
            try (DevicePluginNode node = DevicePluginNode.start(cfg, DevicePluginNode.Io.of(nvml, client,
                    colour -> new SupervisorProbe(runDir, colour, true), runDir))) {
                NodeInventory inv = InventoryPublisher.readHardware(nvml, "node-1");
                var reg = kubelet.awaitRegistration(Duration.ofSeconds(30));
                System.out.println("registered " + reg.getResourceName() + " endpoint " + reg.getEndpoint() + " version " + reg.getVersion());
                kubelet.awaitList(Names.RESOURCE_GPU_MEM, l -> l.getDevicesCount() > 0, Duration.ofSeconds(30));
                kubelet.awaitList(Names.RESOURCE_GPU_CORE, l -> l.getDevicesCount() > 0, Duration.ofSeconds(30));
                for (var g : inv.gpus()) System.out.println("inventory gpu " + g);
                System.out.println("node annotations " + client.nodes().withName("node-1").get().getMetadata().getAnnotations());
                System.out.printf("ready %d GPU(s) in %d ms%n", inv.gpus().size(), (System.nanoTime() - t0) / 1_000_000);
                health(kubelet);
                System.out.flush();
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
            try {
                switch (w[0]) {
                    case "admit" -> admit(client, kubelet, node, inv, w);
                    case "health" -> health(kubelet);
                    case "killwatch" -> killwatch(kubelet, Long.parseLong(w[1]));
                    case "quit" -> { return; }
                    case "" -> { }
                    default -> System.out.println("error unknown command " + w[0]);
                }
            } catch (Exception | AssertionError e) {
                System.out.println("error " + e);
                System.out.println("end");
            }
            System.out.flush();
        }
    }

    private static void admit(KubernetesClient client, FakeKubelet kubelet, DevicePluginNode node, NodeInventory inv, String[] w) throws Exception {
        String name = w[1];
        long gib = Long.parseLong(w[2]);
        int core = w.length > 3 ? Integer.parseInt(w[3]) : 0;
        long runAs = w.length > 4 ? Long.parseLong(w[4]) : 1000;
        var pod = TestPods.pod(name).memCore("main", gib, core).on("node-1").gpuCount(1).placed(inv, 0).build();
        String cid = java.util.HexFormat.of().formatHex(java.security.MessageDigest.getInstance("SHA-256").digest(pod.getMetadata().getUid().getBytes()));
        pod.getSpec().setSecurityContext(new io.fabric8.kubernetes.api.model.PodSecurityContextBuilder().withRunAsUser(runAs).withRunAsGroup(runAs).build());
        pod.getStatus().setPhase("Running");
        pod.getStatus().setContainerStatuses(java.util.List.of(new io.fabric8.kubernetes.api.model.ContainerStatusBuilder()
                .withName("main").withContainerID("containerd://" + cid).withReady(true).build()));

        System.out.println("annotations " + new TreeMap<>(pod.getMetadata().getAnnotations()));
        long v = node.pods().version();
        // the API server gives the pod its own UID: the container's cgroup must name that one
        String serverUid = client.pods().inNamespace("default").resource(pod).create().getMetadata().getUid();
        System.out.println("cgroup /kubepods/pod" + serverUid + "/" + cid);
        long end = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (node.pods().get(PodKey.of("default", name)).isEmpty() && System.nanoTime() < end) node.pods().awaitChange(v, Duration.ofMillis(100));
        long a0 = System.nanoTime();
        ContainerAllocateResponse r = kubelet.admit(PodKey.of("default", name), "main", Names.RESOURCE_GPU_MEM, (int) gib);
        long us = (System.nanoTime() - a0) / 1000;
        System.out.println("devices " + kubelet.heldBy(PodKey.of("default", name), "main", Names.RESOURCE_GPU_MEM).size()
                + " gpu-mem IDs, preferred+allocate " + us + " us");
        if (core > 0) {
            ContainerAllocateResponse c = kubelet.admit(PodKey.of("default", name), "main", Names.RESOURCE_GPU_CORE, core);
            System.out.println("core answer: " + c.getEnvsCount() + " env, " + c.getMountsCount() + " mounts");
        }
        for (var e : new TreeMap<>(r.getEnvsMap()).entrySet()) System.out.println(e.getKey() + "=" + e.getValue());
        for (Mount m : r.getMountsList()) System.out.println("mount " + m.getHostPath() + " " + m.getContainerPath() + (m.getReadOnly() ? " ro" : " rw"));
        System.out.println("end");
    }

    private static Nvml fakeH200() {
        var f = new io.mpshare.nvml.fake.FakeNvml();
        f.addH200();
        return f;
    }

    private static String count(ListAndWatchResponse l) {
        Map<String, Integer> n = new TreeMap<>();
        for (Device d : l.getDevicesList()) n.merge(d.getHealth(), 1, Integer::sum);
        return "healthy=" + n.getOrDefault(DeviceCatalog.HEALTHY, 0) + " unhealthy=" + n.getOrDefault(DeviceCatalog.UNHEALTHY, 0);
    }

    private static void health(FakeKubelet kubelet) {
        System.out.println("health gpu-mem " + count(kubelet.latest(Names.RESOURCE_GPU_MEM))
                + " gpu-core " + count(kubelet.latest(Names.RESOURCE_GPU_CORE)));
    }

    private static Predicate<ListAndWatchResponse> all(String h) {
        return l -> l.getDevicesCount() > 0 && l.getDevicesList().stream().allMatch(d -> d.getHealth().equals(h));
    }

    private static void killwatch(FakeKubelet kubelet, long pid) throws Exception {
        health(kubelet);
        var ph = ProcessHandle.of(pid).orElseThrow(() -> new IllegalStateException("no process " + pid));
        long k = System.nanoTime();
        ph.destroyForcibly();
        System.out.println("killed -9 " + pid);
        var l = kubelet.awaitList(Names.RESOURCE_GPU_MEM, all(DeviceCatalog.UNHEALTHY), Duration.ofSeconds(10));
        long u = (System.nanoTime() - k) / 1_000_000;
        var lc = kubelet.awaitList(Names.RESOURCE_GPU_CORE, all(DeviceCatalog.UNHEALTHY), Duration.ofSeconds(10));
        long uc = (System.nanoTime() - k) / 1_000_000;
        System.out.println("unhealthy gpu-mem after " + u + " ms (" + count(l) + "), gpu-core by " + uc + " ms (" + count(lc) + ")");
        System.out.flush();
        l = kubelet.awaitList(Names.RESOURCE_GPU_MEM, all(DeviceCatalog.HEALTHY), Duration.ofSeconds(60));
        long h = (System.nanoTime() - k) / 1_000_000;
        System.out.println("healthy gpu-mem again after " + h + " ms (" + count(l) + ")");
        System.out.println("end");
    }
}
