package io.mpshare.scheduler.preempt;

import io.mpshare.core.ledger.Ledger;
import io.mpshare.core.ledger.NodeState;
import io.mpshare.core.model.PodInfo;
import io.mpshare.core.policy.Evaluation;
import io.mpshare.core.preempt.NominatedHold;
import io.mpshare.core.preempt.NominatedHold.Nominee;
import io.mpshare.core.policy.PlacementPolicy;
import io.mpshare.scheduler.cycle.Ask;
import io.mpshare.scheduler.cycle.HeldRoom;
import io.mpshare.scheduler.verbs.Verbs;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The verbs' side of preemption: a node kept by the ledger is refused to a pod when the room left there is held for
 * pods of equal or higher priority nominated to it ({@link NominatedHold}), so the room the victims free goes to the
 * preemptor. Filter applies it to the nodes it keeps ({@link #apply}); prioritize and bind ask it per node
 * ({@link HeldRoom}). Costs nothing while no pod is nominated anywhere; else only the kept nodes that have a nominee
 * are looked at again.
 */
public final class NominationHold implements HeldRoom {
    private final Ledger ledger;
    private final PlacementPolicy policy;
    private final Nominations nominations;

    public NominationHold(Ledger ledger, PlacementPolicy policy, Nominations nominations) {
        this.ledger = ledger;
        this.policy = policy;
        this.nominations = nominations;
    }

    /** True while some pod is nominated somewhere: only then is there anything to hold. */
    @Override public boolean active() { return nominations.any(); }

    /** Why the asking pod may not have {@code node} now, or null when it may. */
    @Override public String refusal(Ask.Gpu ask, String node) {
        PodInfo pod = ask.pod();
        // a pod the informer has not seen yet counts as lowest: its room is the one given up, never a nominee's
        int priority = nominations.priority(pod.key(), pod.uid()).orElse(Integer.MIN_VALUE);
        List<Nominee> held = nominations.heldAgainst(node, pod.key(), priority);
        if (held.isEmpty()) return null;
        NodeState s = ledger.node(node);
        if (s == null) return null;
        return NominatedHold.evaluate(s, held, ask.demand(), policy) instanceof Evaluation.Unfit u ? u.reason() : null;
    }

    /** {@code a} with the kept nodes whose room is held for a nominee moved to the failed nodes. */
    public Verbs.FilterAnswer apply(Ask.Gpu ask, Verbs.FilterAnswer a) {
        List<String> fits = null;
        Map<String, String> failed = null;
        for (String node : nominations.nodes()) {
            if (!a.fits().contains(node)) continue;
            String why = refusal(ask, node);
            if (why == null) continue;
            if (fits == null) { fits = new ArrayList<>(a.fits()); failed = new HashMap<>(a.failed()); }
            fits.remove(node);
            failed.put(node, why);
        }
        return fits == null ? a : new Verbs.FilterAnswer(fits, failed, a.unresolvable(), a.error());
    }

    /** The same over names held as positions in {@code buf}. */
    public Verbs.IndexedFilterAnswer apply(Ask.Gpu ask, Verbs.IndexedFilterAnswer a, byte[] buf, int[] off, int[] len) {
        int[] fits = a.fits();
        int count = a.fitCount();
        Map<String, String> failed = null;
        for (String node : nominations.nodes()) {
            byte[] name = node.getBytes(StandardCharsets.UTF_8);
            for (int i = 0; i < count; i++) {
                int at = fits[i];
                if (len[at] != name.length || !Arrays.equals(buf, off[at], off[at] + len[at], name, 0, name.length)) continue;
                String why = refusal(ask, node);
                if (why != null) {
                    if (failed == null) { failed = new HashMap<>(a.failed()); fits = fits.clone(); }
                    failed.put(node, why);
                    System.arraycopy(fits, i + 1, fits, i, count - i - 1);
                    count--;
                }
                break;
            }
        }
        return failed == null ? a : new Verbs.IndexedFilterAnswer(fits, count, failed, a.unresolvable(), a.error(), a.slots());
    }
}
