package io.mpshare.inspect;

import io.mpshare.core.codec.DomainsCodec.Domain;
import io.mpshare.core.codec.DomainsCodec.NodeDomains;
import io.mpshare.core.codec.DomainsCodec.Suspect;
import io.mpshare.core.codec.UsageCodec;
import io.mpshare.core.ledger.Allocation;
import io.mpshare.core.ledger.Phase;
import io.mpshare.core.model.Gpu;
import io.mpshare.core.model.NodeInventory;
import io.mpshare.core.model.PodKey;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;

/**
 * What {@code inspect} shows: per node and GPU, what is booked (the ledger's charge, requests plus CUDA context
 * reserves) against the GPU's total, what the node's policer last saw used, the pods on each GPU, and the MPS fault
 * domains serving them with their faults.
 *
 * @param problems things a person should look at: allocations that cannot be read, pods on GPUs the node does not list
 */
public record GpuReport(List<NodeRow> nodes, List<String> problems) {
    public GpuReport {
        nodes = List.copyOf(nodes);
        problems = List.copyOf(problems);
    }

    /** @param suspects the workloads the node holds as MPS fault suspects (their new pods get a domain of their own) */
    public record NodeRow(String name, List<GpuRow> gpus, List<Suspect> suspects) {
        public NodeRow {
            gpus = List.copyOf(gpus);
            suspects = List.copyOf(suspects);
        }

        public NodeRow(String name, List<GpuRow> gpus) { this(name, gpus, List.of()); }

        public long allocatedMib() { return gpus.stream().mapToLong(GpuRow::allocatedMib).sum(); }
        public long totalMib() { return gpus.stream().mapToLong(g -> g.gpu().totalMib()).sum(); }
        public OptionalLong usedMib() { return sum(gpus.stream().map(GpuRow::usedMib).toList()); }
    }

    /** @param usedMib sum of the pods' last reported use on this GPU; empty when no pod on it has reported */
    /** @param domains the MPS fault domains of the node's pods on this GPU, as the node last published them */
    public record GpuRow(Gpu gpu, List<PodRow> pods, List<Domain> domains) {
        public GpuRow {
            pods = List.copyOf(pods);
            domains = List.copyOf(domains);
        }

        public GpuRow(Gpu gpu, List<PodRow> pods) { this(gpu, pods, List.of()); }

        public long allocatedMib() { return pods.stream().mapToLong(PodRow::allocatedMib).sum(); }
        public OptionalLong usedMib() { return sum(pods.stream().map(PodRow::usedMib).toList()); }
    }

    /** One pod on one GPU: booked there, used there (empty when not reported), and its phase. */
    public record PodRow(PodKey pod, long allocatedMib, OptionalLong usedMib, Phase phase) {}

    public long allocatedMib() { return nodes.stream().mapToLong(NodeRow::allocatedMib).sum(); }

    public long totalMib() { return nodes.stream().mapToLong(NodeRow::totalMib).sum(); }

    public OptionalLong usedMib() { return sum(nodes.stream().map(NodeRow::usedMib).toList()); }

    public int gpuCount() { return nodes.stream().mapToInt(n -> n.gpus().size()).sum(); }

    public long podCount() { return nodes.stream().flatMap(n -> n.gpus().stream()).flatMap(g -> g.pods().stream()).map(PodRow::pod).distinct().count(); }

    private static OptionalLong sum(List<OptionalLong> xs) {
        long s = 0;
        boolean any = false;
        for (OptionalLong x : xs) if (x.isPresent()) { s += x.getAsLong(); any = true; }
        return any ? OptionalLong.of(s) : OptionalLong.empty();
    }

    /**
     * Builds the report. Pure: snapshot in, report out.
     *
     * @param usage    the pods' last {@code mpshare.io/usage}, by pod (absent: not reported)
     * @param problems problems found while reading, carried into the report
     */
    public static GpuReport of(List<NodeInventory> inventories, List<Allocation> allocations,
                               Map<PodKey, UsageCodec.PodUsage> usage, List<String> problems) {
        return of(inventories, allocations, usage, Map.of(), problems);
    }

    /** @param domains each node's published MPS fault domains ({@code mpshare.io/domains}), by node name (absent: none published) */
    public static GpuReport of(List<NodeInventory> inventories, List<Allocation> allocations,
                               Map<PodKey, UsageCodec.PodUsage> usage, Map<String, NodeDomains> domains, List<String> problems) {
        List<String> probs = new ArrayList<>(problems);
        List<NodeRow> rows = new ArrayList<>();
        List<NodeInventory> sorted = new ArrayList<>(inventories);
        sorted.sort(Comparator.comparing(NodeInventory::node));
        Map<String, List<Allocation>> byNode = new HashMap<>();
        for (Allocation a : allocations) byNode.computeIfAbsent(a.node(), n -> new ArrayList<>()).add(a);
        for (NodeInventory inv : sorted) {
            List<GpuRow> gpus = new ArrayList<>();
            List<Allocation> onNode = byNode.getOrDefault(inv.node(), List.of());
            for (Gpu g : inv.gpus()) {
                List<PodRow> pods = new ArrayList<>();
                for (Allocation a : onNode) {
                    if (!a.gpuIndices().contains(g.index())) continue;
                    pods.add(new PodRow(a.pod(), a.demand().chargeMib(), used(usage.get(a.pod()), g.index()), a.phase()));
                }
                pods.sort(Comparator.comparing(PodRow::pod));
                NodeDomains d = domains.get(inv.node());
                gpus.add(new GpuRow(g, pods, d == null ? List.of() : d.onGpu(g.index())));
            }
            NodeDomains d = domains.get(inv.node());
            rows.add(new NodeRow(inv.node(), gpus, d == null ? List.of() : d.suspects()));
            for (Allocation a : onNode)
                for (int idx : a.gpuIndices())
                    if (inv.gpu(idx) == null)
                        probs.add("pod " + a.pod() + " is booked on GPU " + idx + " of node " + a.node() + ", which the node does not list");
        }
        return new GpuReport(rows, probs);
    }

    private static OptionalLong used(UsageCodec.PodUsage u, int gpu) {
        if (u == null) return OptionalLong.empty();
        for (UsageCodec.GpuUsage g : u.gpus()) if (g.index() == gpu) return OptionalLong.of(g.usedMib());
        return OptionalLong.empty();
    }
}
