package io.mpshare.mps;

import io.mpshare.mps.MpsException.Reason;
import io.mpshare.mps.fake.FakeDaemonLauncher;
import io.mpshare.mps.fake.FakeDomains;
import io.mpshare.mps.fake.FakeMpsControl;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.InstantSource;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The {@code /domains} API over the supervisor's real unix socket, read and driven by {@link SupervisorStatusClient}, with
 * the domains' states moved by hand ({@link FakeDomains}): the contract the device plugin codes against.
 */
class DomainApiIT {
    static final String GPU = "GPU-5f2c0e8a-1b2c-4d3e-8f90-123456789abc";
    static final String ID = "t-3f2a9c0d1e7b";
    @TempDir Path run;
    final ScheduledExecutorService thread = Executors.newSingleThreadScheduledExecutor();
    FakeDomains domains;
    SupervisorSocketServer server;
    SupervisorStatusClient client;

    @BeforeEach void setUp() throws IOException {
        FakeMpsControl mps = new FakeMpsControl();
        MpsSupervisor supervisor = new MpsSupervisor(SupervisorConfig.defaults(Colour.BLUE, run), new FakeDaemonLauncher(mps), mps, thread,
                InstantSource.system(), new SupervisorMetrics(Colour.BLUE));
        domains = new FakeDomains(Colour.BLUE, run, InstantSource.system());
        server = new SupervisorSocketServer(supervisor, domains, new SupervisorMetrics(Colour.BLUE), Colour.BLUE.supervisorSocket(run)).start();
        client = SupervisorStatusClient.forColourSocket(Colour.BLUE, run, Duration.ofSeconds(30));
    }

    @AfterEach void tearDown() {
        server.close();
        thread.shutdownNow();
    }

    static DomainSpec spec(long ceiling, int share) { return new DomainSpec(GPU, DomainKind.TENANT, 1000, ceiling, share); }

    @Test void put_newDomain_servingAnswers200_withItsPipeDirectoryAndAppliedCeiling() {
        domains.serveAtOnce(true);
        DomainStatus d = client.putDomain(ID, spec(5000, 30));
        assertThat(d.state()).isEqualTo(DomainState.SERVING);
        assertThat(d.pipeDir()).isEqualTo(run.resolve("blue/d/" + ID + "/pipe").toString());
        assertThat(d.ceilingMiB()).isEqualTo(5120); // whole GiB, rounded up
        assertThat(d.activeThreadPercentage()).isEqualTo(30);
        assertThat(d.kind()).isEqualTo(DomainKind.TENANT);
        assertThat(domains.requests()).containsExactly("PUT " + ID + " " + GPU + " tenant 5000 30");
    }

    @Test void put_daemonNotYetServing_answersStarting_thenGetShowsServing() {
        DomainStatus d = client.putDomain(ID, spec(4096, 50)); // waits up to 2 s on the server side, then 202
        assertThat(d.state()).isEqualTo(DomainState.STARTING);
        domains.startServing(ID);
        assertThat(client.domain(ID)).hasValueSatisfying(s -> assertThat(s.state()).isEqualTo(DomainState.SERVING));
    }

    @Test void put_sameIdOtherGpu_conflict409_notApplied() {
        domains.serveAtOnce(true);
        client.putDomain(ID, spec(4096, 50));
        assertThatThrownBy(() -> client.putDomain(ID, new DomainSpec("GPU-other", DomainKind.TENANT, 1000, 4096, 50)))
                .isInstanceOf(MpsException.class).hasMessageContaining("409").hasMessageContaining("exists for " + GPU)
                .satisfies(e -> assertThat(((MpsException) e).reason()).isEqualTo(Reason.NOT_APPLIED));
    }

    @Test void put_badBodyOrId_400or404_withWhatToChange() throws IOException {
        assertThat(raw("PUT", "/domains/" + ID, "{\"gpu\":\"" + GPU + "\",\"kind\":\"tenant\",\"ceilingMiB\":4096,\"activeThreadPercentage\":0}"))
                .startsWith("HTTP/1.1 400").contains("activeThreadPercentage must be 1..100, not 0");
        assertThat(raw("PUT", "/domains/" + ID, "{\"gpu\":\"" + GPU + "\",\"kind\":\"everyone\",\"ceilingMiB\":4096,\"activeThreadPercentage\":30}"))
                .startsWith("HTTP/1.1 400").contains("kind must be tenant, pod or node, not 'everyone'");
        assertThat(raw("PUT", "/domains/" + ID, "not json")).startsWith("HTTP/1.1 400").contains("must be JSON");
        assertThat(raw("PUT", "/domains/Bad..Id", "{}")).startsWith("HTTP/1.1 404").contains("must be 1-32 characters");
        assertThat(raw("PUT", "/domains/" + "a".repeat(32), "{}")).startsWith("HTTP/1.1 400"); // a valid id, an empty body
        assertThat(domains.requests()).isEmpty(); // nothing reached the domains
    }

    @Test void delete_drains_thenGone_secondDeleteEmpty() {
        domains.serveAtOnce(true);
        client.putDomain(ID, spec(4096, 50));
        assertThat(client.deleteDomain(ID)).hasValueSatisfying(d -> assertThat(d.state()).isEqualTo(DomainState.DRAINING));
        domains.lastClientLeft(ID);
        assertThat(client.domain(ID)).isEmpty();
        assertThat(client.deleteDomain(ID)).isEmpty();
    }

    @Test void status_listsDomains_andTheirServersInTheFlatList() {
        domains.serveAtOnce(true);
        client.putDomain(ID, spec(4096, 50));
        domains.clients(ID, 8123, List.of(9001L, 9002L));
        domains.fault(ID, List.of(9001L, 9002L));
        SupervisorStatus s = client.status();
        assertThat(s.domains()).singleElement().satisfies(d -> {
            assertThat(d.state()).isEqualTo(DomainState.FAULTED);
            assertThat(d.faults()).isEqualTo(1);
            assertThat(d.lastFault().clients()).containsExactly(9001L, 9002L);
            assertThat(d.lastFault().source()).isEqualTo("log");
        });
        assertThat(s.servers()).extracting(SupervisorStatus.Server::pid).contains(8123L); // the policer's list of MPS servers
        assertThat(client.domains()).extracting(DomainStatus::id).containsExactly(ID);
        assertThat(client.heartbeat().domains()).hasSize(1);
    }

    @Test void stalled_namesTheHolders() {
        domains.serveAtOnce(true);
        client.putDomain(ID, spec(4096, 50));
        domains.stall(ID, List.of(new DomainStatus.Holder(4711, 65534, 130, "python3 hold.py")));
        assertThat(client.domain(ID)).hasValueSatisfying(d -> {
            assertThat(d.state()).isEqualTo(DomainState.STALLED);
            assertThat(d.stalledBy()).containsExactly(new DomainStatus.Holder(4711, 65534, 130, "python3 hold.py"));
        });
    }

    private String raw(String method, String path, String body) throws IOException {
        try (SocketChannel c = SocketChannel.open(StandardProtocolFamily.UNIX)) {
            c.connect(UnixDomainSocketAddress.of(server.socket()));
            byte[] b = body.getBytes(StandardCharsets.UTF_8);
            UnixHttp.Response r = UnixHttp.exchange(c, method, path, b);
            return "HTTP/1.1 " + r.code() + " " + new String(r.body(), StandardCharsets.UTF_8);
        }
    }
}
