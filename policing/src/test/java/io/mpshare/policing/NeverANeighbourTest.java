package io.mpshare.policing;

import io.mpshare.core.ledger.Allocation;
import io.mpshare.policing.Finding.OverLimit;
import io.mpshare.policing.Finding.Rogue;
import io.mpshare.policing.Finding.Unknown;
import io.mpshare.policing.Snapshot.GpuSample;
import io.mpshare.policing.Snapshot.ProcessSample;
import io.mpshare.policing.Snapshot.Role;
import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.fail;

/**
 * Random nodes (seeded, reproducible): pods with allocations on some GPUs, processes of every role with
 * random usage, host processes. Whatever the policy, an action only ever touches the process or pod of
 * the finding it answers; offenders bring their pod back under; a pod within its share is never over.
 */
class NeverANeighbourTest {
    static final VerdictEngine ENGINE = new VerdictEngine(128);

    record Node(Snapshot snapshot, Map<String, Allocation> allocations, Map<Long, String> ownerOf) {}

    static Node randomNode(Random r) {
        int gpus = 1 + r.nextInt(3);
        Map<String, Allocation> allocations = new LinkedHashMap<>();
        int pods = 1 + r.nextInt(5);
        for (int p = 0; p < pods; p++) {
            int g = r.nextInt(gpus);
            allocations.put("uid-" + p, Fixtures.pod("p" + p).uid("uid-" + p).on(g).container("main", 256 + r.nextInt(8192)).build());
        }
        Map<Long, String> ownerOf = new HashMap<>();
        List<GpuSample> samples = new ArrayList<>();
        long pid = 100;
        for (int g = 0; g < gpus; g++) {
            List<ProcessSample> ps = new ArrayList<>();
            int n = r.nextInt(9);
            for (int i = 0; i < n; i++, pid++) {
                int who = r.nextInt(pods + 2); // pods + a pod without allocation + the host
                Optional<Owner> owner = who < pods ? Optional.of(Owner.pod("uid-" + who))
                        : who == pods ? Optional.of(Owner.pod("uid-stranger")) : Optional.empty();
                Role role = r.nextInt(6) == 0 ? Role.NOT_MPS : r.nextInt(20) == 0 ? Role.MPS_SERVER : Role.MPS_CLIENT;
                ps.add(new ProcessSample(pid, r.nextInt(12_000), role, role == Role.MPS_SERVER ? Optional.empty() : owner));
                ownerOf.put(pid, role == Role.MPS_SERVER ? "" : owner.map(Owner::podUid).orElse(""));
            }
            samples.add(new GpuSample(g, "GPU-" + g, 143771, 0, true, true, "", ps));
        }
        return new Node(new Snapshot(Instant.EPOCH, samples), allocations, ownerOf);
    }

    @Test
    void actions_touchOnlyTheOffendingPod_underEveryPolicy() {
        Random r = new Random(20261130);
        for (int c = 0; c < 500; c++) {
            Node node = randomNode(r);
            var j = ENGINE.judge(node.snapshot(), node.allocations());
            for (ActionPolicy policy : ActionPolicy.values()) {
                for (Action a : ActionPlanner.plan(j.findings(), policy)) {
                    String culprit = switch (a.cause()) {
                        case OverLimit o -> o.podUid();
                        case Rogue ro -> ro.podUid();
                        case Unknown u -> null;
                    };
                    String touched = switch (a) {
                        case Action.Report rep -> culprit;
                        case Action.TerminateClient t -> node.ownerOf().get(t.pid());
                        case Action.Kill k -> node.ownerOf().get(k.pid());
                        case Action.Evict e -> e.podUid();
                    };
                    if (!java.util.Objects.equals(touched, culprit) || (a.cause() instanceof Unknown && !(a instanceof Action.Report)))
                        fail("case " + c + ", " + policy + ": " + a + " touches " + touched + ", not " + culprit);
                }
            }
        }
    }

    @Test
    void overLimit_offendersBringThePodBackUnder_andPodsWithinTheirShareAreNeverOver() {
        Random r = new Random(7);
        for (int c = 0; c < 500; c++) {
            Node node = randomNode(r);
            var j = ENGINE.judge(node.snapshot(), node.allocations());
            for (GpuSample g : node.snapshot().gpus()) {
                for (Allocation a : node.allocations().values()) {
                    if (!a.gpuIndices().contains(g.index())) continue;
                    List<ProcessSample> clients = g.processes().stream()
                            .filter(p -> p.role() == Role.MPS_CLIENT && p.podUid().equals(a.podUid())).toList();
                    long used = clients.stream().mapToLong(ProcessSample::usedMib).sum();
                    Optional<OverLimit> over = j.findings().stream().filter(f -> f instanceof OverLimit o
                            && o.podUid().equals(a.podUid()) && o.gpu() == g.index()).map(f -> (OverLimit) f).findFirst();
                    if (over.isPresent() != used > ENGINE.allowedMib(a))
                        fail("case " + c + ": " + a.podUid() + " on GPU " + g.index() + " uses " + used + ", over: " + over.isPresent());
                    if (over.isPresent()) {
                        OverLimit o = over.get();
                        long rest = used - o.offenders().stream().mapToLong(ProcessSample::usedMib).sum();
                        if (rest > ENGINE.allowedMib(a) || !clients.containsAll(o.offenders()))
                            fail("case " + c + ": offenders " + o.offenders() + " leave " + rest);
                    }
                }
            }
        }
    }
}
