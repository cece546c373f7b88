package io.mpshare.scheduler.bind;

import io.mpshare.core.MemoryUnit;
import io.mpshare.core.Names;
import io.mpshare.core.ledger.Ledger;
import io.mpshare.core.ledger.Phase;
import io.mpshare.core.model.DemandResolver;
import io.mpshare.core.model.PodKey;
import io.mpshare.core.policy.BinpackPolicy;
import io.mpshare.core.policy.PlacementEngine;
import io.mpshare.scheduler.TestClock;
import io.mpshare.scheduler.Verbs;
import io.mpshare.testing.Nodes;
import io.mpshare.testing.Pods;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

class BinderTest {
    private final TestClock clock = new TestClock();
    private Ledger ledger;
    private FakePodApi api;
    private Binder binder;

    @BeforeEach void setUp() {
        ledger = new Ledger(clock, Duration.ofMinutes(5));
        ledger.upsertNode(Nodes.node("n1").gpus(2, 16384).inventory());
        ledger.upsertNode(Nodes.node("n2").gpus(1, 16384).inventory());
        var verbs = new Verbs(new PlacementEngine(ledger, new BinpackPolicy()), new DemandResolver(512), MemoryUnit.GIB);
        api = new FakePodApi();
        binder = new Binder(ledger, verbs, api, 3);
    }

    private static final PodKey P = PodKey.of("default", "p");

    @Test void bind_writesAnnotationThenBinding_andConfirms() {
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

    @Test void bind_conflictOnPatch_retriesAndSucceeds() {
        api.put(Pods.pod("p").uid("u1").gpuMem(7).build());
        api.patchConflicts.set(2);
        var out = binder.bind("default", "p", "u1", "n1");
        assertThat(out).isInstanceOf(BindOutcome.Bound.class);
        assertThat(ledger.node("n1").allocatedMib()).isEqualTo(7 * 1024 + 512);
    }

    @Test void bind_conflictsBeyondAttempts_rollsBack() {
        api.put(Pods.pod("p").uid("u1").gpuMem(7).build());
        api.patchConflicts.set(10);
        var out = binder.bind("default", "p", "u1", "n1");
        assertThat(out).isInstanceOfSatisfying(BindOutcome.Failed.class, f -> assertThat(f.reason()).isEqualTo("conflict"));
        assertThat(ledger.allocations()).isEmpty();
        assertThat(ledger.node("n1").allocatedMib()).isZero();
    }

    @Test void bind_bindingFails_rollsBackLedgerAndAnnotations() {
        api.put(Pods.pod("p").uid("u1").gpuMem(7).build());
        api.bindFailures.set(1);
        var out = binder.bind("default", "p", "u1", "n1");
        assertThat(out).isInstanceOfSatisfying(BindOutcome.Failed.class, f -> assertThat(f.message()).contains("500"));
        assertThat(ledger.allocations()).isEmpty();
        assertThat(api.pod(P).getMetadata().getAnnotations()).doesNotContainKey(Names.ANN_ALLOCATION);
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

    @Test void bind_podWithoutGpu_passesThrough() {
        api.put(Pods.pod("plain").uid("u").build());
        var out = binder.bind("default", "plain", "u", "cpu-node");
        assertThat(out).isInstanceOfSatisfying(BindOutcome.Bound.class, b -> assertThat(b.allocation()).isNull());
        assertThat(api.pod(PodKey.of("default", "plain")).getSpec().getNodeName()).isEqualTo("cpu-node");
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
}
