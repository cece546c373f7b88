package io.mpshare.scheduler.cluster;

import io.fabric8.kubernetes.api.model.Pod;
import io.mpshare.core.ledger.Allocation;
import io.mpshare.core.ledger.Ledger;
import io.mpshare.core.ledger.Phase;
import io.mpshare.core.model.GpuDemand;
import io.mpshare.core.model.PodKey;
import io.mpshare.kube.KubePod;
import io.mpshare.scheduler.TestClock;
import io.mpshare.testing.Nodes;
import io.mpshare.testing.Pods;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** Issue 12, items 5 and 8: before a filter refuses everywhere, bookings of pods the API server no longer has are released. */
class StaleRoomCheckTest {
    private final TestClock clock = new TestClock();
    private final Ledger ledger = new Ledger(clock, Duration.ofMinutes(5));
    /** The API server's pods per node: what a consistent list with spec.nodeName=N answers. */
    private final Map<String, List<Pod>> api = new HashMap<>();
    private final List<String> listed = new ArrayList<>();
    private final StaleRoomCheck check = new StaleRoomCheck(ledger, node -> { listed.add(node); return KubePod.all(api.getOrDefault(node, List.of())); },
            clock, 2, Duration.ofSeconds(1));

    private void book(String pod, String uid, String node, Phase phase) {
        ledger.restore(new Allocation(PodKey.of("default", pod), uid, node, List.of(0), List.of("GPU-" + node + "-0"),
                GpuDemand.simple(15 * 1024, 0, 1, 512), clock.instant(), phase));
    }

    @Test void refresh_deletedPodStillBooked_released_livePodsAndAssumedKept() {
        ledger.upsertNode(Nodes.node("n1").gpus(2, 16_384).inventory());
        book("gone", "u-gone", "n1", Phase.BOUND);
        book("live", "u-live", "n1", Phase.ASSIGNED);
        book("binding", "u-b", "n1", Phase.ASSUMED);
        ledger.restore(new Allocation(PodKey.of("default", "live"), "u-live", "n1", List.of(1), List.of("GPU-n1-1"),
                GpuDemand.simple(15 * 1024, 0, 1, 512), clock.instant(), Phase.ASSIGNED));
        api.put("n1", List.of(Pods.pod("live").uid("u-live").gpuMem(15).on("n1").build()));

        assertThat(check.refresh(List.of("n1"))).isEqualTo(1);
        assertThat(ledger.allocation(PodKey.of("default", "gone"))).isEmpty();
        assertThat(ledger.allocation(PodKey.of("default", "live"))).isPresent();
        assertThat(ledger.allocation(PodKey.of("default", "binding"))).isPresent();
    }

    @Test void refresh_recreatedOrFinishedPod_released() {
        ledger.upsertNode(Nodes.node("n1").gpus(1, 16_384).inventory());
        ledger.upsertNode(Nodes.node("n2").gpus(1, 16_384).inventory());
        book("web-0", "old-uid", "n1", Phase.BOUND);
        book("job", "u-job", "n2", Phase.BOUND);
        api.put("n1", List.of(Pods.pod("web-0").uid("new-uid").gpuMem(15).on("n1").build()));
        Pod done = Pods.pod("job").uid("u-job").gpuMem(15).on("n2").build();
        done.setStatus(new io.fabric8.kubernetes.api.model.PodStatusBuilder().withPhase("Succeeded").build());
        api.put("n2", List.of(done));

        assertThat(check.refresh(List.of("n1", "n2"))).isEqualTo(2);
        assertThat(ledger.allocations()).isEmpty();
    }

    /** Bounded: at most maxNodes lists a filter, each node at most once per interval, nodes with nothing booked never. */
    @Test void refresh_bounded_perFilterAndPerNode() {
        for (String n : List.of("n1", "n2", "n3", "empty")) ledger.upsertNode(Nodes.node(n).gpus(1, 16_384).inventory());
        book("a", "u", "n1", Phase.BOUND);
        book("b", "u", "n2", Phase.BOUND);
        book("c", "u", "n3", Phase.BOUND);
        for (String n : List.of("n1", "n2", "n3")) api.put(n, List.of(Pods.pod(Map.of("n1", "a", "n2", "b", "n3", "c").get(n)).uid("u").on(n).build()));

        check.refresh(List.of("empty", "n1", "n2", "n3"));
        assertThat(listed).containsExactly("n1", "n2");
        check.refresh(List.of("n1", "n2", "n3"));
        assertThat(listed).containsExactly("n1", "n2", "n3");
        clock.advance(Duration.ofSeconds(1));
        check.refresh(List.of("n1"));
        assertThat(listed).containsExactly("n1", "n2", "n3", "n1");
    }

    @Test void refresh_apiFails_nothingReleased() {
        var failing = new StaleRoomCheck(ledger, node -> { throw new java.io.IOException("connection refused"); }, clock, 8, Duration.ofSeconds(1));
        ledger.upsertNode(Nodes.node("n1").gpus(1, 16_384).inventory());
        book("a", "u", "n1", Phase.BOUND);
        assertThat(failing.refresh(List.of("n1"))).isZero();
        assertThat(ledger.allocations()).hasSize(1);
    }
}
