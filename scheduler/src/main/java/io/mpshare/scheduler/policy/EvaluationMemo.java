package io.mpshare.scheduler.policy;

import io.mpshare.core.ledger.NodeState;
import io.mpshare.core.model.GpuDemand;
import io.mpshare.core.policy.Evaluation;
import io.mpshare.core.policy.FragmentationPolicy;

import java.util.concurrent.ConcurrentHashMap;

/**
 * One {@link FragmentationPolicy}'s evaluations, remembered per node until the node changes. The policy is a pure
 * function of the node's snapshot (immutable: every change makes a new one), the demand, the node's free CPU and
 * memory and the pod's own request; prioritize asks it of every node that passed the filter, thousands per pod on a
 * large cluster, while between two pods of one shape only the few nodes that took a pod (or whose free CPU or memory
 * moved) changed. So for each node the evaluations of the last {@link #SHAPES} distinct inputs are kept against the
 * snapshot they were made on, and given back while the node's snapshot is that same object and the inputs are equal.
 * The simulator's openb replay remembers the same way.
 *
 * <p>A memo belongs to one policy instance: the learned mix is rebuilt into a new policy, which gets a new memo (the
 * old one is dropped with it, which also forgets removed nodes).
 *
 * <p>Concurrency: a node's row is immutable and replaced whole, without a lock. Two workers that evaluate one node at
 * once each compute and the last write wins: an evaluation can be lost and computed again, never given for inputs
 * it was not made for.
 */
final class EvaluationMemo implements HostRoom.Evaluator {
    /** Distinct (demand, CPU, memory) inputs kept per node: a handful of pod shapes arrive in turn. */
    static final int SHAPES = 8;
    /** Distinct demand values kept for identity compares before the set starts again. */
    static final int MAX_DEMANDS = 4096;

    /** The inputs of one evaluation; {@code demand} is this memo's one instance of its value ({@link #canonical}). */
    private record Input(GpuDemand demand, long cpuLeft, long podCpu, long memLeft, long podMem) {
        boolean is(GpuDemand d, long cl, long pc, long ml, long pm) {
            return demand == d && cpuLeft == cl && podCpu == pc && memLeft == ml && podMem == pm;
        }
    }

    /** The demand asked last and this memo's instance of its value: a prioritize asks one demand of thousands of nodes. */
    private record Last(GpuDemand asked, GpuDemand canonical) {}

    /** Evaluations made on {@code state}, newest first. */
    private record Row(NodeState state, Input[] inputs, Evaluation[] answers) {}

    private final FragmentationPolicy policy;
    private final ConcurrentHashMap<String, Row> rows = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<GpuDemand, GpuDemand> demands = new ConcurrentHashMap<>();
    private volatile Last last = new Last(null, null);

    EvaluationMemo(FragmentationPolicy policy) { this.policy = policy; }

    FragmentationPolicy policy() { return policy; }

    /** One instance per demand value, so that inputs compare by identity (equal demands of different pods are equal values). */
    private GpuDemand canonical(GpuDemand d) {
        Last l = last;
        if (l.asked() == d) return l.canonical();
        // a demand names its serving domain, and a pod-kind domain is one pod's: bound the distinct values kept (a value
        // dropped here only misses the memo's rows, which compare inputs by identity)
        if (demands.size() >= MAX_DEMANDS) demands.clear();
        GpuDemand c = demands.computeIfAbsent(d, k -> k);
        last = new Last(d, c);
        return c;
    }

    @Override public Evaluation evaluate(NodeState s, GpuDemand asked, long cpuLeft, long podCpu, long memLeft, long podMem) {
        GpuDemand d = canonical(asked);
        Row r = rows.get(s.name());
        boolean same = r != null && r.state() == s;
        if (same) {
            Input[] in = r.inputs();
            for (int i = 0; i < in.length; i++) if (in[i].is(d, cpuLeft, podCpu, memLeft, podMem)) return r.answers()[i];
        }
        Evaluation e = policy.evaluate(s, d, cpuLeft, podCpu, memLeft, podMem);
        Input input = new Input(d, cpuLeft, podCpu, memLeft, podMem);
        if (!same) {
            rows.put(s.name(), new Row(s, new Input[] {input}, new Evaluation[] {e}));
            return e;
        }
        int keep = Math.min(r.inputs().length, SHAPES - 1);
        Input[] in = new Input[keep + 1];
        Evaluation[] out = new Evaluation[keep + 1];
        in[0] = input;
        out[0] = e;
        System.arraycopy(r.inputs(), 0, in, 1, keep);
        System.arraycopy(r.answers(), 0, out, 1, keep);
        rows.put(s.name(), new Row(s, in, out));
        return e;
    }
}
