package io.mpshare.e2e.k8s;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.mpshare.core.Names;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * What the API server says was booked, checked from outside the extender: each pod's {@code mpshare.io/allocation}
 * (gpus= and charge=MiB/core per GPU) summed per GPU against the nodes' published inventories.
 */
public final class Bookings {
    private Bookings() {}

    /**
     * Over-commit: one line per GPU booked beyond its memory or 100 percent of cores, per GPU that is not one of
     * {@code nodes}', and per pod whose allocation names another node than the one it is bound to; empty if none.
     */
    public static List<String> overCommit(List<Pod> pods, List<Node> nodes) {
        Map<String, Long> mib = new HashMap<>();
        Map<String, Long> core = new HashMap<>();
        List<String> problems = new ArrayList<>();
        for (Pod p : pods) {
            String a = p.getMetadata().getAnnotations() == null ? null : p.getMetadata().getAnnotations().get(Names.ANN_ALLOCATION);
            if (a == null) continue;
            Map<String, String> f = fields(a);
            String node = f.get("node");
            if (p.getSpec().getNodeName() != null && !p.getSpec().getNodeName().equals(node))
                problems.add(p.getMetadata().getName() + " bound to " + p.getSpec().getNodeName() + " but allocated on " + node);
            String[] charge = f.get("charge").split("/");
            for (String g : f.get("gpus").split(",")) {
                mib.merge(node + "/" + g, Long.parseLong(charge[0]), Long::sum);
                core.merge(node + "/" + g, Long.parseLong(charge[1]), Long::sum);
            }
        }
        Map<String, Long> total = new HashMap<>();
        for (Node n : nodes)
            for (var g : GpuNodes.inventory(n)) total.put(n.getMetadata().getName() + "/" + g.index(), g.totalMib());
        mib.forEach((gpu, used) -> {
            Long cap = total.get(gpu);
            if (cap == null) problems.add(gpu + " is not a GPU of the nodes checked");
            else if (used > cap) problems.add(gpu + " booked " + used + " MiB of " + cap);
        });
        core.forEach((gpu, used) -> { if (used > 100) problems.add(gpu + " booked " + used + " percent of cores"); });
        return problems;
    }

    /** The {@code key=value} fields of an {@code mpshare.io/allocation} annotation. */
    public static Map<String, String> fields(String allocation) {
        Map<String, String> f = new HashMap<>();
        for (String part : allocation.split(";")) {
            int eq = part.indexOf('=');
            if (eq > 0) f.put(part.substring(0, eq), part.substring(eq + 1));
        }
        return f;
    }
}
