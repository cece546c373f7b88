package io.mpshare.e2e.k8s;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.Watch;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.WatcherException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.mpshare.core.Names;
import io.mpshare.core.codec.InventoryCodec;
import io.mpshare.core.model.Gpu;
import io.mpshare.core.model.NodeInventory;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;

/**
 * What the scenarios that repeat one shape many times share: the trial count, a clean corner between trials (no pod
 * left, the extender's ledger empty), GPU health changes as the device plugin publishes them, kubelet's part of a
 * deletion, and the extender's own view through {@code inspect}.
 */
final class Trials {
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    private static final ObjectMapper JSON = new ObjectMapper();

    private Trials() {}

    /** Trials per scenario: {@code -Dmpshare.e2e.trials=N}, 20 by default. */
    static int count() { return Integer.getInteger("mpshare.e2e.trials", 20); }

    /** Deletes every pod of the scenario at once (grace 0) and waits until the API server and the extender have none. */
    static void clear(Scenario s, Components.Extender ext, String node) {
        s.c.pods().inNamespace(s.ns).withGracePeriod(0).delete();
        s.awaitPods(List::isEmpty, Duration.ofSeconds(30));
        awaitLedger(ext, node, gpus -> podsOn(gpus) == 0, Duration.ofSeconds(30));
    }

    /** Pods the extender's ledger books on a node, from {@code inspect/{node}}. */
    static int podsOn(JsonNode gpus) {
        int n = 0;
        for (JsonNode g : gpus) n += g.get("pods").size();
        return n;
    }

    /** Polls {@code inspect/{node}} (100 ms) until {@code done} holds for its GPUs; fails after {@code timeout}. */
    static JsonNode awaitLedger(Components.Extender ext, String node, Predicate<JsonNode> done, Duration timeout) {
        long end = System.nanoTime() + timeout.toNanos();
        JsonNode gpus = null;
        while (System.nanoTime() < end) {
            gpus = inspect(ext, node);
            if (gpus != null && done.test(gpus)) return gpus;
            ControlPlane.sleep(100);
        }
        throw new AssertionError("the extender's ledger for " + node + " did not reach the expected state within " + timeout.toSeconds() + " s: " + gpus);
    }

    /** The GPUs of {@code node} as the extender's ledger has them, or null when it does not know the node. */
    static JsonNode inspect(Components.Extender ext, String node) {
        try {
            var r = HTTP.send(HttpRequest.newBuilder(URI.create(ext.url() + "/inspect/" + node)).timeout(Duration.ofSeconds(2)).GET().build(),
                    HttpResponse.BodyHandlers.ofString());
            JsonNode body = JSON.readTree(r.body());
            JsonNode nodes = body.get("nodes");
            return nodes == null || nodes.isEmpty() ? null : nodes.get(0).get("gpus");
        } catch (IOException e) {
            return null;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted", e);
        }
    }

    /** Publishes GPU {@code index} of {@code node} healthy or not, as the device plugin does: inventory and healthy-GPU label. */
    static void setHealth(KubernetesClient c, String node, int index, boolean healthy) {
        Node n = c.nodes().withName(node).get();
        NodeInventory inv = InventoryCodec.decode(node, n.getMetadata().getAnnotations().get(Names.ANN_NODE_GPUS));
        List<Gpu> gpus = new ArrayList<>();
        for (Gpu g : inv.gpus()) gpus.add(g.index() == index ? new Gpu(g.index(), g.uuid(), g.model(), g.totalMib(), healthy) : g);
        long up = gpus.stream().filter(Gpu::healthy).count();
        var patch = Map.of("metadata", Map.of(
                "annotations", Map.of(Names.ANN_NODE_GPUS, InventoryCodec.encode(new NodeInventory(node, gpus)), Names.ANN_NODE_GPUS_TIME, Instant.now().toString()),
                "labels", Map.of(Names.NODE_LABEL_HEALTHY_GPUS, Long.toString(up))));
        c.nodes().withName(node).patch(PatchContext.of(PatchType.JSON_MERGE), c.getKubernetesSerialization().asJson(patch));
    }

    /** Waits until pod {@code name} is bound; returns the moment it was seen bound, or null after {@code timeout}. */
    static Pod awaitBound(Scenario s, String name, Duration timeout) {
        long end = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < end) {
            Pod p = s.c.pods().inNamespace(s.ns).withName(name).get();
            if (p != null && p.getSpec().getNodeName() != null) return p;
            ControlPlane.sleep(50);
        }
        return null;
    }

    /** Waits for kube-scheduler's first FailedScheduling event of pod {@code name}; its message, or null after {@code timeout}. */
    static String awaitRefusal(Scenario s, String name, Duration timeout) {
        long end = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < end) {
            var hit = s.events("FailedScheduling").stream().filter(e -> name.equals(e.getInvolvedObject().getName())).findFirst();
            if (hit.isPresent()) return hit.get().getMessage();
            ControlPlane.sleep(50);
        }
        return null;
    }

    /** kubelet's part of a deletion: a pod given a deletion timestamp is removed (grace 0); who went, and when, is recorded. */
    static Watch finaliseDeletions(KubernetesClient c, String ns, Map<String, Instant> deleting) {
        return c.pods().inNamespace(ns).watch(new Watcher<>() {
            @Override public void eventReceived(Action action, Pod p) {
                if (action == Action.DELETED || p.getMetadata().getDeletionTimestamp() == null) return;
                deleting.putIfAbsent(p.getMetadata().getName(), Instant.now());
                c.pods().inNamespace(ns).withName(p.getMetadata().getName()).withGracePeriod(0).delete();
            }

            @Override public void onClose(WatcherException e) { }
        });
    }

    /** {@code min / median / max s} of the times, or "none". */
    static String summary(List<Double> secs) {
        if (secs.isEmpty()) return "none";
        List<Double> sorted = new ArrayList<>(secs);
        sorted.sort(null);
        return String.format("%.2f / %.2f / %.2f s (min / median / max)", sorted.getFirst(), sorted.get(sorted.size() / 2), sorted.getLast());
    }

    /** Seconds from {@code t0} (System.nanoTime) to now. */
    static double since(long t0) { return (System.nanoTime() - t0) / 1e9; }
}
