package io.mpshare.deviceplugin.allocation;

import io.mpshare.core.ledger.Allocation;
import io.mpshare.core.model.GpuDemand;
import io.mpshare.core.model.NodeInventory;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Which GPUs each answered container of a pod was given, and the pod's allocation as answered: the booking with the
 * GPUs its containers really got. Told to the policer ({@link AnswerSink}) whenever it differs from
 * the booking, so a container is never judged against an annotation that the reconciler has not corrected yet.
 */
final class Answered {
    private final NodeInventory hardware;
    private final Map<String, Map<String, List<Integer>>> byPod = new ConcurrentHashMap<>();
    private final AnswerSink sink;

    Answered(NodeInventory hardware, AnswerSink sink) {
        this.hardware = hardware;
        this.sink = sink;
    }

    void put(Candidate c, String container, List<Integer> gpus) {
        byPod.computeIfAbsent(c.uid(), k -> new ConcurrentHashMap<>()).put(container, List.copyOf(gpus));
        publish(c.uid(), c.allocation());
    }

    void remove(String uid, String container, Allocation booking) {
        var m = byPod.get(uid);
        if (m != null) m.remove(container);
        publish(uid, booking);
    }

    void forget(String uid) { byPod.remove(uid); }

    Map<String, List<Integer>> of(String uid) { return Map.copyOf(byPod.getOrDefault(uid, Map.of())); }

    private void publish(String uid, Allocation booking) {
        var m = byPod.get(uid);
        var union = new TreeSet<Integer>();
        if (m != null) for (List<Integer> g : m.values()) union.addAll(g);
        if (union.isEmpty() || union.equals(new TreeSet<>(booking.gpuIndices()))) sink.cleared(uid);
        else sink.answered(asAnswered(booking, List.copyOf(union), hardware));
    }

    /** The booking moved to {@code gpus} (ascending): same pod, demand and charge per GPU. */
    static Allocation asAnswered(Allocation booking, List<Integer> gpus, NodeInventory hardware) {
        var uuids = new ArrayList<String>();
        for (int g : gpus) uuids.add(hardware.gpu(g).uuid());
        GpuDemand d = booking.demand();
        GpuDemand moved = gpus.size() == d.gpuCount() ? d
                : new GpuDemand(gpus.size(), d.chargeMib(), d.chargeCore(), d.reserveMib(), d.requestedMib(), d.containers(), d.runAsUser());
        return new Allocation(booking.pod(), booking.podUid(), booking.node(), gpus, uuids, moved, booking.assumedAt(), booking.phase());
    }
}
