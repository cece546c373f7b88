package io.mpshare.policing;

import io.mpshare.core.codec.UsageCodec;
import io.mpshare.core.codec.UsageCodec.ContainerUsage;
import io.mpshare.core.codec.UsageCodec.GpuUsage;
import io.mpshare.core.ledger.Allocation;
import io.mpshare.policing.Finding.OverLimit;
import io.mpshare.policing.Finding.Rogue;
import io.mpshare.policing.Finding.Unknown;
import io.mpshare.policing.Finding.Why;
import io.mpshare.policing.Snapshot.GpuSample;
import io.mpshare.policing.Snapshot.ProcessSample;
import io.mpshare.policing.Snapshot.Role;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;

/**
 * The policer's pure core: a {@link Snapshot} and the node's allocations in, findings and per-pod usage out.
 *
 * <h2>Implementation notes</h2>
 * <ul>
 *   <li><b>Only shared, sampled GPUs are judged.</b> A GPU mpshare does not share, or whose NVML read
 *       failed this cycle, yields no finding: a half-read GPU (processes listed, MPS clients not) would
 *       make every client look like a rogue.</li>
 *   <li><b>Classification of one process on GPU g</b>, in this order: the MPS server itself is skipped;
 *       no owning pod → {@link Unknown} (reported, never acted on: it may be the host's own); a pod the
 *       view exempts → nothing; the pod
 *       has no allocation on g → {@link Rogue} {@code NO_ALLOCATION_ON_GPU}; not an MPS client →
 *       {@link Rogue} {@code NOT_MPS_CLIENT}; otherwise one of the pod's clients on g.</li>
 *   <li><b>The limit of pod P on GPU g</b> is what the ledger booked for P there, plus one fixed slack per pod:
 *       <pre>allowed(P, g) = chargeMib(P) + slackMibPerPod</pre>
 *       {@code chargeMib} is the allocation's per-GPU charge: each GPU-asking container's share plus one context
 *       reserve, {@code max(largest init container, sum of app containers)} ({@code GpuDemand.chargeMib()}). The slack
 *       absorbs the difference between NVML's per-process figure and what MPS counts against the cap (an idle PyTorch
 *       client shows 612 MiB in NVML against a 512 MiB reserve). It is per pod, not per process: however many
 *       processes a pod starts, together they get no more than it was charged plus one slack.
 *       P is over on g when the sum of its clients' used memory exceeds {@code allowed(P, g)}. Rogue
 *       processes of P are judged as rogues, not counted again here (they are acted on themselves).</li>
 *   <li><b>Offenders</b> are the fewest of P's clients on g that bring it back under: largest first (ties:
 *       higher PID, the newer process), removing each one's usage, until the rest fits the pod's allowance.
 *       Neighbours are never offenders: only P's own clients on g are considered.</li>
 *   <li><b>Usage</b> is reported for every pod with an allocation, on each allocated GPU (allocated =
 *       the ledger's charge there) and on any other GPU where the pod has processes (allocated 0). Used sums
 *       all the pod's processes, rogue ones included.</li>
 *   <li>Deterministic: output order follows GPU index, then PID; no clock, no I/O, no state.</li>
 * </ul>
 */
final class VerdictEngine {
    private final long slackMibPerPod;

    VerdictEngine(long slackMibPerPod) {
        if (slackMibPerPod < 0) throw new IllegalArgumentException("slack must be >= 0");
        this.slackMibPerPod = slackMibPerPod;
    }

    /** Findings and usage of one snapshot. */
    record Judgement(List<Finding> findings, Map<String, UsageCodec.PodUsage> usage) {
        Judgement {
            findings = List.copyOf(findings);
            usage = Map.copyOf(usage);
        }
    }

    /** @param allocations this node's pods with an allocation, by pod UID */
    Judgement judge(Snapshot snapshot, Map<String, Allocation> allocations) {
        return judge(snapshot, allocations, Set.of());
    }

    /** @param exempt pod UIDs whose processes are not judged (still counted in their usage) */
    Judgement judge(Snapshot snapshot, Map<String, Allocation> allocations, Set<String> exempt) {
        List<Finding> findings = new ArrayList<>();
        // pod UID -> GPU index -> that pod's processes on that GPU (all roles but the server)
        Map<String, Map<Integer, List<ProcessSample>>> byPod = new TreeMap<>();
        for (GpuSample gpu : snapshot.gpus()) {
            if (!gpu.shared() || !gpu.sampled()) continue;
            Map<String, List<ProcessSample>> clients = new TreeMap<>();
            for (ProcessSample p : sorted(gpu.processes())) {
                if (p.role() == Role.MPS_SERVER) continue;
                if (p.owner().isEmpty()) { findings.add(new Unknown(gpu.index(), p)); continue; }
                String uid = p.podUid();
                byPod.computeIfAbsent(uid, k -> new TreeMap<>()).computeIfAbsent(gpu.index(), k -> new ArrayList<>()).add(p);
                if (exempt.contains(uid)) continue;
                Allocation a = allocations.get(uid);
                if (a == null || !a.gpuIndices().contains(gpu.index()))
                    findings.add(new Rogue(uid, Optional.ofNullable(a).map(Allocation::pod), gpu.index(), p, Why.NO_ALLOCATION_ON_GPU));
                else if (p.role() == Role.NOT_MPS)
                    findings.add(new Rogue(uid, Optional.of(a.pod()), gpu.index(), p, Why.NOT_MPS_CLIENT));
                else
                    clients.computeIfAbsent(uid, k -> new ArrayList<>()).add(p);
            }
            clients.forEach((uid, ps) -> overLimit(allocations.get(uid), gpu.index(), ps).ifPresent(findings::add));
        }
        findings.sort(Comparator.comparingInt(Finding::gpu));
        return new Judgement(findings, usage(snapshot, allocations, byPod));
    }

    /** {@code allowed(P, g)}: the pod's charge on one GPU plus one slack, whatever its number of processes. */
    long allowedMib(Allocation a) {
        return a.demand().chargeMib() + slackMibPerPod;
    }

    private Optional<Finding> overLimit(Allocation a, int gpu, List<ProcessSample> clients) {
        long used = clients.stream().mapToLong(ProcessSample::usedMib).sum();
        long allowed = allowedMib(a);
        if (used <= allowed) return Optional.empty();
        List<ProcessSample> largestFirst = new ArrayList<>(clients);
        largestFirst.sort(Comparator.comparingLong(ProcessSample::usedMib).thenComparingLong(ProcessSample::pid).reversed());
        List<ProcessSample> offenders = new ArrayList<>();
        long rest = used;
        for (ProcessSample p : largestFirst) {
            if (rest <= allowed) break;
            offenders.add(p);
            rest -= p.usedMib();
        }
        return Optional.of(new OverLimit(a.podUid(), a.pod(), gpu, used, allowed, clients, offenders));
    }

    private static Map<String, UsageCodec.PodUsage> usage(Snapshot s, Map<String, Allocation> allocations,
                                                         Map<String, Map<Integer, List<ProcessSample>>> byPod) {
        Map<String, UsageCodec.PodUsage> out = new LinkedHashMap<>();
        for (Allocation a : allocations.values()) {
            Map<Integer, List<ProcessSample>> mine = byPod.getOrDefault(a.podUid(), Map.of());
            TreeMap<Integer, Long> allocated = new TreeMap<>();
            for (int g : a.gpuIndices()) allocated.put(g, a.demand().chargeMib());
            for (int g : mine.keySet()) allocated.putIfAbsent(g, 0L);
            List<GpuUsage> gpus = new ArrayList<>();
            List<ContainerUsage> containers = new ArrayList<>();
            allocated.forEach((g, mib) -> {
                List<ProcessSample> ps = mine.getOrDefault(g, List.of());
                gpus.add(new GpuUsage(g, mib, ps.stream().mapToLong(ProcessSample::usedMib).sum(), ps.size()));
                Map<String, long[]> perContainer = new TreeMap<>();
                for (ProcessSample p : ps) {
                    String name = p.container().isEmpty() ? UsageCodec.UNKNOWN_CONTAINER : p.container().replaceAll("[;,:@]", "_");
                    long[] acc = perContainer.computeIfAbsent(name, k -> new long[2]);
                    acc[0] += p.usedMib();
                    acc[1]++;
                }
                perContainer.forEach((name, acc) -> containers.add(new ContainerUsage(name, g, acc[0], (int) acc[1])));
            });
            out.put(a.podUid(), new UsageCodec.PodUsage(s.at(), gpus, containers));
        }
        return out;
    }

    private static List<ProcessSample> sorted(List<ProcessSample> ps) {
        List<ProcessSample> l = new ArrayList<>(ps);
        l.sort(Comparator.comparingLong(ProcessSample::pid));
        return l;
    }
}
