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
import io.mpshare.deviceplugin.testkit.TestPods;
import io.mpshare.kube.node.NodeBookings;
import io.mpshare.mps.Colour;
import io.mpshare.mps.MpsSupervisor;
import io.mpshare.mps.SupervisorConfig;
import io.mpshare.mps.SupervisorMetrics;
import io.mpshare.mps.SupervisorSocketServer;
import io.mpshare.mps.fake.FakeDaemonLauncher;
import io.mpshare.mps.fake.FakeDomains;
import io.mpshare.mps.fake.FakeMpsControl;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.InstantSource;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The domain controller against the supervisor's real {@code /domains} routes over its unix socket
 * ({@link SupervisorDomains} → {@code SupervisorStatusClient}), the states moved by hand ({@link FakeDomains}): what the
 * agent sends, and how it reads what comes back.
 */
class SupervisorDomainsIT {
    static final NodeInventory INV = new NodeInventory("n1", List.of(new Gpu(0, "GPU-5f2c0e8a-1b2c-4d3e-8f90-123456789abc", "NVIDIA H200", 143_771, true)));
    static final String GPU = INV.gpu(0).uuid();

    @TempDir Path run;
    final ScheduledExecutorService thread = Executors.newSingleThreadScheduledExecutor();
    final List<Event> events = new CopyOnWriteArrayList<>();
    final DomainMetrics metrics = new DomainMetrics(new PrometheusRegistry(), "n1", true);
    FakeDomains fake;
    SupervisorSocketServer server;
    DomainController controller;
    final NodeBookings bookings = new NodeBookings("n1", INV, MemoryUnit.GIB, NodeBookings.Refusals.NONE);

    @BeforeEach void setUp() throws Exception {
        FakeMpsControl mps = new FakeMpsControl();
        var supervisor = new MpsSupervisor(SupervisorConfig.defaults(Colour.BLUE, run), new FakeDaemonLauncher(mps), mps, thread,
                InstantSource.system(), new SupervisorMetrics(Colour.BLUE));
        fake = new FakeDomains(Colour.BLUE, run, InstantSource.system()).serveAtOnce(true);
        server = new SupervisorSocketServer(supervisor, fake, new SupervisorMetrics(Colour.BLUE), Colour.BLUE.supervisorSocket(run)).start();
        var watch = new FaultWatch(new FaultSuspects(FaultSuspects.Policy.DEFAULT), InstantSource.system(),
                new DomainNotices(new KubeEvents("n1", events::add, Runnable::run), metrics, FaultSuspects.Policy.DEFAULT, InstantSource.system()));
        controller = new DomainController(new DomainController.Parts("n1", INV, run,
                Map.of("blue", SupervisorDomains.overSocket("blue", run, SupervisorDomains.TIMEOUT)),
                ns -> FaultDomains.kindOf(ns, null, Kind.TENANT), uid -> Set.of("blue"), watch, Runnable::run, v -> {}));
        bookings.addListener(controller);
        controller.round();
    }

    @AfterEach void tearDown() {
        server.close();
        thread.shutdownNow();
    }

    Pod book(String ns, String name, long gib) {
        Pod p = TestPods.pod(name).namespace(ns).runAsUser(1000).mem("main", gib).on("n1").placed(INV, 0).build();
        bookings.upserted(p);
        return p;
    }

    @Test void putOverTheSocket_servingDomainAnswered_faultReadBackAndTold_deletedWhenItsLastPodLeaves() {
        Pod a = book("team-a", "a", 10);
        Pod b = book("team-b", "b", 20);
        controller.round();
        String idA = controller.podDomain(a.getMetadata().getUid()).choice().id(GPU);
        String idB = controller.podDomain(b.getMetadata().getUid()).choice().id(GPU);
        assertThat(fake.requests()).anySatisfy(r -> assertThat(r).startsWith("PUT " + idA + " " + GPU + " tenant "))
                .anySatisfy(r -> assertThat(r).startsWith("PUT " + idB + " " + GPU + " tenant "));
        controller.round();
        assertThat(controller.daemonFor(a.getMetadata().getUid(), "blue", List.of(GPU)))
                .isEqualTo(new Served.Ready(run.resolve("blue/d/" + idA + "/pipe").toString(), idA));

        fake.fault(idA, List.of(4242L, 4243L));
        controller.round();
        assertThat(controller.daemonFor(a.getMetadata().getUid(), "blue", List.of(GPU))).isInstanceOf(Served.NotReady.class);
        assertThat(controller.daemonFor(b.getMetadata().getUid(), "blue", List.of(GPU))).isInstanceOf(Served.Ready.class);
        assertThat(events).singleElement().satisfies(e -> {
            assertThat(e.getInvolvedObject().getName()).isEqualTo("a");
            assertThat(e.getMessage()).contains("GPU fault in MPS domain " + idA).contains("seen by log").contains("pids 4242, 4243")
                    .containsPattern(" at 20\\d\\d-");
        });
        assertThat(metrics.podFaults("team-a", "a")).isEqualTo(1);

        fake.recover(idA);
        bookings.deleted(a);
        controller.round();
        assertThat(fake.requests()).contains("DELETE " + idA).noneMatch(r -> r.equals("DELETE " + idB));
    }
}
