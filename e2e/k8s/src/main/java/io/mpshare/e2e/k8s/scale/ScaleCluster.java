package io.mpshare.e2e.k8s.scale;

import io.fabric8.kubernetes.api.model.Pod;
import io.mpshare.core.MemoryUnit;
import io.mpshare.core.Names;
import io.mpshare.core.codec.AllocationCodec;
import io.mpshare.core.ledger.AssumeResult;
import io.mpshare.core.ledger.Ledger;
import io.mpshare.core.model.Gpu;
import io.mpshare.core.model.GpuDemand;
import io.mpshare.core.model.NodeInventory;
import io.mpshare.core.model.PodKey;
import io.mpshare.core.policy.BinpackPolicy;
import io.mpshare.e2e.k8s.Bookings;
import io.mpshare.e2e.k8s.GpuNodes;
import io.mpshare.testing.Pods;

import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.function.ToIntFunction;
import java.util.stream.IntStream;

/**
 * The cluster the scale benchmark schedules into, generated from a seed: {@code nodes} nodes of 8 GPUs of one model
 * each, drawn from a mix of data-centre models, and the pods already booked there, bound and annotated as the extender
 * would have left them (a mix of whole GPUs, multi-GPU jobs and shares; per node a fill drawn around {@code fill}
 * of its GPU memory: some nodes empty, some full).
 *
 * <p>Bookings are placed by best fit on an in-memory {@link Ledger} and written as the extender's allocation
 * annotation ({@link AllocationCodec}) on a pod whose {@code spec.nodeName} is set and whose limits ask the same,
 * so the extender's ledger, rebuilt from the API, and kube-scheduler's node totals agree.
 */
public record ScaleCluster(List<GpuNodes.Spec> nodes, List<Pod> booked) {
    /** GPU model (as NVML names it), MiB, and how many nodes in 20 have it. */
    record Model(String name, long mib, int weight) {}
    static final List<Model> MODELS = List.of(
            new Model("NVIDIA H200", 143_771, 5), new Model("NVIDIA A100-SXM4-80GB", 81_251, 5),
            new Model("NVIDIA L40S", 46_068, 4), new Model("NVIDIA A10", 22_731, 4), new Model("Tesla T4", 15_109, 2));

    /** A booked pod's shape: GPUs, share of each GPU's memory, percent of each GPU's cores (0: none asked), weight. */
    record Shape(int gpus, double share, int corePerGpu, int weight) {}
    static final List<Shape> BOOKED = List.of( // a pod asks at most 100 percent of cores in all (the extender's rule): multi-GPU jobs ask none
            new Shape(1, 1.0, 100, 25), new Shape(2, 1.0, 0, 10), new Shape(4, 1.0, 0, 5), new Shape(8, 1.0, 0, 2),
            new Shape(1, 0.5, 50, 15), new Shape(1, 0.25, 0, 10), new Shape(1, 0.125, 0, 5));

    public static final int GPUS_PER_NODE = 8;
    public static final String NODE_PREFIX = "scale-n";

    /** The cluster for {@code seed}: node specs (with {@code labels}) and the booked pods in namespace {@code ns}, for profile {@code schedulerName}. */
    public static ScaleCluster generate(int nodes, double fill, long seed, String ns, String schedulerName, Map<String, String> labels) {
        if (nodes < 1) throw new IllegalArgumentException("nodes must be >= 1, got " + nodes);
        if (!(fill >= 0 && fill <= 1)) throw new IllegalArgumentException("fill must be within 0..1, got " + fill);
        Random r = new Random(seed);
        Ledger ledger = new Ledger(InstantSource.system(), Duration.ofDays(1));
        var policy = new BinpackPolicy();
        List<GpuNodes.Spec> specs = new ArrayList<>(nodes);
        List<Pod> pods = new ArrayList<>();
        int width = String.valueOf(nodes - 1).length();
        for (int i = 0; i < nodes; i++) {
            Model m = pick(MODELS, Model::weight, r);
            String name = NODE_PREFIX + String.format("%0" + width + "d", i);
            specs.add(new GpuNodes.Spec(name, GPUS_PER_NODE, m.mib(), m.name(), labels));
            List<Gpu> gpus = IntStream.range(0, GPUS_PER_NODE).mapToObj(g -> new Gpu(g, "GPU-" + name + "-" + g, m.name(), m.mib(), true)).toList();
            ledger.upsertNode(new NodeInventory(name, gpus));
            // a fill per node: 15 % empty, 15 % as full as the shapes allow, the rest spread around the mean
            double u = r.nextDouble();
            double target = u < 0.15 ? 0 : u < 0.30 ? 1 : Math.min(1, Math.max(0, fill + (r.nextDouble() - 0.5) * fill * 1.2));
            long capacity = m.mib() * GPUS_PER_NODE, booked = 0;
            for (int misses = 0, j = 0; booked < target * capacity && misses < 6; ) {
                Shape s = pick(BOOKED, Shape::weight, r);
                long gibPerGpu = Math.max(1, (long) Math.floor(s.share() * m.mib() / 1024.0) - Names.DEFAULT_CONTEXT_RESERVE_MIB / 1024);
                GpuDemand d = GpuDemand.simple(gibPerGpu * 1024 * s.gpus(), s.corePerGpu() * s.gpus(), s.gpus(), Names.DEFAULT_CONTEXT_RESERVE_MIB);
                String pod = "pre-" + name + "-" + j;
                if (!(ledger.assume(new PodKey(ns, pod), "", name, d, policy) instanceof AssumeResult.Assumed a)) { misses++; continue; }
                j++;
                booked += d.chargeMib() * s.gpus();
                int cpu = Math.max(1, (int) Math.floor(7 * s.share() * s.gpus())); // a full node's pods leave 8 of its 64 CPUs
                Pods b = Pods.pod(pod).namespace(ns).on(name).gpuMem(gibPerGpu * s.gpus())
                        .cpu(Integer.toString(cpu)).memory(4 * cpu + "Gi").annotations(AllocationCodec.encode(a.allocation(), MemoryUnit.GIB));
                if (s.corePerGpu() > 0) b.gpuCore(s.corePerGpu() * s.gpus());
                if (s.gpus() > 1) b.gpuCount(s.gpus());
                Pod p = b.build();
                p.getMetadata().setUid(null); // the API server gives it one
                p.getSpec().setSchedulerName(schedulerName);
                p.setStatus(null);
                pods.add(p);
            }
        }
        return new ScaleCluster(List.copyOf(specs), List.copyOf(pods));
    }

    /** Booked MiB over all GPUs' MiB. */
    public double bookedShare() {
        long total = 0, mib = 0;
        for (var s : nodes) total += s.mibPerGpu() * s.gpus();
        for (Pod p : booked) {
            String a = p.getMetadata().getAnnotations().get(Names.ANN_ALLOCATION);
            var f = Bookings.fields(a);
            mib += Long.parseLong(f.get("charge").split("/")[0]) * f.get("gpus").split(",").length;
        }
        return (double) mib / total;
    }

    static <T> T pick(List<T> items, ToIntFunction<T> weight, Random r) {
        int total = 0;
        for (T t : items) total += weight.applyAsInt(t);
        int x = r.nextInt(total);
        for (T t : items) if ((x -= weight.applyAsInt(t)) < 0) return t;
        throw new IllegalStateException("unreachable");
    }
}
