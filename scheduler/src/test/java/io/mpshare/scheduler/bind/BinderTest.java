package io.mpshare.scheduler.bind;

import io.mpshare.core.Names;
import io.mpshare.core.ledger.Allocation;
import io.mpshare.core.ledger.Ledger;
import io.mpshare.core.ledger.Phase;
import io.mpshare.core.model.PodKey;
import io.mpshare.core.policy.BinpackPolicy;
import io.mpshare.core.policy.PlacementEngine;
import io.mpshare.kube.KubePod;
import io.mpshare.scheduler.TestClock;
import io.mpshare.scheduler.Wiring;
import io.mpshare.scheduler.cycle.Ask;
import io.mpshare.scheduler.verbs.Verbs;
import io.mpshare.testing.Nodes;
import io.mpshare.testing.Pods;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

class BinderTest {
    private final TestClock clock = new TestClock();
    private Ledger ledger;
    private FakePodApi api;
    private Binder binder;
    private Verbs verbs;

    @BeforeEach void setUp() {
        ledger = new Ledger(clock, Duration.ofMinutes(5));
        ledger.upsertNode(Nodes.node("n1").gpus(2, 16384).inventory());
        ledger.upsertNode(Nodes.node("n2").gpus(1, 16384).inventory());
        verbs = Wiring.verbs(new PlacementEngine(ledger, new BinpackPolicy()));
        api = new FakePodApi();
        binder = Wiring.binder(verbs, api);
    }

    private static final PodKey P = PodKey.of("default", "p");

    @Test void bind_bindingCarriesAllocation_andConfirms() {
        api.put(Pods.pod("p").uid("u1").gpuMem(7).build());
        var out = binder.bind("default", "p", "u1", "n1");
        assertThat(out).isInstanceOf(BindOutcome.Bound.class);
        var pod = api.pod(P);
        assertThat(pod.getSpec().getNodeName()).isEqualTo("n1");
        assertThat(pod.getMetadata().getAnnotations()).containsKey(Names.ANN_ALLOCATION).containsEntry(Names.ACK_GPU_MEM_IDX, "0");
        assertThat(ledger.allocation(P)).get().extracting(a -> a.phase()).isEqualTo(Phase.BOUND);
        assertThat(ledger.node("n1").allocatedMib(0)).isEqualTo(7 * 1024 + 512);
    }

    @Test void bind_alreadyBoundToSameNode_isIdempotent() {
        api.put(Pods.pod("p").uid("u1").gpuMem(7).build());
        binder.bind("default", "p", "u1", "n1");
        var again = binder.bind("default", "p", "u1", "n1");
        assertThat(again).isInstanceOfSatisfying(BindOutcome.Bound.class, b -> assertThat(b.already()).isTrue());
        assertThat(ledger.node("n1").allocatedMib(0)).isEqualTo(7 * 1024 + 512);
        assertThat(api.bindCalls.get()).isEqualTo(1);
    }

    @Test void bind_alreadyBoundElsewhere_fails_ledgerUntouched() {
        api.put(Pods.pod("p").uid("u1").gpuMem(7).on("n2").build());
        var out = binder.bind("default", "p", "u1", "n1");
        assertThat(out).isInstanceOfSatisfying(BindOutcome.Failed.class, f -> assertThat(f.message()).contains("already bound to node n2"));
        assertThat(ledger.allocations()).isEmpty();
    }

    @Test void bind_unknownPod_failsClearly() {
        var out = binder.bind("default", "ghost", "", "n1");
        assertThat(out).isInstanceOfSatisfying(BindOutcome.Failed.class, f -> {
            assertThat(f.reason()).isEqualTo("pod_not_found");
            assertThat(f.message()).contains("default/ghost does not exist");
        });
    }

    @Test void bind_uidMismatch_fails() {
        api.put(Pods.pod("p").uid("new").gpuMem(7).build());
        var out = binder.bind("default", "p", "old", "n1");
        assertThat(out).isInstanceOfSatisfying(BindOutcome.Failed.class, f -> assertThat(f.reason()).isEqualTo("uid_mismatch"));
        assertThat(ledger.allocations()).isEmpty();
    }

    /** One write: the allocation travels in the Binding, so the pod is never annotated without its node, nor bound without its allocation. */
    @Test void bind_allocationInTheBinding_oneWrite() {
        api.put(Pods.pod("p").uid("u1").gpuMem(7).build());
        String before = api.pod(P).getMetadata().getResourceVersion();
        api.beforeBind = () -> assertThat(api.pod(P).getMetadata().getAnnotations()).as("annotated before the Binding").isNullOrEmpty();
        assertThat(binder.bind("default", "p", "u1", "n1")).isInstanceOf(BindOutcome.Bound.class);
        assertThat(Long.parseLong(api.pod(P).getMetadata().getResourceVersion()) - Long.parseLong(before)).as("writes").isEqualTo(1);
        assertThat(api.pod(P).getMetadata().getAnnotations()).containsKey(Names.ANN_ALLOCATION);
    }

    @Test void bind_bindingFails_rollsBackLedger_podUntouched() {
        api.put(Pods.pod("p").uid("u1").gpuMem(7).build());
        api.bindFailures.set(1);
        var out = binder.bind("default", "p", "u1", "n1");
        assertThat(out).isInstanceOfSatisfying(BindOutcome.Failed.class, f -> assertThat(f.message()).contains("500"));
        assertThat(ledger.allocations()).isEmpty();
        assertThat(KubePod.of(api.pod(P)).annotations()).doesNotContainKey(Names.ANN_ALLOCATION);
        assertThat(api.pod(P).getSpec().getNodeName()).isNull();
    }

    @Test void bind_noRoom_failsWithReason_ledgerIntact() {
        api.put(Pods.pod("big").uid("u").gpuMem(15).build());
        api.put(Pods.pod("p").uid("u1").gpuMem(7).build());
        assertThat(binder.bind("default", "big", "u", "n2")).isInstanceOf(BindOutcome.Bound.class);
        var out = binder.bind("default", "p", "u1", "n2");
        assertThat(out).isInstanceOfSatisfying(BindOutcome.Failed.class, f -> {
            assertThat(f.reason()).isEqualTo("no_room");
            assertThat(f.message()).contains("n2");
        });
        assertThat(ledger.node("n2").allocatedMib()).isEqualTo(15 * 1024 + 512);
        assertThat(ledger.allocation(P)).isEmpty();
    }

    /** Issue 12, item 9: /bind is for the pods kube-scheduler sends the extender, not a way to place any pod anywhere. */
    @Test void bind_podWithoutGpu_refused() {
        api.put(Pods.pod("plain").uid("u").build());
        var out = binder.bind("default", "plain", "u", "cpu-node");
        assertThat(out).isInstanceOfSatisfying(BindOutcome.Failed.class, f -> {
            assertThat(f.reason()).isEqualTo("not_ours");
            assertThat(f.message()).contains("asks no shared GPU", "managedResources");
        });
        assertThat(api.pod(PodKey.of("default", "plain")).getSpec().getNodeName()).isNull();
        assertThat(api.bindCalls.get()).isZero();
    }

    @Test void bind_podOfAnotherScheduler_refused() {
        var strict = Wiring.binder(verbs, api, new BindChecks(Set.of("mpshare-scheduler")), PendingPods.none());
        api.put(Pods.pod("p").uid("u1").gpuMem(7).build()); // no schedulerName: the default scheduler's
        var out = strict.bind("default", "p", "u1", "n1");
        assertThat(out).isInstanceOfSatisfying(BindOutcome.Failed.class, f -> {
            assertThat(f.reason()).isEqualTo("not_ours");
            assertThat(f.message()).contains("schedulerName default-scheduler", "only pods of mpshare-scheduler");
        });
        assertThat(api.pod(P).getSpec().getNodeName()).isNull();
        assertThat(ledger.allocations()).isEmpty();
    }

    @Test void bind_unknownNode_failsWithReason() {
        api.put(Pods.pod("p").uid("u1").gpuMem(7).build());
        var out = binder.bind("default", "p", "u1", "cpu-node");
        assertThat(out).isInstanceOfSatisfying(BindOutcome.Failed.class, f -> assertThat(f.message()).contains("not known to mpshare"));
    }

    @Test void bind_absurdQuantity_failsWithoutBooking() {
        api.put(Pods.pod("p").uid("u1").gpuMem("99999999999999999999").build());
        var out = binder.bind("default", "p", "u1", "n1");
        assertThat(out).isInstanceOfSatisfying(BindOutcome.Failed.class, f -> assertThat(f.reason()).isEqualTo("bad_pod"));
        assertThat(ledger.allocations()).isEmpty();
    }

    /** Issue 12, item 10: a Binding that timed out after it landed is success, not rolled back. */
    @Test void bind_bindingTimesOutAfterLanding_notRolledBack() {
        api.put(Pods.pod("p").uid("u1").gpuMem(7).build());
        api.bindLandsThenTimesOut.set(1);
        var out = binder.bind("default", "p", "u1", "n1");
        assertThat(out).isInstanceOfSatisfying(BindOutcome.Bound.class, b -> assertThat(b.already()).isTrue());
        assertThat(api.pod(P).getSpec().getNodeName()).isEqualTo("n1");
        assertThat(api.pod(P).getMetadata().getAnnotations()).containsKey(Names.ANN_ALLOCATION);
        assertThat(ledger.allocation(P)).get().extracting(a -> a.phase()).isEqualTo(Phase.BOUND);
    }

    /** A failed bind frees its room at once: the Binding was its one write, so nothing of it is left to echo back. */
    @Test void bind_bindingFails_roomFreeAtOnce() {
        api.put(Pods.pod("p").uid("u1").gpuMem(7).build());
        api.bindFailures.set(1);
        assertThat(binder.bind("default", "p", "u1", "n2")).isInstanceOf(BindOutcome.Failed.class);
        assertThat(ledger.node("n2").allocatedMib()).isZero();
        assertThat(api.pod(P).getMetadata().getAnnotations()).isNull();
    }

    /** The pod informer has the pending pod kube-scheduler named: the bind starts from its copy, with no read. */
    @Test void bind_informerHasThePendingPod_noRead() {
        var pending = new PendingPods();
        var b = Wiring.binder(verbs, api, BindChecks.any(), pending);
        api.put(Pods.pod("p").uid("u1").gpuMem(7).build());
        pending.upserted(KubePod.of(api.pod(P)));
        api.getFailures.set(1); // a read would fail
        assertThat(b.bind("default", "p", "u1", "n1")).isInstanceOf(BindOutcome.Bound.class);
        assertThat(api.pod(P).getMetadata().getAnnotations()).containsKey(Names.ANN_ALLOCATION);
    }

    /** The informer still shows the pod of that name that was deleted: the bind reads the API server's. */
    @Test void bind_informerHasAnotherUid_readsTheApiServer() {
        var pending = new PendingPods();
        var b = Wiring.binder(verbs, api, BindChecks.any(), pending);
        pending.upserted(KubePod.of(Pods.pod("p").uid("old").gpuMem(15).build()));
        api.put(Pods.pod("p").uid("new").gpuMem(7).build());
        assertThat(b.bind("default", "p", "new", "n1")).isInstanceOf(BindOutcome.Bound.class);
        assertThat(ledger.node("n1").allocatedMib()).isEqualTo(7 * 1024 + 512);
    }

    /** The informer has not seen the Binding of an earlier bind yet: the Binding's 409 and the read back make it success, booked once. */
    @Test void bind_informerBehindAnEarlierBind_alreadyBound() {
        var pending = new PendingPods();
        var b = Wiring.binder(verbs, api, BindChecks.any(), pending);
        api.put(Pods.pod("p").uid("u1").gpuMem(7).build());
        pending.upserted(KubePod.of(api.pod(P)));
        assertThat(b.bind("default", "p", "u1", "n1")).isInstanceOf(BindOutcome.Bound.class);
        assertThat(pending.matching(P, "u1")).as("informer not caught up").isNotNull();
        assertThat(b.bind("default", "p", "u1", "n1")).isInstanceOfSatisfying(BindOutcome.Bound.class, x -> assertThat(x.already()).isTrue());
        assertThat(ledger.node("n1").allocatedMib()).isEqualTo(7 * 1024 + 512);
        pending.upserted(KubePod.of(api.pod(P)));
        assertThat(pending.matching(P, "u1")).as("bound pods leave").isNull();
    }

    /** Reading the pod back fails too: the room is freed (if the Binding landed, the watch books it from its annotations). */
    @Test void bind_bindingAndReadBackFail_roomFreed() {
        api.put(Pods.pod("p").uid("u1").gpuMem(7).build());
        api.bindFailures.set(1);
        api.beforeBind = () -> api.getFailures.set(1); // the read after the Binding fails (the first read is before it)
        var out = binder.bind("default", "p", "u1", "n1");
        assertThat(out).isInstanceOfSatisfying(BindOutcome.Failed.class, f -> assertThat(f.message()).contains("the pod watch books it"));
        assertThat(ledger.allocations()).isEmpty();
    }

    /**
     * An ASSUMED booking of the pod that this bind does not own (another bind of it in flight, say) fills the node; the
     * pod's own filter must still keep that node, and its bind succeed on it, booked once.
     */
    @Test void bind_ownAssumedBookingItDoesNotHold_doesNotBlockThePod() {
        api.put(Pods.pod("p").uid("u1").gpuMem(15).build());
        var demand = ((Ask.Gpu) verbs.ask(KubePod.of(api.pod(P)).facts())).demand();
        ledger.restore(new Allocation(P, "u1", "n2", List.of(0), List.of("GPU-n2-0"), demand, clock.instant(), Phase.ASSUMED));

        var fits = verbs.filter(verbs.ask(KubePod.of(api.pod(P)).facts()), List.of("n2")).fits();
        assertThat(fits).containsExactly("n2");
        assertThat(binder.bind("default", "p", "u1", "n2")).isInstanceOf(BindOutcome.Bound.class);
        assertThat(ledger.node("n2").allocatedMib()).isEqualTo(15 * 1024 + 512);
    }
}
