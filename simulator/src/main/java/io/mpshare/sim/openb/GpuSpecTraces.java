package io.mpshare.sim.openb;

import java.io.IOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;

/**
 * Model-constrained variants of a trace, the way the paper's gpuspec traces are built: the same tasks, a
 * share of the GPU tasks carrying a {@code gpu_spec} (10, 20, 25 or 33%; the README of Alibaba's release
 * says about 33% of the production cluster's GPU tasks carry one). With a seed, GPU tasks are drawn
 * uniformly until the share is reached (tasks that already carry a spec count and keep it); each drawn task
 * gets a spec from {@link #SPEC_MIX}, weighted, among the specs whose models have a node that could host
 * the task when empty (GPU count, CPU, memory); a task no spec fits stays unconstrained and is not drawn.
 *
 * <p>{@code java -cp ... io.mpshare.sim.openb.GpuSpecTraces --nodes N.csv --pods P.csv --share 0.33
 * --seed 1 --out openb_pod_list_gpuspec33.csv}
 */
public final class GpuSpecTraces {
    private GpuSpecTraces() {}

    /**
     * {@code gpu_spec} values with how often each came among the 71 constrained GPU tasks of the first 220
     * rows of the paper's simulator's {@code data/csv/openb_pod_list_gpuspec33_cpu0.csv}
     * (hkust-adsl/kubernetes-scheduler-simulator: the default trace without CPU-only tasks, 33% constrained).
     */
    public static final Map<String, Integer> SPEC_MIX = specMix();

    private static Map<String, Integer> specMix() {
        Map<String, Integer> m = new LinkedHashMap<>();
        m.put("T4", 34);
        m.put("V100M16|V100M32", 13);
        m.put("G2", 10);
        m.put("P100", 5);
        m.put("P100|V100M16|V100M32", 3);
        m.put("G2|P100|T4|V100M16|V100M32", 2);
        m.put("P100|T4|V100M16|V100M32", 2);
        m.put("G3", 2);
        return java.util.Collections.unmodifiableMap(m);
    }

    /** The tasks with {@code share} of the GPU tasks carrying a spec; the order and every other field unchanged. */
    public static List<OpenbTrace.Task> constrain(List<OpenbTrace.Task> tasks, List<OpenbTrace.Node> nodes, double share, long seed) {
        if (!(share >= 0 && share <= 1)) throw new IllegalArgumentException("--share must be between 0 and 1, got " + share);
        List<OpenbTrace.Task> out = new ArrayList<>(tasks);
        List<Integer> open = new ArrayList<>();
        int gpuTasks = 0, constrained = 0;
        for (int i = 0; i < tasks.size(); i++) {
            OpenbTrace.Task t = tasks.get(i);
            if (t.numGpu() == 0) continue;
            gpuTasks++;
            if (!t.gpuSpec().isEmpty()) constrained++;
            else if (!feasible(t, nodes).isEmpty()) open.add(i);
        }
        int want = (int) Math.round(share * gpuTasks) - constrained;
        if (want > open.size())
            throw new IllegalArgumentException("only " + (constrained + open.size()) + " of " + gpuTasks
                    + " GPU tasks can carry a spec; ask a smaller --share");
        SplittableRandom rnd = new SplittableRandom(seed);
        for (int k = 0; k < want; k++) {
            int j = k + rnd.nextInt(open.size() - k);
            int i = open.get(j);
            open.set(j, open.get(k));
            open.set(k, i);
            OpenbTrace.Task t = tasks.get(i);
            String spec = draw(feasible(t, nodes), rnd);
            out.set(i, new OpenbTrace.Task(t.name(), t.cpuMilli(), t.memoryMib(), t.numGpu(), t.gpuMilli(), models(spec)));
        }
        return out;
    }

    /** Specs of {@link #SPEC_MIX} with a model whose node could host the task when empty. */
    static List<String> feasible(OpenbTrace.Task t, List<OpenbTrace.Node> nodes) {
        List<String> ok = new ArrayList<>();
        for (String spec : SPEC_MIX.keySet()) {
            Set<String> models = models(spec);
            for (OpenbTrace.Node n : nodes)
                if (models.contains(n.model()) && n.gpus() >= t.numGpu() && n.cpuMilli() >= t.cpuMilli() && n.memoryMib() >= t.memoryMib()) {
                    ok.add(spec);
                    break;
                }
        }
        return ok;
    }

    private static String draw(List<String> specs, SplittableRandom rnd) {
        int total = 0;
        for (String s : specs) total += SPEC_MIX.get(s);
        int r = rnd.nextInt(total);
        for (String s : specs) if ((r -= SPEC_MIX.get(s)) < 0) return s;
        throw new IllegalStateException("unreachable");
    }

    static Set<String> models(String spec) { return new LinkedHashSet<>(List.of(spec.split("\\|"))); }

    /** Writes tasks in the openb column layout (models of a spec sorted and joined by '|'). */
    public static void write(List<OpenbTrace.Task> tasks, Writer w) throws IOException {
        w.write("name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec\n");
        for (OpenbTrace.Task t : tasks)
            w.write(t.name() + "," + t.cpuMilli() + "," + t.memoryMib() + "," + t.numGpu() + "," + t.gpuMilli() + ","
                    + String.join("|", new java.util.TreeSet<>(t.gpuSpec())) + "\n");
    }

    public static void main(String[] args) throws IOException {
        Map<String, String> o = new LinkedHashMap<>();
        for (int i = 0; i + 1 < args.length; i += 2) o.put(args[i], args[i + 1]);
        if (args.length % 2 != 0 || !o.keySet().containsAll(List.of("--nodes", "--pods", "--share", "--out")))
            throw new IllegalArgumentException("usage: GpuSpecTraces --nodes N.csv --pods P.csv --share 0.33 [--seed 1] --out OUT.csv");
        List<OpenbTrace.Task> tasks = constrain(OpenbTrace.readTasks(Path.of(o.get("--pods"))), OpenbTrace.readNodes(Path.of(o.get("--nodes"))),
                Double.parseDouble(o.get("--share")), Long.parseLong(o.getOrDefault("--seed", "1")));
        try (Writer w = Files.newBufferedWriter(Path.of(o.get("--out")), StandardCharsets.UTF_8)) { write(tasks, w); }
    }
}
