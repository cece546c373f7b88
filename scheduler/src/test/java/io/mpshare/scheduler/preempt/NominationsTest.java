package io.mpshare.scheduler.preempt;

import io.fabric8.kubernetes.api.model.Pod;
import io.mpshare.core.MemoryUnit;
import io.mpshare.core.isolation.FaultDomains;
import io.mpshare.core.isolation.FaultDomains.Kind;
import io.mpshare.core.model.DemandResolver;
import io.mpshare.core.model.GpuDemand;
import io.mpshare.core.model.PodKey;
import io.mpshare.kube.KubePod;
import io.mpshare.scheduler.TestClock;
import io.mpshare.scheduler.cycle.AskReader;
import io.mpshare.testing.Pods;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class NominationsTest {
    private final TestClock clock = new TestClock();
    private final List<String> freed = new ArrayList<>();
    private final Nominations n = new Nominations(new AskReader(MemoryUnit.GIB, new DemandResolver(512)), clock, Duration.ofSeconds(15));

    { n.onHoldEnded(freed::add); }

    static Pod nominated(String name, Integer priority, String node) {
        Pod p = Pods.pod(name).uid("uid-" + name).gpuMem(4).phase("Pending").build();
        p.getSpec().setPriority(priority);
        p.getStatus().setNominatedNodeName(node);
        return p;
    }

    static PodKey key(String name) { return PodKey.of("default", name); }

    /**
     * A nominee shown by the pod informer holds its room with the demand the verbs read for it: in a tenant namespace
     * that of its tenant's daemon, not the node daemon's (whose one-UID rule would judge it).
     */
    @Test
    void heldAgainst_nomineeOfATenantNamespace_demandOnItsTenantsDaemon() {
        var tenants = new Nominations(new AskReader(MemoryUnit.GIB, new DemandResolver(512), ns -> FaultDomains.kindOf(ns, null, Kind.TENANT)),
                clock, Duration.ofSeconds(15));
        tenants.upserted(KubePod.of(nominated("t", 100, "n1")));
        var held = tenants.heldAgainst("n1", key("x"), 0);
        assertThat(held).hasSize(1);
        assertThat(held.getFirst().demand().domain().kind()).isEqualTo(Kind.TENANT);
        assertThat(held.getFirst().demand().underUidRule()).isFalse();
        assertThat(n.heldAgainst("n1", key("x"), 0)).isEmpty(); // the other instance saw nothing
    }

    @Test
    void heldAgainst_equalOrHigherPriorityNomineesOnly_notItself() {
        n.upserted(KubePod.of(nominated("hi", 1000, "n1")));
        n.upserted(KubePod.of(nominated("mid", 500, "n1")));
        assertThat(n.heldAgainst("n1", key("x"), 500)).extracting(m -> m.pod().name()).containsExactlyInAnyOrder("hi", "mid");
        assertThat(n.heldAgainst("n1", key("x"), 501)).extracting(m -> m.pod().name()).containsExactly("hi");
        assertThat(n.heldAgainst("n1", key("hi"), 0)).extracting(m -> m.pod().name()).containsExactly("mid");
        assertThat(n.heldAgainst("n2", key("x"), 0)).isEmpty();
    }

    @Test
    void apply_bindingDeletionOrClearedNomination_endsTheHold() {
        Pod bound = nominated("bound", 10, "n1");
        Pod gone = nominated("gone", 10, "n1");
        Pod cleared = nominated("cleared", 10, "n1");
        for (Pod p : List.of(bound, gone, cleared)) n.upserted(KubePod.of(p));
        bound.getSpec().setNodeName("n1");
        n.upserted(KubePod.of(bound));
        n.deleted(KubePod.of(gone));
        cleared.getStatus().setNominatedNodeName("");
        n.upserted(KubePod.of(cleared));
        assertThat(n.any()).isFalse();
        assertThat(n.nodes()).isEmpty();
        assertThat(n.priority(key("gone"))).isEmpty();
        assertThat(n.priority(key("bound"))).hasValue(10);
    }

    @Test
    void apply_nominationMoves_heldOnTheNewNodeOnly() {
        Pod p = nominated("q", 10, "n1");
        n.upserted(KubePod.of(p));
        p.getStatus().setNominatedNodeName("n2");
        n.upserted(KubePod.of(p));
        assertThat(n.heldAgainst("n1", key("x"), 0)).isEmpty();
        assertThat(n.heldAgainst("n2", key("x"), 0)).hasSize(1);
    }

    @Test
    void apply_noPriority_countsAsZero_andPodWithoutGpuIsNoNominee() {
        n.upserted(KubePod.of(nominated("q", null, "n1")));
        Pod plain = Pods.pod("plain").phase("Pending").build();
        plain.getStatus().setNominatedNodeName("n1");
        n.upserted(KubePod.of(plain));
        assertThat(n.priority(key("q"))).hasValue(0);
        assertThat(n.heldAgainst("n1", key("x"), Integer.MIN_VALUE)).extracting(m -> m.pod().name()).containsExactly("q");
    }

    static final GpuDemand TEN = GpuDemand.simple(10 * 1024, 0, 1, 512);

    @Test
    void nominated_gpusThePreemptVerbChoseAreHeld_andKeptWhenTheInformerConfirms() {
        n.nominated(key("q"), 10, TEN, "n1", List.of(1));
        assertThat(n.heldAgainst("n1", key("x"), 0).getFirst().gpuIndices()).containsExactly(1);
        n.upserted(KubePod.of(nominated("q", 10, "n1")));
        assertThat(n.heldAgainst("n1", key("x"), 0).getFirst().gpuIndices()).containsExactly(1);
        n.nominated(key("q"), 10, TEN, "n1", List.of(0));
        assertThat(n.heldAgainst("n1", key("x"), 0).getFirst().gpuIndices()).containsExactly(0);
    }

    /** kube-scheduler nominates after it deleted the victims; a pod retried on those deletions must meet the hold already. */
    @Test
    void nominated_heldBeforeTheInformerShowsIt_anOlderVersionWithoutItEndsNothing() {
        n.upserted(KubePod.of(nominated("q", 1000, null)));   // the informer's copy: pending, not nominated yet
        n.nominated(key("q"), 1000, TEN, "n1", List.of(0));
        assertThat(n.heldAgainst("n1", key("w"), 0)).extracting(m -> m.pod().name()).containsExactly("q");
        n.upserted(KubePod.of(nominated("q", 1000, null)));   // an event from before the status patch
        assertThat(n.heldAgainst("n1", key("w"), 0)).hasSize(1);
        n.upserted(KubePod.of(nominated("q", 1000, "n1")));   // confirmed
        clock.advance(Duration.ofMinutes(1));
        assertThat(n.expire()).isZero();
        assertThat(n.heldAgainst("n1", key("w"), 0)).hasSize(1);
        n.upserted(KubePod.of(nominated("q", 1000, null)));   // kube-scheduler cleared it
        assertThat(n.heldAgainst("n1", key("w"), 0)).isEmpty();
        assertThat(freed).containsExactly("n1");
    }

    @Test
    void nominated_neverConfirmed_lapsesAfterItsTime() {
        n.nominated(key("q"), 1000, TEN, "n1", List.of(0));
        clock.advance(Duration.ofSeconds(15));
        assertThat(n.heldAgainst("n1", key("w"), 0)).hasSize(1);
        clock.advance(Duration.ofMillis(1));
        assertThat(n.heldAgainst("n1", key("w"), 0)).as("lapsed, before expire runs").isEmpty();
        assertThat(n.expire()).isEqualTo(1);
        assertThat(n.any()).isFalse();
        assertThat(freed).containsExactly("n1");
    }

    @Test
    void holdEnded_bindingOrMove_reportsTheNodeLeft() {
        Pod q = nominated("q", 10, "n1");
        n.upserted(KubePod.of(q));
        q.getStatus().setNominatedNodeName("n2");
        n.upserted(KubePod.of(q));
        q.getSpec().setNodeName("n2");
        n.upserted(KubePod.of(q));
        assertThat(freed).containsExactly("n1", "n2");
    }

    @Test
    void priority_otherUid_unknown() {
        n.upserted(KubePod.of(nominated("q", 10, "n1")));
        assertThat(n.priority(key("q"), "uid-q")).hasValue(10);
        assertThat(n.priority(key("q"), "another")).isEmpty();
    }
}
