package io.mpshare.deviceplugin.domains;

import io.mpshare.core.isolation.FaultDomains.Kind;
import io.mpshare.core.isolation.MpsLimits;
import io.mpshare.core.model.NodeInventory;
import io.mpshare.core.model.PodKey;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;

/**
 * The domains the node's bookings ask of each colour's supervisor: pure. Each pod that is not on the node daemon is in
 * one domain per GPU it uses ({@link PodDomain#gpus}), on each colour it was (or will be) sent to. A domain's ceiling and
 * thread share are {@link MpsLimits}' rules over its own pods only: the largest cap and share booked in it.
 */
public final class DomainPlan {
    private DomainPlan() {}

    private static final Comparator<PodDomain> BY_POD = Comparator.comparing((PodDomain p) -> p.pod().namespace()).thenComparing(p -> p.pod().name());

    /** A domain on one colour. */
    public record Key(String colour, String id) {
        @Override public String toString() { return colour + "/" + id; }
    }

    /** A pod of a domain, for events and suspects. */
    public record Member(PodKey pod, String uid, String workload) {}

    /**
     * One domain as the bookings ask it.
     *
     * @param who  whose it is, for a person: the tenant key {@code namespace/uid}, or the pod {@code namespace/name}
     * @param pods its pods on this node, by namespace and name
     */
    public record Desired(Key key, int gpu, Kind kind, String who, DomainAsk ask, List<Member> pods) {
        public Desired { pods = List.copyOf(pods); }
    }

    /**
     * @param colours the colour(s) each pod (by UID) was sent to, or is sent to now when it was not answered yet
     */
    public static Map<Key, Desired> of(Collection<PodDomain> pods, Function<String, Set<String>> colours, NodeInventory hardware) {
        var members = new LinkedHashMap<Key, List<PodDomain>>();
        var caps = new ArrayList<MpsLimits.Cap<Key>>();
        var shares = new ArrayList<MpsLimits.Share<Key>>();
        var gpuOf = new LinkedHashMap<Key, Integer>();
        for (PodDomain p : pods.stream().sorted(BY_POD).toList()) {
            if (p.onNodeDaemon()) continue;
            long cap = MpsLimits.largestClientCapMib(p.booking().demand());
            int share = MpsLimits.largestClientSharePercent(p.booking().demand());
            for (String colour : colours.apply(p.uid())) {
                for (int g : p.gpus()) {
                    Key k = new Key(colour, p.choice().id(hardware.gpu(g).uuid()));
                    members.computeIfAbsent(k, x -> new ArrayList<>()).add(p);
                    gpuOf.put(k, g);
                    caps.add(new MpsLimits.Cap<>(k, cap));
                    shares.add(new MpsLimits.Share<>(k, share));
                }
            }
        }
        Map<Key, Long> ceilings = MpsLimits.ceilings(caps, members.keySet());
        Map<Key, Integer> threads = MpsLimits.threadPercentages(shares, members.keySet());
        var out = new LinkedHashMap<Key, Desired>();
        members.forEach((k, ps) -> {
            PodDomain first = ps.getFirst();
            Kind kind = first.choice().kind();
            int gpu = gpuOf.get(k);
            Integer uid = first.clientUid().isPresent() ? Math.toIntExact(first.clientUid().getAsLong()) : null;
            var ask = new DomainAsk(hardware.gpu(gpu).uuid(), kind, uid, ceilings.get(k), threads.get(k));
            String who = kind == Kind.TENANT ? first.choice().key() : first.pod().toString();
            out.put(k, new Desired(k, gpu, kind, who, ask, ps.stream().map(p -> new Member(p.pod(), p.uid(), p.workload())).toList()));
        });
        return out;
    }

    /** The pods the colour's node daemon serves, per GPU (for the Node's annotation). */
    public static Map<Integer, List<Member>> onNodeDaemon(Collection<PodDomain> pods) {
        var out = new LinkedHashMap<Integer, List<Member>>();
        for (PodDomain p : pods.stream().sorted(BY_POD).toList()) {
            if (!p.onNodeDaemon()) continue;
            for (int g : p.gpus()) out.computeIfAbsent(g, x -> new ArrayList<>()).add(new Member(p.pod(), p.uid(), p.workload()));
        }
        return out;
    }
}
