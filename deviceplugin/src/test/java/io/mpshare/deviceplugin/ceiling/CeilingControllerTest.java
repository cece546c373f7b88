package io.mpshare.deviceplugin.ceiling;

import io.fabric8.kubernetes.api.model.Pod;
import io.mpshare.core.MemoryUnit;
import io.mpshare.core.model.Gpu;
import io.mpshare.core.model.NodeInventory;
import io.mpshare.deviceplugin.testkit.TestPods;
import io.mpshare.kube.node.NodeBookings;
import io.mpshare.mps.Colour;
import io.mpshare.mps.MpsException;
import io.mpshare.mps.MpsException.Reason;
import io.mpshare.mps.SupervisorStatus;
import io.mpshare.testing.ManualScheduler;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Ceilings in cluster mode, end to end but in memory: pod informer events in, the real supervisors of both colours over
 * modelled daemons (whole GiB, as the H200's), the control commands they send recorded. The socket is in CeilingSocketIT.
 */
class CeilingControllerTest {
    static final NodeInventory INV = new NodeInventory("node-1", List.of(
            new Gpu(0, "GPU-0", "NVIDIA H200", 143771, true), new Gpu(1, "GPU-1", "NVIDIA H200", 143771, true),
            new Gpu(2, "GPU-2", "NVIDIA H200", 143771, true)));
    @TempDir Path runDir;
    ManualScheduler clock = new ManualScheduler();
    SupervisorDaemon blue;
    SupervisorDaemon green;
    final NodeBookings bookings = new NodeBookings("node-1", INV, MemoryUnit.GIB, NodeBookings.Refusals.NONE);
    CeilingController controller;

    @BeforeEach void setUp() {
        blue = new SupervisorDaemon(Colour.BLUE, runDir, clock).start();
        green = new SupervisorDaemon(Colour.GREEN, runDir, clock).start();
        Map<String, CeilingTarget> targets = new LinkedHashMap<>();
        targets.put("blue", blue.target());
        targets.put("green", green.target());
        controller = new CeilingController(INV, bookings::booked, targets);
        bookings.addListener(controller);
    }

    /** Reserve 512 MiB: a 7 GiB pod's cap is 7680 MiB, which the ceiling rounds up to 8 GiB. */
    static Pod pod(String name, long gib, int... gpus) {
        return TestPods.pod(name).uid("uid-" + name).mem("main", gib).reserve(512).on("node-1").placed(INV, gpus).build();
    }

    static Pod finished(Pod p) {
        p.getStatus().setPhase("Succeeded");
        return p;
    }

    @Test void reconcile_afterEachAllocationAndRelease_liveOnRunningServerAndDefault_bothColours() {
        long server = blue.mps.connectClient(4242); // a client already running: its server must get the new ceiling live
        controller.reconcile();
        assertThat(blue.mps.defaultLimits()).isEqualTo(Map.of(0, 1024L, 1, 1024L, 2, 1024L)); // nothing booked: the floor
        assertThat(green.mps.defaultLimits()).isEqualTo(Map.of(0, 1024L, 1, 1024L, 2, 1024L));

        Pod a = pod("a", 7, 0);
        bookings.upserted(a);
        var round = controller.reconcile();
        assertThat(round.changed()).containsEntry("blue", List.of("0=8192")).containsEntry("green", List.of("0=8192"));
        assertThat(blue.mps.defaultLimits()).containsEntry(0, 8192L);
        assertThat(blue.mps.serverLimits().get(server)).containsEntry(0, 8192L);
        assertThat(blue.mps.commands()).contains("set_default_device_pinned_mem_limit 0 8192M", "set_device_pinned_mem_limit " + server + " 0 8192M");
        assertThat(green.mps.defaultLimits()).containsEntry(0, 8192L);

        bookings.upserted(pod("b", 3, 1));
        controller.reconcile();
        assertThat(blue.mps.defaultLimits()).isEqualTo(Map.of(0, 8192L, 1, 4096L, 2, 1024L)); // 3 GiB + 512 rounded up

        bookings.deleted(a);
        controller.reconcile();
        assertThat(blue.mps.defaultLimits()).containsEntry(0, 1024L); // released: back to the floor
        assertThat(blue.mps.serverLimits().get(server)).containsEntry(0, 1024L);

        bookings.upserted(finished(pod("b", 3, 1)));
        controller.reconcile();
        assertThat(green.mps.defaultLimits()).isEqualTo(Map.of(0, 1024L, 1, 1024L, 2, 1024L));
        assertThat(blue.launcher.starts()).hasSize(1); // never restarted to change a ceiling
        assertThat(blue.supervisor.status().ready()).isTrue();
        assertThat(blue.supervisor.status().ceilingsPending()).isEmpty(); // whole GiB: every value read back as set
    }

    @Test void reconcile_unchangedPlan_sendsNothing() {
        bookings.upserted(pod("a", 7, 0));
        controller.reconcile();
        blue.mps.clearCommands();
        var again = controller.reconcile();
        assertThat(again.changed()).isEmpty();
        assertThat(blue.mps.commands()).noneMatch(c -> c.startsWith("set_"));
    }

    @Test void daemonRestart_supervisorReappliesTheLastCeilings_noRoundNeeded() {
        bookings.upserted(pod("a", 7, 0));
        controller.reconcile();
        blue.launcher.exitCurrent(137);
        clock.runDue();
        blue.mps.clearCommands();
        clock.advance(Duration.ofSeconds(1).plusMillis(200)); // backoff, start (a fresh daemon: no settings), first probe
        assertThat(blue.launcher.starts()).hasSize(2);
        assertThat(blue.mps.commands()).contains("set_default_device_pinned_mem_limit 0 8192M", "set_default_device_pinned_mem_limit 1 1024M");
        assertThat(blue.mps.defaultLimits()).isEqualTo(Map.of(0, 8192L, 1, 1024L, 2, 1024L));
        assertThat(blue.supervisor.status().ready()).isTrue();
        assertThat(controller.reconcile().changed()).isEmpty();
    }

    @Test void supervisorRestartedWithoutCeilings_nextRoundPutsThemBack() {
        bookings.upserted(pod("a", 7, 0));
        controller.reconcile();
        blue.supervisor.stop(true);
        clock.runDue();
        blue.supervisor = blue.newSupervisor(); // a new mps-control process that did not keep them
        blue.start();
        assertThat(blue.mps.defaultLimits()).isEmpty();
        var round = controller.reconcile();
        assertThat(round.changed().get("blue")).containsExactly("0=8192", "1=1024", "2=1024");
        assertThat(round.changed()).doesNotContainKey("green");
        assertThat(blue.mps.defaultLimits()).containsEntry(0, 8192L);
    }

    @Test void colourNotAnswering_skipped_thenCaughtUpWhenItAppears() {
        boolean[] greenUp = {false};
        CeilingTarget flaky = new CeilingTarget() {
            @Override public SupervisorStatus status() {
                if (!greenUp[0]) throw new MpsException(Reason.DAEMON_DOWN, "no MPS supervisor socket at /run/mpshare/green/supervisor.sock");
                return green.target().status();
            }

            @Override public void setCeiling(int device, long mib) { green.target().setCeiling(device, mib); }
        };
        controller = new CeilingController(INV, bookings::booked, Map.of("blue", blue.target(), "green", flaky));
        bookings.upserted(pod("a", 7, 0));
        var round = controller.reconcile();
        assertThat(round.skipped()).containsOnlyKeys("green");
        assertThat(blue.mps.defaultLimits()).containsEntry(0, 8192L);
        assertThat(green.mps.defaultLimits()).isEmpty();

        greenUp[0] = true; // blue/green: the new colour's supervisor starts
        controller.reconcile();
        assertThat(green.mps.defaultLimits()).isEqualTo(Map.of(0, 8192L, 1, 1024L, 2, 1024L));
    }

    @Test void daemonDown_ceilingStoredPending_appliedOnStart_notResent() {
        blue.launcher.exitCurrent(137);
        clock.runDue(); // in backoff: the daemon does not answer
        bookings.upserted(pod("a", 7, 0));
        controller.reconcile();
        assertThat(blue.supervisor.status().ceilingsMib()).containsEntry(0, 8192L);
        clock.advance(Duration.ofSeconds(1).plusMillis(200));
        assertThat(blue.mps.defaultLimits()).containsEntry(0, 8192L);
        assertThat(controller.reconcile().changed()).isEmpty();
    }

    @Test void refusedByTheDaemon_previousKept_triedAgainNextRound() {
        bookings.upserted(pod("a", 7, 0));
        blue.mps.failNext("set_default_device_pinned_mem_limit 0", Reason.UNKNOWN_COMMAND);
        var first = controller.reconcile();
        assertThat(first.changed().get("blue")).doesNotContain("0=8192");
        assertThat(blue.supervisor.status().ready()).isTrue(); // a refused ceiling never makes the node unready
        controller.reconcile();
        assertThat(blue.mps.defaultLimits()).containsEntry(0, 8192L);
    }

    @Test void terminatingPod_stillCounts_untilGone() {
        Pod a = pod("a", 7, 0);
        a.getMetadata().setDeletionTimestamp("2026-11-30T00:01:00Z");
        bookings.upserted(a);
        assertThat(controller.desired()).containsEntry(0, 8192L);
        bookings.deleted(a);
        assertThat(controller.desired()).containsEntry(0, 1024L);
    }

    @Test void podWithoutAllocation_orNotBooked_countsNothing() {
        bookings.upserted(TestPods.pod("plain").uid("uid-plain").plain("main").on("node-1").build());
        assertThat(bookings.booked()).isEmpty();
        assertThat(controller.desired()).isEqualTo(Map.of(0, 1024L, 1, 1024L, 2, 1024L));
    }

    /** F2 of the hostile-tenant review: a rewritten charge raised the GPU's ceiling from 2 GiB to 137 GiB. */
    @Test void forgedCharge_notCounted_ceilingUnchanged() {
        Pod honest = TestPods.pod("train").uid("uid-train").mem("main", 1).on("node-1").placed(INV, 0).build();   // 1 GiB + 1024 reserve
        bookings.upserted(honest);
        assertThat(controller.reconcile().desired()).containsEntry(0, 2048L);
        bookings.upserted(TestPods.forged(honest, 140_000, 138_976));
        var round = controller.reconcile();
        assertThat(round.desired()).as("the ceiling follows the pod's resources, not the annotation").containsEntry(0, 2048L);
        assertThat(round.changed()).isEmpty();
        assertThat(blue.mps.defaultLimits()).containsEntry(0, 2048L);
        assertThat(green.mps.defaultLimits()).containsEntry(0, 2048L);
    }
}
