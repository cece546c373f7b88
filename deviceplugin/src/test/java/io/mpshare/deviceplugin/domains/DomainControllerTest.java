package io.mpshare.deviceplugin.domains;

import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.Pod;
import io.mpshare.core.MemoryUnit;
import io.mpshare.core.isolation.FaultDomains;
import io.mpshare.core.isolation.FaultDomains.Kind;
import io.mpshare.core.isolation.FaultSuspects;
import io.mpshare.core.model.Gpu;
import io.mpshare.core.model.NodeInventory;
import io.mpshare.deviceplugin.allocation.Daemons.Served;
import io.mpshare.deviceplugin.cluster.KubeEvents;
import io.mpshare.deviceplugin.domains.DomainPlan.Desired;
import io.mpshare.deviceplugin.domains.DomainReport.State;
import io.mpshare.deviceplugin.testkit.TestPods;
import io.mpshare.kube.node.NodeBookings;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;

/** The domain controller's rules, over a fake supervisor that models MPS's measured fault behaviour. */
class DomainControllerTest {
    static final NodeInventory INV = new NodeInventory("n1", List.of(
            new Gpu(0, "GPU-aaaa", "NVIDIA H200", 143_771, true),
            new Gpu(1, "GPU-bbbb", "NVIDIA H200", 143_771, true)));
    static final Instant T0 = Instant.parse("2026-12-01T00:00:00Z");

    final AtomicReference<Instant> now = new AtomicReference<>(T0);
    final InstantSource clock = () -> now.get();
    final FakeSupervisor blue = new FakeSupervisor("blue");
    final Map<String, String> labels = new HashMap<>();
    final List<Event> events = new ArrayList<>();
    final PrometheusRegistry registry = new PrometheusRegistry();
    final DomainMetrics metrics = new DomainMetrics(registry, "n1", true);
    final FaultWatch faults = new FaultWatch(new FaultSuspects(FaultSuspects.Policy.DEFAULT), clock,
            new DomainNotices(new KubeEvents("n1", events::add, Runnable::run), metrics, FaultSuspects.Policy.DEFAULT, clock));
    final List<DomainsView> published = new ArrayList<>();
    final DomainController controller = new DomainController(new DomainController.Parts("n1", INV, Path.of("/run/mpshare"), Map.of("blue", blue),
            ns -> FaultDomains.kindOf(ns, labels.get(ns), Kind.TENANT), uid -> Set.of("blue"), faults, Runnable::run, published::add));
    final NodeBookings bookings = new NodeBookings("n1", INV, MemoryUnit.GIB, NodeBookings.Refusals.NONE);

    DomainControllerTest() {
        bookings.addListener(controller);
        controller.round();   // the supervisor's first report: the baseline
    }

    Pod book(TestPods p, int... gpus) {
        Pod pod = p.on("n1").placed(INV, gpus).build();
        bookings.upserted(pod);
        return pod;
    }

    static String uid(Pod p) { return p.getMetadata().getUid(); }

    Served allocate(Pod p, String gpuUuid) { return controller.daemonFor(uid(p), "blue", List.of(gpuUuid)); }

    String domainOf(Pod p, String gpuUuid) { return controller.podDomain(uid(p)).choice().id(gpuUuid); }

    @Test void tenantDomains_podsOfOneNamespaceAndUidShare_otherNamespacesAndUidsApart_ceilingPerDomainFromItsOwnPods() {
        Pod a1 = book(TestPods.pod("a1").namespace("team-a").runAsUser(1000).mem("main", 10), 0);
        Pod a2 = book(TestPods.pod("a2").namespace("team-a").runAsUser(1000).mem("main", 20), 0);
        Pod a3 = book(TestPods.pod("a3").namespace("team-a").runAsUser(2000).mem("main", 20), 0);
        Pod b1 = book(TestPods.pod("b1").namespace("team-b").runAsUser(1000).mem("main", 10), 0);
        controller.round();

        String a = domainOf(a1, "GPU-aaaa");
        assertThat(domainOf(a2, "GPU-aaaa")).isEqualTo(a).startsWith("t-");
        assertThat(domainOf(a3, "GPU-aaaa")).isNotEqualTo(a);
        assertThat(domainOf(b1, "GPU-aaaa")).isNotEqualTo(a).isNotEqualTo(domainOf(a3, "GPU-aaaa"));
        assertThat(blue.all()).containsOnlyKeys(a, domainOf(a3, "GPU-aaaa"), domainOf(b1, "GPU-aaaa"));
        // the largest cap booked in the domain, not the GPU's: team-a/1000 as team-a/2000 (20 GiB), team-b (10 GiB) lower
        long ceilingA = blue.domain(a).ceilingMib();
        assertThat(ceilingA).isEqualTo(blue.domain(domainOf(a3, "GPU-aaaa")).ceilingMib());
        assertThat(blue.domain(domainOf(b1, "GPU-aaaa")).ceilingMib()).isLessThan(ceilingA);
        assertThat(blue.domain(a).gpu()).isEqualTo("GPU-aaaa");
        assertThat(blue.calls).anyMatch(c -> c.startsWith("PUT " + a) && c.endsWith("uid=1000"));
    }

    /** The tenant key's UID is the GPU container's effective one: its own {@code runAsUser} wins over the pod's. */
    @Test void tenantDomain_containerRunAsUserWinsOverThePods() {
        Pod own = book(TestPods.pod("c1").namespace("team-a").runAsUser(1000).containerRunAsUser(2000).mem("main", 10), 0);
        Pod as2000 = book(TestPods.pod("c2").namespace("team-a").runAsUser(2000).mem("main", 10), 0);
        Pod as1000 = book(TestPods.pod("c3").namespace("team-a").runAsUser(1000).mem("main", 10), 0);
        controller.round();
        assertThat(controller.podDomain(uid(own)).clientUid()).hasValue(2000);
        assertThat(domainOf(own, "GPU-aaaa")).isEqualTo(domainOf(as2000, "GPU-aaaa")).isNotEqualTo(domainOf(as1000, "GPU-aaaa"));
        assertThat(blue.calls).anyMatch(c -> c.startsWith("PUT " + domainOf(own, "GPU-aaaa")) && c.endsWith("uid=2000"));
    }

    @Test void domainLifeCycle_putOnBooking_raisedWhenALargerPodJoins_deletedWhenItsLastPodLeaves() {
        Pod small = book(TestPods.pod("s").namespace("team-a").mem("main", 10), 0);
        controller.round();
        String id = domainOf(small, "GPU-aaaa");
        long first = blue.domain(id).ceilingMib();

        Pod large = book(TestPods.pod("l").namespace("team-a").mem("main", 40), 0);
        controller.round();
        assertThat(domainOf(large, "GPU-aaaa")).isEqualTo(id);
        assertThat(blue.domain(id).ceilingMib()).isGreaterThan(first);

        bookings.deleted(large);
        controller.round();
        assertThat(blue.domain(id).ceilingMib()).as("lowered with its largest pod gone").isEqualTo(first);
        assertThat(blue.calls).noneMatch(c -> c.startsWith("DELETE"));

        bookings.deleted(small);
        controller.round();
        assertThat(blue.calls).contains("DELETE " + id);
        assertThat(blue.all()).doesNotContainKey(id);
    }

    @Test void allocate_answersTheDomainsPipe_onlyWhenItServes_withTheReasonWhileItStarts() {
        blue.startsServing = false;
        Pod p = book(TestPods.pod("p").namespace("team-a").mem("main", 10), 1);
        controller.round();
        String id = domainOf(p, "GPU-bbbb");

        assertThat(allocate(p, "GPU-bbbb")).isInstanceOfSatisfying(Served.NotReady.class,
                n -> assertThat(n.reason()).contains(id).contains("is starting"));
        long seen = controller.version();
        blue.started(id);
        controller.round();
        assertThat(controller.version()).isGreaterThan(seen);
        assertThat(allocate(p, "GPU-bbbb")).isEqualTo(new Served.Ready("/run/mpshare/blue/d/" + id + "/pipe", id));
    }

    @Test void allocate_aSupervisorThatDoesNotAnswer_isNotAnsweredWithADeadPipe() {
        blue.down = true;
        Pod p = book(TestPods.pod("p").namespace("team-a").mem("main", 10), 0);
        controller.round();
        assertThat(allocate(p, "GPU-aaaa")).isInstanceOfSatisfying(Served.NotReady.class,
                n -> assertThat(n.reason()).contains("blue MPS supervisor does not answer"));
    }

    @Test void nodeKind_andPodsOfSeveralGpus_areServedByTheColoursNodeDaemon_noDomainAsked() {
        labels.put("trusted", "node");
        Pod seed = book(TestPods.pod("seed").namespace("trusted").mem("main", 10), 0);
        Pod wide = book(TestPods.pod("wide").namespace("team-a").gpuCount(2).mem("main", 20), 0, 1);
        controller.round();
        assertThat(allocate(seed, "GPU-aaaa")).isEqualTo(new Served.Ready("/run/mpshare/blue/pipe", FaultDomains.NODE_DAEMON));
        assertThat(controller.daemonFor(uid(wide), "blue", List.of("GPU-aaaa", "GPU-bbbb")))
                .isEqualTo(new Served.Ready("/run/mpshare/blue/pipe", FaultDomains.NODE_DAEMON));
        assertThat(blue.calls).isEmpty();
    }

    @Test void nodeDaemonCeiling_countsOnlyThePodsItServes() {
        labels.put("trusted", "node");
        Pod seed = book(TestPods.pod("seed").namespace("trusted").mem("main", 10), 0);
        Pod tenant = book(TestPods.pod("big").namespace("team-a").mem("main", 60), 0);
        assertThat(controller.onNodeDaemon(uid(seed))).isTrue();
        assertThat(controller.onNodeDaemon(uid(tenant))).as("its domain's PUT carries its ceiling").isFalse();
        assertThat(controller.onNodeDaemon("not-seen-yet")).isTrue();
    }

    @Test void allocate_onAnotherGpuThanBooked_movesThePodToThatGpusDomain() {
        Pod p = book(TestPods.pod("p").namespace("team-a").mem("main", 10), 0);
        controller.round();
        String booked = domainOf(p, "GPU-aaaa");
        assertThat(allocate(p, "GPU-bbbb")).isInstanceOf(Served.NotReady.class);   // not asked yet on GPU 1
        controller.round();
        String given = domainOf(p, "GPU-bbbb");
        assertThat(allocate(p, "GPU-bbbb")).isEqualTo(new Served.Ready("/run/mpshare/blue/d/" + given + "/pipe", given));
        assertThat(blue.domain(given).gpu()).isEqualTo("GPU-bbbb");
        assertThat(blue.calls).contains("DELETE " + booked);
    }

    @Test void fault_refusesTheDomainsNewPods_eventsOnEachOfItsPods_otherDomainUntouched_servesAgainOnceItsClientsExited() {
        Pod a1 = book(TestPods.pod("a1").namespace("team-a").mem("main", 10), 0);
        Pod a2 = book(TestPods.pod("a2").namespace("team-a").mem("main", 10), 0);
        Pod b1 = book(TestPods.pod("b1").namespace("team-b").mem("main", 10), 0);
        controller.round();
        String a = domainOf(a1, "GPU-aaaa"), b = domainOf(b1, "GPU-aaaa");
        blue.connect(a, 101);
        blue.connect(a, 102);
        blue.connect(b, 201);

        assertThat(blue.fault(a, T0.plusSeconds(5))).containsExactly(101L, 102L);
        controller.round();

        assertThat(allocate(a2, "GPU-aaaa")).isInstanceOfSatisfying(Served.NotReady.class,
                n -> assertThat(n.reason()).contains(a).contains("faulted").contains("refuses new ones"));
        assertThat(allocate(b1, "GPU-aaaa")).isInstanceOf(Served.Ready.class);
        assertThat(controller.faultedGpus()).containsOnlyKeys(0);
        assertThat(events).extracting(e -> e.getInvolvedObject().getName()).containsExactlyInAnyOrder("a1", "a2");
        assertThat(events).allSatisfy(e -> {
            assertThat(e.getReason()).isEqualTo(DomainNotices.REASON_FAULT);
            assertThat(e.getType()).isEqualTo("Warning");
            assertThat(e.getMessage()).contains("GPU fault in MPS domain " + a).contains("pids 101, 102")
                    .contains("pods sharing the domain: team-a/a1, team-a/a2").contains("suspect: none named").doesNotContain("b1");
        });
        assertThat(metrics.podFaults("team-a", "a1")).isEqualTo(1);
        assertThat(metrics.namespaceFaults("team-a")).isEqualTo(1);
        assertThat(metrics.namespaceFaults("team-b")).isZero();
        assertThat(metrics.faults(Kind.TENANT)).isEqualTo(1);

        blue.clientsExited(a);
        controller.round();
        assertThat(allocate(a2, "GPU-aaaa")).isInstanceOf(Served.Ready.class);
        assertThat(controller.faultedGpus()).isEmpty();
        assertThat(events).hasSize(2);   // told once
    }

    /**
     * MPS kills the faulting domain's clients, so kubelet may fail their pods, and their bookings go, before the round
     * that reads the fault: those pods are told too; a pod that left the domain before the fault is not.
     */
    @Test void fault_podsThatLeftSinceTheFault_areTold_podsThatLeftBefore_areNot() {
        Pod a1 = book(TestPods.pod("a1").namespace("team-a").mem("main", 10), 0);
        Pod a2 = book(TestPods.pod("a2").namespace("team-a").mem("main", 10), 0);
        Pod early = book(TestPods.pod("early").namespace("team-a").mem("main", 10), 0);
        controller.round();
        String a = domainOf(a1, "GPU-aaaa");
        blue.connect(a, 101);
        blue.connect(a, 102);
        now.set(T0.plusSeconds(2));
        bookings.deleted(early);   // finished before the fault
        controller.round();

        assertThat(blue.fault(a, T0.plusSeconds(5))).containsExactly(101L, 102L);
        now.set(T0.plusSeconds(6));
        bookings.deleted(a1);      // its client killed: kubelet failed it before the next round
        controller.round();

        assertThat(events).extracting(e -> e.getInvolvedObject().getName()).containsExactlyInAnyOrder("a2", "a1");
        assertThat(events).allSatisfy(e -> assertThat(e.getMessage()).contains("GPU fault in MPS domain " + a)
                .contains("team-a/a2").contains("team-a/a1").doesNotContain("early"));
        assertThat(metrics.podFaults("team-a", "a1")).isEqualTo(1);
        assertThat(metrics.podFaults("team-a", "early")).isZero();
    }

    @Test void suspect_aWorkloadInTwoFaultsWithinTenMinutes_isNamed_andItsNextPodGetsADomainOfItsOwn() {
        Pod w1 = book(TestPods.pod("train-1").namespace("team-a").ownedBy("Job", "train").mem("main", 10), 0);
        Pod other = book(TestPods.pod("infer").namespace("team-a").mem("main", 10), 0);
        controller.round();
        String shared = domainOf(w1, "GPU-aaaa");
        blue.fault(shared, T0.plusSeconds(1));
        controller.round();
        blue.clientsExited(shared);
        assertThat(events).allSatisfy(e -> assertThat(e.getMessage()).contains("suspect: none named"));

        // the Job's replacement pod faults the shared domain again within the window
        bookings.deleted(w1);
        Pod w2 = book(TestPods.pod("train-2").namespace("team-a").ownedBy("Job", "train").mem("main", 10), 0);
        controller.round();
        assertThat(domainOf(w2, "GPU-aaaa")).isEqualTo(shared);
        now.set(T0.plus(Duration.ofMinutes(4)));
        blue.fault(shared, now.get());
        controller.round();
        // infer was present in both faults too: a workload present in 2 faults is named, whichever faulted
        assertThat(events.subList(1, events.size())).anySatisfy(e -> assertThat(e.getMessage())
                .contains("suspect: ").contains("team-a/Job/train").contains("2 faults within 10 min"));

        bookings.deleted(w2);
        Pod w3 = book(TestPods.pod("train-3").namespace("team-a").ownedBy("Job", "train").mem("main", 10), 0);
        controller.round();
        assertThat(controller.podDomain(uid(w3)).choice().kind()).isEqualTo(Kind.POD);
        assertThat(domainOf(w3, "GPU-aaaa")).startsWith("p-").isNotEqualTo(shared);
        assertThat(controller.view().annotation(now.get()).suspects()).anySatisfy(s -> assertThat(s.workload()).isEqualTo("team-a/Job/train"));
        assertThat(domainOf(other, "GPU-aaaa")).as("pods seen before stay where they were answered").isEqualTo(shared);
    }

    @Test void faultsCountedBeforeThisAgentStarted_areNotToldAgain() {
        var restarted = new FakeSupervisor("blue");
        var ask = new DomainAsk("GPU-aaaa", Kind.TENANT, null, 20_480, 100);
        restarted.put("t-000000000001", ask);
        restarted.connect("t-000000000001", 7);
        restarted.fault("t-000000000001", T0);
        var watch = new FaultWatch(new FaultSuspects(FaultSuspects.Policy.DEFAULT), clock,
                new DomainNotices(new KubeEvents("n1", events::add, Runnable::run), metrics, FaultSuspects.Policy.DEFAULT, clock));
        Map<String, DomainReport> byId = restarted.all();
        watch.observe("blue", byId, Map.<DomainPlan.Key, Desired>of());
        watch.observe("blue", byId, Map.<DomainPlan.Key, Desired>of());
        assertThat(events).isEmpty();
        assertThat(metrics.faults(Kind.TENANT)).isZero();
    }

    @Test void stall_eventNamesTheHolder_domainRefusedUntilItAnswers_noFaultCounted() {
        Pod a1 = book(TestPods.pod("a1").namespace("team-a").mem("main", 10), 0);
        controller.round();
        String a = domainOf(a1, "GPU-aaaa");
        blue.stall(a, new DomainReport.Holder(4242, 1000, 3, "python train.py"));
        controller.round();
        assertThat(allocate(a1, "GPU-aaaa")).isInstanceOfSatisfying(Served.NotReady.class,
                n -> assertThat(n.reason()).contains("stopped answering").contains("pid 4242 (uid 1000)"));
        assertThat(events).singleElement().satisfies(e -> {
            assertThat(e.getReason()).isEqualTo(DomainNotices.REASON_STALLED);
            assertThat(e.getMessage()).contains("pid 4242 (uid 1000, 3 connections)").contains("team-a/a1");
        });
        assertThat(controller.faultedGpus()).as("a stall does not close the GPU").isEmpty();
        assertThat(metrics.faults(Kind.TENANT)).isZero();
        blue.started(a);
        controller.round();
        assertThat(allocate(a1, "GPU-aaaa")).isInstanceOf(Served.Ready.class);
    }

    @Test void round_publishesTheDomainsPerGpu_forInspect() {
        labels.put("trusted", "node");
        book(TestPods.pod("a1").namespace("team-a").mem("main", 10), 0);
        book(TestPods.pod("seed").namespace("trusted").mem("main", 10), 1);
        controller.round();
        var ann = published.getLast().annotation(T0);
        assertThat(ann.domains()).extracting(d -> d.gpu() + " " + d.kind().label() + " " + d.state() + " " + d.pods())
                .containsExactly("0 tenant SERVING 1");
        assertThat(blue.all().values()).extracting(DomainReport::state).containsOnly(State.SERVING);
    }
}
