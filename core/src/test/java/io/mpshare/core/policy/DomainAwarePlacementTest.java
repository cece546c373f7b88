package io.mpshare.core.policy;

import io.mpshare.core.isolation.FaultDomains.Kind;
import io.mpshare.core.ledger.Allocation;
import io.mpshare.core.ledger.Ledger;
import io.mpshare.core.ledger.NodeState;
import io.mpshare.core.ledger.Phase;
import io.mpshare.core.model.GpuDemand;
import io.mpshare.core.model.PodKey;
import io.mpshare.core.model.ServingDomain;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.OptionalLong;

import static io.mpshare.core.CoreFixtures.*;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Placement with fault domains: the one-UID-per-daemon rule holds only among pods of the node daemon, and a pod prefers
 * the GPU where its domain's daemon already runs (no new daemon to time-slice with), never at the price of room.
 */
class DomainAwarePlacementTest {
    private static final long G = 1024;

    /** Every policy the extender can run, all with the UID rule on (the product's default). */
    private static List<PlacementPolicy> policies() {
        return List.of(new BinpackPolicy(true), new SpreadPolicy(true),
                new FragmentationPolicy(new TaskMix(List.of(new TaskMix.Entry(1, 250, 0, 0, 0, 0, 1))), FragmentationPolicy.DEFAULT_TOLERANCE, true));
    }

    /** A one-GPU demand of {@code gib} GiB of pod {@code ns/pod} running as {@code uid} in a domain of {@code kind}. */
    private static GpuDemand pod(Kind kind, String ns, String pod, long uid, long gib) {
        return demand(gib * G, 0, 1, OptionalLong.of(uid)).withDomain(ServingDomain.of(kind, ns, "uid-" + pod, OptionalLong.of(uid), 1));
    }

    private static void book(Ledger l, String node, int gpu, String ns, String pod, GpuDemand d) {
        l.restore(new Allocation(PodKey.of(ns, pod), "uid-" + pod, node, List.of(gpu), List.of("GPU-" + node + "-" + gpu), d, T0, Phase.BOUND));
    }

    private static int[] chosen(PlacementPolicy p, NodeState s, GpuDemand d) {
        return ((Evaluation.Fits) p.evaluate(s, d)).positions();
    }

    @Test
    void twoUidsInTenantDomains_shareOneGpu() {
        Ledger l = ledger(h200s("n", 1));
        book(l, "n", 0, "team-a", "a1", pod(Kind.TENANT, "team-a", "a1", 1000, 10));
        GpuDemand b = pod(Kind.TENANT, "team-b", "b1", 2000, 10);
        for (PlacementPolicy p : policies()) {
            assertThat(p.evaluate(l.node("n"), b)).as(p.name()).isInstanceOf(Evaluation.Fits.class);
            assertThat(p.fits(l.node("n"), b)).as(p.name()).isTrue();
            assertThat(p.score(l.node("n"), b)).as(p.name()).isNotEqualTo(PlacementPolicy.NO_FIT);
            assertThat(new PlacementEngine(l, p).filter(b, List.of("n")).fits()).as(p.name() + " through the fit index").containsExactly("n");
        }
        assertThat(l.node("n").uids()).as("tenant pods are not the node daemon's").isEmpty();
    }

    @Test
    void twoUidsOfTheNodeDaemon_keptApart() {
        Ledger l = ledger(h200s("n", 1));
        book(l, "n", 0, "trusted", "a1", pod(Kind.NODE, "trusted", "a1", 1000, 10));
        GpuDemand b = pod(Kind.NODE, "trusted-2", "b1", 2000, 10);
        for (PlacementPolicy p : policies()) {
            assertThat(p.evaluate(l.node("n"), b)).as(p.name()).isInstanceOfSatisfying(Evaluation.Unfit.class,
                    u -> assertThat(u.reason()).contains("another UID", "pod runs as UID 2000"));
            assertThat(p.fits(l.node("n"), b)).as(p.name()).isFalse();
            var out = new PlacementEngine(l, p).filter(b, List.of("n"));
            assertThat(out.fits()).as(p.name() + " through the fit index").isEmpty();
            assertThat(out.failed().get("n")).contains("another UID");
        }
    }

    @Test
    void nodeDaemonPod_notHeldBackByTenantPodsOfAnotherUid_andTheirUidsDoNotCount() {
        Ledger l = ledger(h200s("n", 1));
        book(l, "n", 0, "team-a", "a1", pod(Kind.TENANT, "team-a", "a1", 1000, 10));
        book(l, "n", 0, "team-c", "c1", pod(Kind.POD, "team-c", "c1", 3000, 10));
        GpuDemand trusted = pod(Kind.NODE, "trusted", "t1", 2000, 10);
        for (PlacementPolicy p : policies())
            assertThat(new PlacementEngine(l, p).filter(trusted, List.of("n")).fits()).as(p.name()).containsExactly("n");
    }

    @Test
    void podOfSeveralGpus_isTheNodeDaemons_andKeepsTheUidRule() {
        GpuDemand two = demand(20 * G, 0, 2, OptionalLong.of(2000)).withDomain(ServingDomain.of(Kind.TENANT, "team-b", "u", OptionalLong.of(2000), 2));
        assertThat(two.domain()).isEqualTo(ServingDomain.NODE_DAEMON);
        assertThat(two.underUidRule()).isTrue();
        Ledger l = ledger(h200s("n", 2));
        book(l, "n", 0, "trusted", "a1", pod(Kind.NODE, "trusted", "a1", 1000, 10));
        assertThat(new BinpackPolicy(true).evaluate(l.node("n"), two)).isInstanceOf(Evaluation.Unfit.class);
    }

    @Test
    void tenantsSecondPod_goesToTheGpuWhereItsDomainRuns_whenRoomAllows() {
        Ledger l = ledger(h200s("n", 3));
        book(l, "n", 0, "team-a", "a1", pod(Kind.TENANT, "team-a", "a1", 1000, 10));
        book(l, "n", 1, "team-b", "b1", pod(Kind.TENANT, "team-b", "b1", 2000, 100)); // binpack's tightest fit
        book(l, "n", 2, "team-c", "c1", pod(Kind.TENANT, "team-c", "c1", 3000, 5));
        GpuDemand a2 = pod(Kind.TENANT, "team-a", "a2", 1000, 20);
        for (PlacementPolicy p : policies()) assertThat(chosen(p, l.node("n"), a2)).as(p.name()).containsExactly(0);

        // GPU 0 cannot take it: room comes first, so the one GPU with room, another tenant's daemon and all
        GpuDemand big = pod(Kind.TENANT, "team-a", "a3", 1000, 130);
        for (PlacementPolicy p : policies())
            assertThat(chosen(p, l.node("n"), big)).as(p.name()).containsExactly(2);
    }

    @Test
    void newDomain_prefersAnIdleGpu_thenTheGpuWithFewestDaemons() {
        Ledger l = ledger(h200s("n", 3));
        book(l, "n", 0, "team-a", "a1", pod(Kind.TENANT, "team-a", "a1", 1000, 60));
        book(l, "n", 0, "team-b", "b1", pod(Kind.TENANT, "team-b", "b1", 2000, 60)); // tightest, two daemons
        book(l, "n", 1, "team-c", "c1", pod(Kind.TENANT, "team-c", "c1", 3000, 100)); // one daemon
        assertThat(l.node("n").domainsOn(0)).isEqualTo(2);
        GpuDemand d = pod(Kind.POD, "team-d", "d1", 4000, 10);
        for (PlacementPolicy p : policies()) assertThat(chosen(p, l.node("n"), d)).as(p.name()).containsExactly(2);

        book(l, "n", 2, "team-e", "e1", pod(Kind.TENANT, "team-e", "e1", 5000, 100)); // now every GPU runs a daemon
        for (PlacementPolicy p : policies()) assertThat(chosen(p, l.node("n"), d)).as(p.name()).containsExactly(1);
    }

    @Test
    void daemonsPerGpu_nodeWithNoPods_noDaemonAnywhere() {
        Ledger l = ledger(h200s("n", 2));
        book(l, "n", 0, "team-a", "a1", pod(Kind.TENANT, "team-a", "a1", 1000, 10));
        l.release(new PodKey("team-a", "a1"));   // the simulator asks again once a node's last pod has left
        NodeState empty = l.node("n");
        assertThat(empty.hasBookings()).isFalse();
        assertThat(List.of(empty.domainsOn(0), empty.domainsOn(1))).containsExactly(0, 0);
        assertThat(empty.runsOn(0, new ServingDomain(Kind.TENANT, "team-a/1000"))).isFalse();
        assertThat(empty.onlyDomain()).isNull();
    }

    @Test
    void daemonsPerGpu_oneDomainOnTheNode_thenSeveral() {
        Ledger l = ledger(h200s("n", 3));
        book(l, "n", 0, "team-a", "a1", pod(Kind.TENANT, "team-a", "a1", 1000, 10));
        book(l, "n", 1, "team-a", "a2", pod(Kind.TENANT, "team-a", "a2", 1000, 10));
        NodeState one = l.node("n");
        assertThat(one.onlyDomain()).isEqualTo(new ServingDomain(Kind.TENANT, "team-a/1000"));
        assertThat(List.of(one.domainsOn(0), one.domainsOn(1), one.domainsOn(2))).containsExactly(1, 1, 0);
        assertThat(one.runsOn(1, one.onlyDomain())).isTrue();
        assertThat(one.runsOn(2, one.onlyDomain())).isFalse();

        book(l, "n", 1, "team-b", "b1", pod(Kind.TENANT, "team-b", "b1", 2000, 10));
        NodeState two = l.node("n");
        assertThat(two.onlyDomain()).isNull();
        assertThat(List.of(two.domainsOn(0), two.domainsOn(1), two.domainsOn(2))).containsExactly(1, 2, 0);
        assertThat(two.runsOn(1, new ServingDomain(Kind.TENANT, "team-b/2000"))).isTrue();
        assertThat(two.runsOn(0, new ServingDomain(Kind.TENANT, "team-b/2000"))).isFalse();
    }

    @Test
    void prioritize_nodeWhereTheDomainRunsFirst_overATighterFit() {
        Ledger l = ledger(h200s("home", 1), h200s("tight", 1));
        book(l, "home", 0, "team-a", "a1", pod(Kind.TENANT, "team-a", "a1", 1000, 10));
        book(l, "tight", 0, "team-b", "b1", pod(Kind.TENANT, "team-b", "b1", 2000, 100));
        GpuDemand a2 = pod(Kind.TENANT, "team-a", "a2", 1000, 20);
        for (PlacementPolicy p : policies()) {
            var scores = new PlacementEngine(l, p).prioritize(a2, List.of("home", "tight"));
            assertThat(scores.get(0).score()).as(p.name()).isEqualTo(PlacementEngine.MAX_SCORE);
            assertThat(scores.get(1).score()).as(p.name()).isLessThan(PlacementEngine.MAX_SCORE);
        }
        // a pod of the node daemon (no domain of its own) is placed by room as before: binpack takes the tighter node
        GpuDemand trusted = pod(Kind.NODE, "trusted", "t1", 1000, 20);
        var scores = new PlacementEngine(l, new BinpackPolicy(false)).prioritize(trusted, List.of("home", "tight"));
        assertThat(scores.get(1).score()).isEqualTo(PlacementEngine.MAX_SCORE);
    }
}
