package io.mpshare.deviceplugin.ceiling;

import io.mpshare.core.MemoryUnit;
import io.mpshare.deviceplugin.testkit.TestPods;
import io.mpshare.kube.node.NodeBookings;
import io.mpshare.mps.Colour;
import io.mpshare.mps.MpsSupervisor;
import io.mpshare.mps.SupervisorConfig;
import io.mpshare.mps.SupervisorMetrics;
import io.mpshare.mps.SupervisorSocketServer;
import io.mpshare.mps.fake.FakeDaemonLauncher;
import io.mpshare.mps.fake.FakeMpsControl;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import static io.mpshare.deviceplugin.ceiling.CeilingControllerTest.INV;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The ceiling controller over the supervisors' real unix sockets ({@code <run>/blue|green/supervisor.sock}), the way
 * the device plugin finds them ({@link CeilingController#socketTargets}); each supervisor on its own thread over a
 * modelled daemon that keeps whole GiB.
 */
class CeilingSocketIT {
    @TempDir Path run;
    final List<AutoCloseable> closing = new ArrayList<>();
    final Map<Colour, FakeMpsControl> daemons = Map.of(Colour.BLUE, new FakeMpsControl().keepingWholeGib(),
            Colour.GREEN, new FakeMpsControl().keepingWholeGib());

    @BeforeEach void setUp() throws Exception {
        for (Colour c : Colour.values()) {
            FakeMpsControl mps = daemons.get(c);
            mps.crash();
            ScheduledExecutorService thread = Executors.newSingleThreadScheduledExecutor();
            MpsSupervisor s = new MpsSupervisor(SupervisorConfig.defaults(c, run), new FakeDaemonLauncher(mps), mps, thread,
                    InstantSource.system(), new SupervisorMetrics(c));
            SupervisorSocketServer socket = new SupervisorSocketServer(s, new SupervisorMetrics(c), c.supervisorSocket(run)).start();
            s.start();
            closing.add(socket);
            closing.add(thread::shutdownNow);
            long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (!s.status().ready() && System.nanoTime() < end) java.util.concurrent.locks.LockSupport.parkNanos(5_000_000);
        }
    }

    @AfterEach void tearDown() throws Exception {
        for (AutoCloseable c : closing) c.close();
    }

    @Test void reconcile_overTheSockets_bothColours_allocationAndRelease() {
        var bookings = new NodeBookings("node-1", INV, MemoryUnit.GIB, NodeBookings.Refusals.NONE);
        CeilingController controller = new CeilingController(INV, bookings::booked, CeilingController.socketTargets(run, Duration.ofSeconds(30)));
        var pod = TestPods.pod("a").uid("uid-a").mem("main", 7).on("node-1").placed(INV, 1).build();
        bookings.upserted(pod);
        var round = controller.reconcile();
        assertThat(round.skipped()).isEmpty();
        for (FakeMpsControl mps : daemons.values()) {
            assertThat(mps.defaultLimits()).isEqualTo(Map.of(0, 1024L, 1, 8192L, 2, 1024L));
            assertThat(mps.commands()).contains("set_default_device_pinned_mem_limit 1 8192M");
        }
        bookings.deleted(pod);
        controller.reconcile();
        for (FakeMpsControl mps : daemons.values()) assertThat(mps.defaultLimits()).containsEntry(1, 1024L);
    }
}
