package io.mpshare.deviceplugin.allocation;

import io.mpshare.core.MemoryUnit;
import io.mpshare.core.Names;
import io.mpshare.deviceplugin.allocation.Candidate.Claims;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Refusal messages. kubelet wraps them as {@code Allocate failed due to rpc error: code = FailedPrecondition desc =
 * <message>, which is unexpected}: so a message ends on a statement of fact, without a closing period or bracket.
 */
final class Explain {
    private Explain() {}

    static final String PLACE = "a pod that asks " + Names.RESOURCE_GPU_MEM
            + " must be placed by the mpshare scheduler extender (do not preset spec.nodeName or set another schedulerName)";

    static String badIds(String reason) { return "mpshare: " + reason; }

    static String unplaced(Candidate c) { return "mpshare: " + PLACE + "; " + c.problem(); }

    static String notServing(String pod, String reason, Duration waited) {
        return "mpshare: the MPS daemon of pod " + pod + " does not serve: " + reason + " (waited " + waited.toMillis()
                + " ms; the pod's owner may create it again)";
    }

    static String none(String node, MemoryUnit unit, long want, List<Candidate> waiting, Map<String, Claims> claims) {
        var sb = new StringBuilder("mpshare: ").append(PLACE).append("; no pod bound to node ").append(node)
                .append(" waits for a container of ").append(want).append(' ').append(unit.symbol()).append(" of ")
                .append(Names.RESOURCE_GPU_MEM);
        var others = new ArrayList<String>();
        for (Candidate c : waiting) {
            Claims cl = claims.getOrDefault(c.uid(), Claims.NONE);
            var open = new ArrayList<Long>();
            for (int i = 0; i < c.units().length; i++) if (!cl.has(i)) open.add(c.units()[i]);
            if (!open.isEmpty() && others.size() < 5) others.add(c.pod() + " " + open);
        }
        if (!others.isEmpty()) sb.append("; pods waiting for other amounts (").append(unit.symbol()).append("): ")
                .append(String.join(", ", others));
        return sb.toString();
    }
}
