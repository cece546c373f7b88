package io.mpshare.scheduler.preempt;

import io.mpshare.core.ledger.Allocation;
import io.mpshare.core.ledger.Ledger;
import io.mpshare.core.ledger.NodeState;
import io.mpshare.core.ledger.Phase;
import io.mpshare.core.policy.Evaluation;
import io.mpshare.core.policy.PlacementPolicy;
import io.mpshare.core.preempt.NominatedHold;
import io.mpshare.core.preempt.VictimSelection;
import io.mpshare.scheduler.cycle.Ask;

import java.util.List;
import java.util.Map;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * kube-scheduler's {@code preemptVerb}, decided: kube-scheduler proposes victims by node totals; this answer replaces
 * them with the pods whose removal frees one GPU (or the pod's gpu-count GPUs) for the preemptor on one node
 * ({@link VictimSelection}).
 *
 * <p>Implementation notes.
 * <ul>
 * <li>One node is answered, the one kube-scheduler itself would pick among ours (fewest PodDisruptionBudget violations
 *     as it counted them, then the lowest highest victim priority, the lowest sum of priorities, the fewest victims,
 *     then the order it sent): with one candidate it nominates exactly that node, so the preemptor's room is held
 *     there from this answer on ({@link Nominations#nominated}), before the victims are deleted.</li>
 * <li>A node is a candidate only when the pod fits there once the victims are gone, as filter will judge it: the
 *     policy's own answer (with the UID rule, another UID's pod left on the node refuses it), with the room held for
 *     other pods nominated there at equal or higher priority counted first. So the victims agree with what filter
 *     then accepts.</li>
 * <li>Victims are pods bound to the node with a known UID and a priority lower than the preemptor's; kube-scheduler
 *     treats a node without victims as an error, so a node where the pod already fits is left out.
 *     PodDisruptionBudgets are not read: the node keeps the {@code NumPDBViolations} kube-scheduler sent.</li>
 * </ul>
 * The wire format is the HTTP adapter's.
 */
public final class PreemptVerb {
    private static final Logger LOG = Logger.getLogger(PreemptVerb.class.getName());
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

    /** A node where the preemptor fits once {@code victims} are gone, on {@code gpus}. */
    private record Candidate(String node, List<Allocation> victims, List<Integer> gpus, long pdb, int maxPriority, long sumPriority) {
        /** kube-scheduler's order of candidates (pickOneNodeForPreemption), without the victims' start times. */
        boolean betterThan(Candidate o) {
            if (o == null) return true;
            if (pdb != o.pdb) return pdb < o.pdb;
            if (maxPriority != o.maxPriority) return maxPriority < o.maxPriority;
            if (sumPriority != o.sumPriority) return sumPriority < o.sumPriority;
            return victims.size() < o.victims.size();
        }
    }

    /**
     * The victims on the one candidate node where the preemptor is best placed, or no node.
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
        Candidate best = null;
        for (var e : candidates.entrySet()) {
            Candidate c = candidate(g, priority, e.getKey(), e.getValue());
            if (c != null && c.betterThan(best)) best = c;
        }
        if (best == null) {
            LOG.log(Level.INFO, "preempt pod={0} priority={1} candidates={2}: no node where victims free its room", new Object[] {g.pod().key(),
                    String.valueOf(priority), String.valueOf(candidates.size())});
            return Map.of();
        }
        nominations.nominated(g.pod().key(), priority, g.demand(), best.node(), best.gpus());
        LOG.log(Level.INFO, "preempt pod={0} priority={1} candidates={2} node={3} gpus={4} victims={5}", new Object[] {g.pod().key(), String.valueOf(priority),
                String.valueOf(candidates.size()), best.node(), best.gpus(), best.victims().stream().map(Allocation::pod).toList()});
        return Map.of(best.node(), new MetaVictims(best.victims().stream().map(Allocation::podUid).toList(), best.pdb()));
    }

    /** The victims on {@code node} that let the preemptor in as filter will judge it, or null. */
    private Candidate candidate(Ask.Gpu g, int priority, String node, long pdb) {
        NodeState s = ledger.node(node);
        if (s == null) return null;
        switch (VictimSelection.choose(s, g.demand(), priority, nominations::priority, this::eligible)) {
            case VictimSelection.Choice.Victims v -> {
                NodeState freed = s;
                int max = Integer.MIN_VALUE;
                long sum = 0;
                for (Allocation a : v.victims()) {
                    freed = freed.exceptPod(a.pod());
                    int p = nominations.priority(a.pod()).orElse(0);
                    max = Math.max(max, p);
                    sum += p;
                }
                var held = nominations.heldAgainst(node, g.pod().key(), priority);
                if (!(NominatedHold.evaluate(freed, held, g.demand(), policy) instanceof Evaluation.Fits)) {
                    LOG.log(Level.INFO, "preempt pod={0} node={1}: refused there even without the victims (UID rule, or room held for a nominated pod); node left out",
                            new Object[] {g.pod().key(), node});
                    return null;
                }
                return new Candidate(node, v.victims(), v.gpuIndices(), pdb, max, sum);
            }
            case VictimSelection.Choice.NotNeeded n -> {
                LOG.log(Level.FINE, "preempt pod={0} node={1} fits without preemption", new Object[] {g.pod().key(), node});
                return null;
            }
            case VictimSelection.Choice.NoRoom r -> {
                LOG.log(Level.FINE, "preempt pod={0} node={1} reason={2}", new Object[] {g.pod().key(), node, r.reason()});
                return null;
            }
        }
    }

    /** kube-scheduler can name only pods it has on the node: bound ones, by UID, whose priority we know. */
    private boolean eligible(Allocation a) {
        return a.phase() != Phase.ASSUMED && !a.podUid().isEmpty() && nominations.priority(a.pod(), a.podUid()).isPresent();
    }
}
