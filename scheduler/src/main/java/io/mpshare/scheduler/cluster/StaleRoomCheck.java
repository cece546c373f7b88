package io.mpshare.scheduler.cluster;

import io.mpshare.core.ledger.Allocation;
import io.mpshare.core.ledger.Ledger;
import io.mpshare.core.ledger.NodeState;
import io.mpshare.core.ledger.Phase;
import io.mpshare.core.model.PodKey;
import io.mpshare.kube.KubePod;

import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Before a filter refuses a pod everywhere for lack of room, makes sure the room it counts is not stale:
 * kube-scheduler retries a waiting pod the moment its own informer sees a pod
 * deleted, which can be before the extender's informer has released that pod's booking, and a "no" then parks
 * the pod for minutes.
 *
 * <p>Implementation notes.
 * <ul>
 * <li>For at most {@code maxNodes} of the refused nodes, the pods the API server has on the node are listed
 *     (a consistent read: {@code fieldSelector=spec.nodeName=N}, no resourceVersion) and every BOUND or
 *     ASSIGNED booking the ledger counts there whose pod is not among them (deleted, moved), has finished, or
 *     has another UID is released, as the informer would do a moment later. ASSUMED bookings (binds in
 *     flight, holds) are left alone: their pods are pending and on no node.</li>
 * <li>Bounded: one list per node, each node at most once per {@code minInterval} (a pod that truly fits
 *     nowhere and is retried does not turn into a stream of lists), at most {@code maxNodes} nodes a filter.</li>
 * <li>A release made here and then an older informer event for the same pod: the informer restores the
 *     booking until the deletion event that follows it arrives; nothing is over-committed by it.</li>
 * </ul>
 */
public final class StaleRoomCheck {
    private static final Logger LOG = Logger.getLogger(StaleRoomCheck.class.getName());

    /** The pods the API server has bound to one node now (a consistent read). */
    public interface NodePods {
        List<KubePod> onNode(String node) throws Exception;
    }

    private final Ledger ledger;
    private final NodePods api;
    private final InstantSource clock;
    private final int maxNodes;
    private final Duration minInterval;
    private final Map<String, Instant> lastChecked = new ConcurrentHashMap<>();

    public StaleRoomCheck(Ledger ledger, NodePods api, InstantSource clock, int maxNodes, Duration minInterval) {
        if (maxNodes < 0) throw new IllegalArgumentException("max nodes to re-read must be >= 0");
        this.ledger = ledger;
        this.api = api;
        this.clock = clock;
        this.maxNodes = maxNodes;
        this.minInterval = minInterval;
    }

    /** A check that never re-reads (benchmarks of the filter alone, tests without an API server). */
    public static StaleRoomCheck off() {
        return new StaleRoomCheck(null, node -> List.of(), InstantSource.system(), 0, Duration.ZERO);
    }

    /** Re-reads up to {@code maxNodes} of {@code refused}; returns how many stale bookings were released. */
    public int refresh(Collection<String> refused) {
        int checked = 0, released = 0;
        Instant now = clock.instant();
        for (String node : refused) {
            if (checked >= maxNodes) break;
            NodeState s = ledger.node(node);
            if (s == null || s.pods().isEmpty()) continue;
            Instant last = lastChecked.get(node);
            if (last != null && now.isBefore(last.plus(minInterval))) continue;
            lastChecked.put(node, now);
            checked++;
            try {
                released += reconcile(node, s, api.onNode(node));
            } catch (Exception e) {
                LOG.log(Level.WARNING, "node={0}: could not re-read its pods before refusing a pod: {1}", new Object[] {node, e.getMessage()});
            }
        }
        if (lastChecked.size() > 4 * Math.max(1, maxNodes) * 1024) lastChecked.clear(); // bounded memory on huge clusters
        return released;
    }

    private int reconcile(String node, NodeState s, List<KubePod> pods) {
        Map<PodKey, KubePod> live = new HashMap<>();
        for (KubePod p : pods) live.put(p.key(), p);
        int released = 0;
        for (Allocation a : s.pods().values()) {
            if (a.phase() == Phase.ASSUMED) continue;
            KubePod p = live.get(a.pod());
            boolean gone = p == null || p.finished() || (!a.podUid().isEmpty() && !p.uid().isEmpty() && !a.podUid().equals(p.uid()));
            if (!gone) continue;
            var cur = ledger.allocation(a.pod());
            if (cur.isPresent() && cur.get().samePlacement(a) && cur.get().phase() != Phase.ASSUMED) {
                ledger.release(a.pod());
                released++;
                LOG.log(Level.INFO, "pod={0} node={1} released before the informer saw it go (the API server no longer has it there)", new Object[] {a.pod(), node});
            }
        }
        return released;
    }
}
