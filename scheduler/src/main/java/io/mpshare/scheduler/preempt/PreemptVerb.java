package io.mpshare.scheduler.preempt;

import io.mpshare.core.ledger.Allocation;
import io.mpshare.core.ledger.Ledger;
import io.mpshare.core.ledger.NodeState;
import io.mpshare.core.ledger.Phase;
import io.mpshare.core.policy.PlacementPolicy;
import io.mpshare.core.preempt.VictimSelection;
import io.mpshare.scheduler.cycle.Ask;

import java.lang.System.Logger.Level;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * kube-scheduler's {@code preemptVerb}, decided: kube-scheduler proposes victims by node totals; this answer replaces
 * them, per candidate node, with the pods whose removal frees one GPU for the preemptor ({@link VictimSelection}); a
 * node where no GPU can be freed, or where the policy would still refuse the pod without them (the UID rule), is left
 * out, as kube-scheduler requires (a node with no victims is an error to it). Victims are pods bound to the node with
 * a known UID and a priority lower than the preemptor's. PodDisruptionBudgets are not read: each node keeps the
 * {@code NumPDBViolations} kube-scheduler sent for it. The GPUs chosen are remembered ({@link Nominations#decided}) so
 * the filter holds exactly them for the preemptor. The wire format is the HTTP adapter's.
 */
public final class PreemptVerb {
    private static final System.Logger LOG = System.getLogger(PreemptVerb.class.getName());
    private final Ledger ledger;
    private final PlacementPolicy policy;
    private final Nominations nominations;

    /** @param policy judges whether the victims' room lets the pod in (the extender's placement policy) */
    public PreemptVerb(Ledger ledger, PlacementPolicy policy, Nominations nominations) {
        this.ledger = ledger;
        this.policy = policy;
        this.nominations = nominations;
    }

    /** One node's victims: their UIDs and the PDB count passed back. */
    public record MetaVictims(List<String> uids, long pdbViolations) {}

    /**
     * Victims per candidate node, only for nodes where one GPU (or the pod's gpu-count GPUs) can be freed.
     *
     * @param ask        what the preemptor asks (read once for this call)
     * @param priority   the preemptor's {@code spec.priority}
     * @param candidates the nodes kube-scheduler proposes, each with the {@code NumPDBViolations} it sent
     */
    public Map<String, MetaVictims> decide(Ask ask, int priority, Map<String, Long> candidates) {
        Ask.Gpu g;
        switch (ask) {
            case Ask.Gpu gpu -> g = gpu;
            case Ask.None n -> {
                LOG.log(Level.INFO, "preempt pod={0} asks no GPU share: nothing to preempt", n.pod().key());
                return Map.of();
            }
            case Ask.Bad b -> {
                LOG.log(Level.INFO, "preempt: {0}: nothing to preempt", b.reason());
                return Map.of();
            }
        }
        Map<String, MetaVictims> out = new LinkedHashMap<>();
        Map<String, List<Integer>> gpus = new LinkedHashMap<>();
        for (var e : candidates.entrySet()) {
            NodeState s = ledger.node(e.getKey());
            if (s == null) continue;
            var choice = VictimSelection.choose(s, g.demand(), priority, nominations::priority, this::eligible);
            switch (choice) {
                case VictimSelection.Choice.Victims v when !VictimSelection.freesRoom(s, v.victims(), g.demand(), policy) ->
                        LOG.log(Level.INFO, "preempt pod={0} node={1}: the policy still refuses it without the victims (UID rule?); node left out",
                                g.pod().key(), e.getKey());
                case VictimSelection.Choice.Victims v -> {
                    out.put(e.getKey(), new MetaVictims(v.victims().stream().map(Allocation::podUid).toList(), e.getValue()));
                    gpus.put(e.getKey(), v.gpuIndices());
                }
                case VictimSelection.Choice.NotNeeded n -> LOG.log(Level.DEBUG, "preempt pod={0} node={1} fits without preemption", g.pod().key(), e.getKey());
                case VictimSelection.Choice.NoRoom r -> LOG.log(Level.DEBUG, "preempt pod={0} node={1} reason={2}", g.pod().key(), e.getKey(), r.reason());
            }
        }
        nominations.decided(g.pod().key(), gpus);
        LOG.log(Level.INFO, "preempt pod={0} priority={1} candidates={2} kept={3}", g.pod().key(), String.valueOf(priority),
                String.valueOf(candidates.size()), out.keySet());
        return out;
    }

    /** kube-scheduler can name only pods it has on the node: bound ones, by UID, whose priority we know. */
    private boolean eligible(Allocation a) {
        return a.phase() != Phase.ASSUMED && !a.podUid().isEmpty() && nominations.priority(a.pod(), a.podUid()).isPresent();
    }
}
