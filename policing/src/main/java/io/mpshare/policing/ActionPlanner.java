package io.mpshare.policing;

import io.mpshare.policing.Finding.OverLimit;
import io.mpshare.policing.Finding.Rogue;
import io.mpshare.policing.Finding.Unknown;
import io.mpshare.policing.Snapshot.Role;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Findings in, actions out, by policy; pure. Every finding is reported. Then:
 * <pre>
 *                      event     terminate                                   evict
 * OverLimit            -         TerminateClient per offender                Evict pod
 * Rogue, MPS client    -         TerminateClient                             Evict pod
 * Rogue, not a client  -         Kill (SIGKILL: no daemon can end it)        Evict pod
 * Unknown              -         -                                           -
 * </pre>
 * Actions are keyed ({@link Action#key()}); a key planned twice in one cycle is planned once.
 */
final class ActionPlanner {
    private ActionPlanner() {}

    static List<Action> plan(List<Finding> findings, ActionPolicy policy) {
        Map<String, Action> out = new LinkedHashMap<>();
        for (Finding f : findings) {
            List<Action> as = new ArrayList<>();
            as.add(new Action.Report(f));
            switch (f) {
                case OverLimit o -> {
                    if (policy == ActionPolicy.TERMINATE) o.offenders().forEach(p -> as.add(new Action.TerminateClient(p.pid(), o)));
                    if (policy == ActionPolicy.EVICT) as.add(new Action.Evict(o.podUid(), o));
                }
                case Rogue r -> {
                    if (policy == ActionPolicy.TERMINATE)
                        as.add(r.process().role() == Role.MPS_CLIENT ? new Action.TerminateClient(r.process().pid(), r) : new Action.Kill(r.process().pid(), r));
                    if (policy == ActionPolicy.EVICT) as.add(new Action.Evict(r.podUid(), r));
                }
                case Unknown u -> { /* reported only: it belongs to no pod we may touch */ }
            }
            for (Action a : as) out.putIfAbsent(a.key(), a);
        }
        return List.copyOf(out.values());
    }
}
