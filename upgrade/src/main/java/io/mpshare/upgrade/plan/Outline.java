package io.mpshare.upgrade.plan;

import io.mpshare.core.model.PodKey;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/** What {@code --dry-run} prints: where the node stands and the steps a run would take from there. */
public final class Outline {
    private Outline() {}

    public static List<String> of(NodeSnapshot s, UpgradePlan plan, boolean drain, String maxWait) {
        var out = new ArrayList<String>();
        String from = s.state().map(UpgradeState::from).orElse(s.active());
        out.add("node " + s.node() + ": " + s.active() + " active" + (s.unschedulable() ? ", cordoned" : "") + "; "
                + s.clients().size() + " MPS client pod(s); daemons " + daemons(s)
                + s.state().map(u -> "; resuming " + u.encode()).orElse(""));
        out.add("next: " + plan.next(s).describe());
        boolean blueGreen = s.state().map(u -> u.mode() == UpgradeState.Mode.BLUE_GREEN)
                .orElse(s.daemonSets().contains(NodeSnapshot.other(from)));
        if (blueGreen) {
            String to = s.state().map(UpgradeState::to).orElse(NodeSnapshot.other(from));
            out.add("then: " + to + " daemon pod deleted if it does not run its DaemonSet's current template; wait until it is Ready");
            out.add("then: mpshare.io/mps-active " + from + " -> " + to + " (new containers get /run/mpshare/" + to + "/pipe)");
            out.add("then: wait up to " + maxWait + " for the " + s.clientsOf(from, from).size() + " client(s) of " + from
                    + " to exit (none is deleted); " + from + " then stays up, idle");
            out.add(drain ? "after " + maxWait + ": cordon, evict what is left on " + from + " (PDB-aware), uncordon"
                    : "after " + maxWait + ": stop; progress stays on the node, run again to resume (or with --drain)");
        } else {
            out.add("then (in place, --drain): cordon; evict all " + s.clients().size() + " client(s) through the Eviction API; "
                    + "delete the " + from + " daemon pod; wait until the new one is Ready; uncordon");
        }
        return out;
    }

    private static String daemons(NodeSnapshot s) {
        var parts = new ArrayList<String>();
        for (String c : List.of(s.active(), NodeSnapshot.other(s.active()))) {
            Optional<DaemonPod> d = s.daemon(c);
            parts.add(c + "=" + d.map(p -> p.image() + (p.current() ? " current" : " outdated") + (p.ready() ? " ready" : " not-ready"))
                    .orElse(s.daemonSets().contains(c) ? "no pod" : "no DaemonSet"));
        }
        return String.join(", ", parts);
    }

    static String names(List<PodKey> pods) {
        var sb = new StringBuilder();
        int shown = 0;
        for (PodKey p : pods) {
            if (shown++ == 5) { sb.append(", ... (").append(pods.size() - 5).append(" more)"); break; }
            if (!sb.isEmpty()) sb.append(", ");
            sb.append(p);
        }
        return sb.toString();
    }
}
