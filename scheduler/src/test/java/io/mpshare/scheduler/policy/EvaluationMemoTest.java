package io.mpshare.scheduler.policy;

import io.mpshare.core.ledger.Ledger;
import io.mpshare.core.ledger.NodeState;
import io.mpshare.core.model.GpuDemand;
import io.mpshare.core.model.PodKey;
import io.mpshare.core.policy.Evaluation;
import io.mpshare.core.policy.PlacementEngine;
import io.mpshare.core.policy.TaskMix;
import io.mpshare.kube.KubePod;
import io.mpshare.scheduler.TestClock;
import io.mpshare.testing.Nodes;
import io.mpshare.testing.Pods;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;

/** Remembered evaluations are the policy's own: given back only while the node, its host room and the inputs are unchanged. */
class EvaluationMemoTest {
    private final TestClock clock = new TestClock();
    private final HostRoom host = new HostRoom();
    private final Ledger ledger = new Ledger(clock, Duration.ofMinutes(5));
    private final TaskMix mix = new TaskMix(List.of(new TaskMix.Entry(1, 8_192 + 512, 0, 0, 4_000, 8_192, 3),
            new TaskMix.Entry(1, 20_480 + 512, 0, 30, 8_000, 32_768, 2), new TaskMix.Entry(2, 40_960 + 512, 0, 0, 16_000, 65_536, 1)));
    private final LearnedFragmentationPolicy policy = new LearnedFragmentationPolicy(true, host, mix, 100, Integer.MAX_VALUE);
    private final PlacementEngine engine = new PlacementEngine(ledger, policy);

    private void node(String name, int gpus, long mib, String cpu) {
        var n = Nodes.node(name).gpus(gpus, mib).allocatable(cpu, "256Gi");
        ledger.upsertNode(n.inventory());
        host.applyNode(n.build());
    }

    /** What the policy answers without a memo, with the same host inputs. */
    private Evaluation direct(NodeState s, GpuDemand d, PodKey pod) {
        return host.evaluate(policy.current()::evaluate, s, d, pod, host.ask(pod));
    }

    @Test void evaluate_sameNodeAndInputs_remembered_nodeChanged_evaluatedAgain() {
        node("n1", 4, 81_920, "32");
        host.applyPod(KubePod.of(Pods.pod("p").cpu("4").memory("8Gi").build()));
        PodKey p = PodKey.of("default", "p");
        GpuDemand d = GpuDemand.simple(8_192, 0, 1, 512);
        Evaluation first = policy.forPod(p).evaluate(ledger.node("n1"), d);
        assertThat(policy.forPod(p).evaluate(ledger.node("n1"), GpuDemand.simple(8_192, 0, 1, 512))).isSameAs(first); // an equal demand
        assertThat(engine.assume(PodKey.of("default", "other"), "u", "n1", GpuDemand.simple(20_480, 0, 1, 512))).isNotNull();
        Evaluation after = policy.forPod(p).evaluate(ledger.node("n1"), d);
        assertThat(after).isNotSameAs(first).usingRecursiveComparison().isEqualTo(direct(ledger.node("n1"), d, p));
        host.applyPod(KubePod.of(Pods.pod("cpu-hog").cpu("26").on("n1").phase("Running").build())); // the host room moved, not the GPUs
        assertThat(policy.forPod(p).evaluate(ledger.node("n1"), d)).isNotSameAs(after)
                .usingRecursiveComparison().isEqualTo(direct(ledger.node("n1"), d, p));
    }

    /** Random bookings, releases, host room changes and asks over nodes of three GPU sizes: memo and policy agree every time. */
    @Test void evaluate_randomChanges_agreesWithThePolicyEveryTime() {
        Random r = new Random(11);
        long[] sizes = {15_360, 46_080, 143_771};
        List<String> nodes = new ArrayList<>();
        for (int i = 0; i < 12; i++) { node("n" + i, 2 + r.nextInt(7), sizes[i % 3], Integer.toString(8 + r.nextInt(56))); nodes.add("n" + i); }
        List<GpuDemand> shapes = List.of(GpuDemand.simple(2_048, 0, 1, 512), GpuDemand.simple(8_192, 30, 1, 512), GpuDemand.simple(12_288, 0, 1, 1024),
                GpuDemand.simple(16_384, 0, 2, 512), GpuDemand.simple(40_960, 0, 1, 512));
        List<PodKey> booked = new ArrayList<>();
        int checked = 0, fits = 0;
        for (int step = 0; step < 3_000; step++) {
            String node = nodes.get(r.nextInt(nodes.size()));
            switch (r.nextInt(10)) {
                case 0, 1 -> {
                    PodKey k = PodKey.of("b", "pod-" + step);
                    host.applyPod(KubePod.of(Pods.pod(k.name()).namespace("b").cpu(Integer.toString(1 + r.nextInt(8))).memory("4Gi").on(node).phase("Running").build()));
                    engine.assume(k, "u" + step, node, shapes.get(r.nextInt(shapes.size())));
                    booked.add(k);
                }
                case 2 -> { if (!booked.isEmpty()) ledger.release(booked.remove(r.nextInt(booked.size()))); }
                case 3 -> host.applyNode(Nodes.node(node).gpus(1, 1_024).allocatable(Integer.toString(8 + r.nextInt(56)), "256Gi").build());
                default -> {
                    PodKey pod = PodKey.of("s", "ask-" + r.nextInt(4));
                    host.applyPod(KubePod.of(Pods.pod(pod.name()).namespace("s").cpu(Integer.toString(1 + r.nextInt(4))).memory("8Gi").build()));
                    GpuDemand d = shapes.get(r.nextInt(shapes.size()));
                    NodeState s = ledger.node(node);
                    Evaluation memo = policy.forPod(pod).evaluate(s, d), want = direct(s, d, pod);
                    assertThat(memo).as("step %d, %s on %s", step, d, node).usingRecursiveComparison().isEqualTo(want);
                    checked++;
                    if (want instanceof Evaluation.Fits) fits++;
                }
            }
        }
        assertThat(checked).isGreaterThan(1_500);
        assertThat(fits).isGreaterThan(300).isLessThan(checked); // both answers were exercised
    }
}
