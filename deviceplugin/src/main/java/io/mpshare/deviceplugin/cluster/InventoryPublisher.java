package io.mpshare.deviceplugin.cluster;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.mpshare.core.Names;
import io.mpshare.core.codec.InventoryCodec;
import io.mpshare.core.model.Gpu;
import io.mpshare.core.model.NodeInventory;
import io.mpshare.deviceplugin.devices.HealthState;
import io.mpshare.nvml.Nvml;

import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.Map;
import java.util.logging.Logger;

/**
 * Publishes the node's GPUs (NVML: index, UUID, model, MiB; health from the monitor) on the Node as
 * {@link Names#ANN_NODE_GPUS} ({@link InventoryCodec}) with {@link Names#ANN_NODE_GPUS_TIME}. Writes when the text
 * changes and, as a heartbeat, when the last write is older than {@code refresh}. One JSON merge patch each time, which
 * also sets the label {@link Names#NODE_LABEL_HEALTHY_GPUS} to the count of healthy GPUs: kube-scheduler v1.31 requeues
 * unschedulable pods on a Node label change (NodeAffinity registers for it) but drops annotation-only updates, so a
 * pod refused while the devices were unhealthy is retried as soon as they recover (docs/decisions/recovery-requeue.md).
 */
public final class InventoryPublisher {
    private static final Logger LOG = Logger.getLogger(InventoryPublisher.class.getName());

    private final KubernetesClient client;
    private final String node;
    private final InstantSource clock;
    private final Duration refresh;
    private final NodeInventory hardware;
    private String lastText;
    private Instant lastAt = Instant.MIN;

    public InventoryPublisher(KubernetesClient client, String node, NodeInventory hardware, InstantSource clock, Duration refresh) {
        this.client = client;
        this.node = node;
        this.hardware = hardware;
        this.clock = clock;
        this.refresh = refresh;
    }

    /** Reads the GPUs from NVML once; they do not change while the process runs. */
    public static NodeInventory readHardware(Nvml nvml, String node) {
        var gpus = new ArrayList<Gpu>();
        int n = nvml.deviceCount();
        for (int i = 0; i < n; i++) {
            Nvml.DeviceInfo d = nvml.device(i);
            gpus.add(new Gpu(d.index(), d.uuid(), d.name(), d.totalMib(), true));
        }
        return new NodeInventory(node, gpus);
    }

    public NodeInventory hardware() { return hardware; }

    public static NodeInventory withHealth(NodeInventory hw, HealthState health) {
        var gpus = new ArrayList<Gpu>();
        for (Gpu g : hw.gpus()) gpus.add(g.withHealthy(health.gpuHealthy(g.index())));
        return new NodeInventory(hw.node(), gpus);
    }

    private long healthyCount(HealthState health) {
        return hardware.gpus().stream().filter(g -> g.healthy() && health.gpuHealthy(g.index())).count();
    }

    /** Patches the Node if the inventory text changed or the heartbeat is due; returns whether it wrote. */
    public synchronized boolean publish(HealthState health) {
        String text = InventoryCodec.encode(withHealth(hardware, health));
        Instant now = clock.instant();
        if (text.equals(lastText) && now.isBefore(lastAt.plus(refresh))) return false;
        Map<String, String> ann = Map.of(Names.ANN_NODE_GPUS, text, Names.ANN_NODE_GPUS_TIME, now.toString());
        Map<String, String> labels = Map.of(Names.NODE_LABEL_HEALTHY_GPUS, Long.toString(healthyCount(health)));
        String json = client.getKubernetesSerialization().asJson(Map.of("metadata", Map.of("annotations", ann, "labels", labels)));
        client.nodes().withName(node).patch(PatchContext.of(PatchType.JSON_MERGE), json);
        if (!text.equals(lastText)) LOG.info("published GPU inventory of node " + node + ": " + text);
        lastText = text;
        lastAt = now;
        return true;
    }
}
