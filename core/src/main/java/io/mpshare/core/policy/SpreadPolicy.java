package io.mpshare.core.policy;

import io.mpshare.core.Names;
import io.mpshare.core.ledger.NodeState;
import io.mpshare.core.model.GpuDemand;

import java.util.List;

/** Worst fit: the GPUs with the most free memory, so pods land on the quietest GPUs; the emptiest node scores highest. */
public final class SpreadPolicy implements PlacementPolicy {
    private final boolean uidRule;

    public SpreadPolicy(boolean uidRule) { this.uidRule = uidRule; }

    public SpreadPolicy() { this(false); }

    @Override public String name() { return Names.POLICY_SPREAD; }

    @Override public Evaluation evaluate(NodeState s, GpuDemand d) {
        return Ranked.choose(s, d, uidRule, true);
    }

    /** A pure function of the snapshot and the demand: the policy and the demand name every other input. */
    @Override public Object scoreKey(GpuDemand d) { return List.of(this, d); }

    @Override public long score(NodeState s, GpuDemand d) {
        return Ranked.score(s, d, uidRule, true);
    }

    /** Without the UID rule (or for a pod it does not judge: no runAsUser, or a domain daemon of its own) a node fits exactly when enough GPUs have room. */
    @Override public boolean fitsByRoom(GpuDemand d) { return !uidRule || !d.underUidRule(); }

    /** With the UID rule: room first, then the UID conflict (Ranked.choose's order). */
    @Override public boolean fitsByRoomUnderUidRule(GpuDemand d) { return uidRule; }

    @Override public boolean fits(NodeState s, GpuDemand d) {
        return Ranked.fits(s, d, uidRule);
    }
}
