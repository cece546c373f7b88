package io.mpshare.mps;

import io.mpshare.mps.DomainService.Answer;
import io.mpshare.mps.fake.FakeMpsControl;
import io.mpshare.mps.fake.FakeMpsControl.Connection;
import io.mpshare.mps.fake.FakeMpsNode;
import io.mpshare.testing.ManualScheduler;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The supervisor's fault domains on a modelled node ({@link FakeMpsNode}: MPS's measured fault, UID and stall behaviour),
 * a manual clock and the domains' real log files: one daemon per domain per GPU, settings on every server, faults,
 * stalls, drain, and re-adoption after the supervisor's own restart. No process, no sleep.
 */
class MpsSupervisorDomainsTest {
    static final String A = "t-aaaaaaaaaaaa", B = "t-bbbbbbbbbbbb";
    @TempDir Path runDir;
    final ManualScheduler clock = new ManualScheduler();
    final FakeMpsNode node = new FakeMpsNode(2);
    final SupervisorMetrics metrics = new SupervisorMetrics(Colour.BLUE);
    SupervisorConfig config;
    MpsSupervisor supervisor;

    @BeforeEach void setUp() {
        config = SupervisorConfig.defaults(Colour.BLUE, runDir).withHealthInterval(Duration.ofSeconds(1));
        supervisor = newSupervisor();
        supervisor.start();
        clock.advance(Duration.ofMillis(200));
    }

    private MpsSupervisor newSupervisor() {
        return new MpsSupervisor(config, node.parts(config.pipeDir(), clock), clock, clock, metrics);
    }

    private DomainSpec spec(int gpu, int uid, long ceilingMiB, int share) {
        return new DomainSpec(node.gpu(gpu), DomainKind.TENANT, uid, ceilingMiB, share);
    }

    private DomainStatus put(String id, DomainSpec spec) {
        CompletableFuture<Answer> f = supervisor.put(id, spec);
        clock.advance(Duration.ofMillis(200)); // the first probe: up, settings applied
        assertThat(f.join()).isInstanceOf(Answer.Accepted.class);
        return domain(id);
    }

    private DomainStatus domain(String id) { return supervisor.domain(id).orElseThrow(); }

    private Path pipe(String id) { return DomainPaths.of(Colour.BLUE, runDir, id).pipeDir(); }

    private FakeMpsControl daemon(String id) { return node.daemon(pipe(id)); }

    private void health() { clock.advance(config.healthInterval()); }

    @Test void put_startsOneDaemonPerDomain_onItsGpu_withItsOwnPipeAndLogDirs() {
        DomainStatus a = put(A, spec(0, 1000, 4096, 50));
        DomainStatus b = put(B, spec(1, 1001, 8192, 50));

        assertThat(a.state()).isEqualTo(DomainState.SERVING);
        assertThat(b.state()).isEqualTo(DomainState.SERVING);
        assertThat(node.starts()).filteredOn(s -> s.pipeDir().startsWith(runDir.resolve("blue/d"))).satisfiesExactly(
                s -> {
                    assertThat(s.pipeDir()).isEqualTo(runDir.resolve("blue/d/" + A + "/pipe"));
                    assertThat(s.logDir()).isEqualTo(runDir.resolve("blue/d/" + A + "/log"));
                    assertThat(s.extraEnv()).containsEntry("CUDA_VISIBLE_DEVICES", node.gpu(0));
                    assertThat(s.output()).contains(runDir.resolve("blue/d/" + A + "/log/daemon.log"));
                },
                s -> assertThat(s.extraEnv()).containsEntry("CUDA_VISIBLE_DEVICES", node.gpu(1)));
        assertThat(a.pipeDir()).isEqualTo(pipe(A).toString());
        assertThat(a.daemonPid()).isNotEqualTo(b.daemonPid());
        assertThat(supervisor.status().ready()).isTrue(); // the colour's node daemon serves on beside them
    }

    @Test void put_ceilingAndShare_appliedToDefaultAndEveryRunningServer_readBack() {
        put(A, spec(0, 1000, 5000, 50));
        assertThat(daemon(A).defaultLimits()).containsEntry(0, 5120L); // whole GiB, rounded up
        assertThat(daemon(A).defaultActiveThreadPercentage()).isEqualTo(50);
        long client = node.client(pipe(A), 1000, 100);
        long server = daemon(A).serverPids().getFirst();

        supervisor.put(A, spec(0, 1000, 8192, 25));
        clock.runDue();

        assertThat(daemon(A).serverLimits()).containsEntry(server, Map.of(0, 8192L));
        assertThat(daemon(A).serverActiveThreadPercentage(server)).isEqualTo(25.0);
        assertThat(daemon(A).commands()).contains("set_active_thread_percentage " + server + " 25", "get_active_thread_percentage " + server);
        assertThat(domain(A).ceilingMiB()).isEqualTo(8192);
        assertThat(domain(A).activeThreadPercentage()).isEqualTo(25);
        assertThat(node.processes().alive(client)).isTrue(); // no restart to change a setting
        assertThat(node.starts()).hasSize(2); // the node daemon and A's
    }

    /** F8, measured: a server's percentage is a ceiling the client's env cannot pass; the default alone does not reach a running server. */
    @Test void put_shareEnforced_clientRaisingItsOwnPercentageStillSeesItsBookedSms() {
        put(A, spec(0, 1000, 4096, 100));
        long early = node.client(pipe(A), 1000, 100); // the server starts at 100 %
        supervisor.put(A, spec(0, 1000, 4096, 50));
        clock.runDue();
        long greedy = node.client(pipe(A), 1000, 100); // CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=100 in its own env

        assertThat(daemon(A).smsSeen(greedy)).isEqualTo(66);
        assertThat(daemon(A).smsSeen(early)).isEqualTo(66);
        long modest = node.client(pipe(A), 1000, 30);
        assertThat(daemon(A).smsSeen(modest)).isEqualTo(38); // an env can still lower it
    }

    @Test void put_sameIdOtherGpu_refusedAsConflict_badIdRefused() {
        put(A, spec(0, 1000, 4096, 50));
        CompletableFuture<Answer> f = supervisor.put(A, spec(1, 1000, 4096, 50));
        CompletableFuture<Answer> g = supervisor.put("../x", spec(1, 1000, 4096, 50));
        clock.runDue();
        assertThat(f.join()).isEqualTo(new Answer.Refused(true, "domain " + A + " exists for GPU " + node.gpu(0) + " (tenant): ids derive from both"));
        assertThat(g.join()).isInstanceOfSatisfying(Answer.Refused.class, r -> assertThat(r.reason()).contains("must be 1-32 characters"));
    }

    @Test void status_flatServersListEveryDaemonsServers() {
        put(A, spec(0, 1000, 4096, 50));
        put(B, spec(0, 1001, 4096, 50));
        node.client(pipe(A), 1000, 100);
        node.client(pipe(B), 1001, 100);
        health();
        List<Long> servers = supervisor.status().servers().stream().map(SupervisorStatus.Server::pid).toList();
        assertThat(servers).containsExactlyInAnyOrder(daemon(A).serverPids().getFirst(), daemon(B).serverPids().getFirst());
        assertThat(domain(A).clients()).hasSize(1);
    }

    @Test void delete_drainsThenQuitsWhenNoClientLeft_andRemovesItsFolder() {
        put(A, spec(0, 1000, 4096, 50));
        long client = node.client(pipe(A), 1000, 100);
        health();

        CompletableFuture<Optional<DomainStatus>> f = supervisor.delete(A);
        clock.runDue();
        assertThat(f.join()).hasValueSatisfying(d -> assertThat(d.state()).isEqualTo(DomainState.DRAINING));
        health();
        assertThat(domain(A).state()).isEqualTo(DomainState.DRAINING);
        assertThat(node.processes().alive(client)).isTrue(); // a client is never ended by a drain

        node.processes().exit(client);
        health();

        assertThat(supervisor.domain(A)).isEmpty();
        assertThat(daemon(A).commands()).contains("quit");
        assertThat(DomainPaths.of(Colour.BLUE, runDir, A).dir()).doesNotExist();
    }

    @Test void delete_thenPutAgainBeforeTheDrainEnds_servesOn() {
        put(A, spec(0, 1000, 4096, 50));
        long client = node.client(pipe(A), 1000, 100);
        health();
        supervisor.delete(A);
        clock.runDue();
        put(A, spec(0, 1000, 4096, 50));
        node.processes().exit(client);
        health();
        assertThat(domain(A).state()).isEqualTo(DomainState.SERVING);
        assertThat(daemon(A).commands()).doesNotContain("quit");
    }

    /**
     * Measured on the H200: one client's illegal address took every client of its server down at once and the server
     * refused new clients until all of them had exited; a second daemon's client ran to the end. Killing every client of
     * the faulted server let a new client in. Here: tenant A's fault is seen at the first refused client, both A clients
     * are killed at once, tenant B (its own daemon on the same GPU) is untouched, and A serves again.
     */
    @Test void fault_killsEveryClientOfThatServerOnly() {
        put(A, spec(0, 1000, 4096, 50));
        put(B, spec(0, 1001, 4096, 50));
        long a1 = node.client(pipe(A), 1000, 100), a2 = node.client(pipe(A), 1000, 100);
        long b1 = node.client(pipe(B), 1001, 100);
        health();

        node.fault(a1);
        clock.advance(Duration.ofMillis(200)); // the Xid is polled: a hint for GPU 0, no domain named
        assertThat(domain(A).state()).isEqualTo(DomainState.SERVING);
        assertThat(node.tryClient(pipe(A), 1000)).isInstanceOf(Connection.Refused.class); // a new A pod fails at CUDA init
        Instant refused = clock.instant();
        clock.advance(Duration.ofMillis(200));

        DomainStatus a = domain(A);
        assertThat(a.state()).isEqualTo(DomainState.FAULTED);
        assertThat(a.faults()).isEqualTo(1);
        assertThat(a.lastFault().source()).isEqualTo("log");
        assertThat(a.lastFault().clients()).containsExactlyInAnyOrder(a1, a2);
        assertThat(Instant.parse(a.lastFault().at())).isBetween(refused, refused.plusSeconds(1)); // within 1 s of the first sign in its log
        assertThat(a.lastFault().signals()).extracting(DomainStatus.Signal::source).containsExactly("xid", "log"); // the Xid came first
        assertThat(node.processes().killed()).containsExactlyInAnyOrder(a1, a2);
        assertThat(node.processes().alive(b1)).isTrue();
        assertThat(domain(B).state()).isEqualTo(DomainState.SERVING);
        assertThat(metricsText()).contains("mpshare_mps_domain_faults_total{colour=\"blue\",domain=\"" + A + "\"} 1.0")
                .contains("mpshare_mps_fault_clients_killed_total{colour=\"blue\"} 2.0");

        clock.advance(Domain.RECHECK);
        assertThat(domain(A).state()).isEqualTo(DomainState.SERVING);
        assertThat(node.tryClient(pipe(A), 1000)).isInstanceOf(Connection.Served.class);
        assertThat(node.starts()).hasSize(3); // no daemon restarted
    }

    /** The kernel's Xid names a GPU and a victim: alone it never makes anyone's clients die. */
    @Test void fault_xidAlone_neverKills() {
        put(A, spec(0, 1000, 4096, 50));
        long a1 = node.client(pipe(A), 1000, 100);
        health();
        node.nvml().injectXid(0, 31);
        clock.advance(Duration.ofSeconds(5));
        assertThat(domain(A).state()).isEqualTo(DomainState.SERVING);
        assertThat(node.processes().killed()).isEmpty();
        assertThat(node.processes().alive(a1)).isTrue();
        assertThat(daemon(A).commands()).contains("get_server_status " + daemon(A).serverPids().getFirst()); // it asked, the server said ACTIVE
    }

    @Test void fault_hintInTheDomainsLogAndXidOnItsGpu_together_act() throws IOException {
        put(A, spec(0, 1000, 4096, 50));
        put(B, spec(0, 1001, 4096, 50));
        long a1 = node.client(pipe(A), 1000, 100);
        long b1 = node.client(pipe(B), 1001, 100);
        health();
        Files.writeString(DomainPaths.of(Colour.BLUE, runDir, A).daemonLog(), "[Server 1] client 77 hit a fatal exception\n",
                StandardCharsets.UTF_8, StandardOpenOption.APPEND);
        clock.advance(Duration.ofMillis(200));
        assertThat(domain(A).state()).as("a hint alone").isEqualTo(DomainState.SERVING);
        node.nvml().injectXid(0, 31);
        clock.advance(Duration.ofMillis(200));
        assertThat(domain(A).state()).isEqualTo(DomainState.FAULTED);
        assertThat(domain(A).lastFault().source()).isEqualTo("xid+log");
        assertThat(node.processes().killed()).containsExactly(a1);
        assertThat(node.processes().alive(b1)).isTrue();
    }

    /**
     * The node daemon's rule, per domain: one health read of a domain's daemon that timed out keeps the domain SERVING (a
     * new pod of the domain is answered, not held up to its Allocate's wait and refused); the second in a row does not.
     */
    @Test void health_oneReadOfADomainDaemonTimedOut_staysServing_theSecondInARowDoesNot() {
        put(A, spec(0, 1000, 4096, 50));
        put(B, spec(0, 1001, 4096, 50));

        daemon(A).failNext("get_server_list", MpsException.Reason.TIMEOUT);
        health();
        assertThat(domain(A).state()).isEqualTo(DomainState.SERVING);
        CompletableFuture<DomainStatus> serving = supervisor.whenServing(A);
        clock.runDue();
        assertThat(serving).isCompleted();
        health(); // answers

        daemon(A).failNext("get_server_list", MpsException.Reason.TIMEOUT);
        daemon(A).failNext("get_server_list", MpsException.Reason.TIMEOUT);
        health();
        health();
        assertThat(domain(A).state()).isEqualTo(DomainState.STARTING);
        assertThat(domain(B).state()).isEqualTo(DomainState.SERVING);

        health();
        assertThat(domain(A).state()).isEqualTo(DomainState.SERVING);
    }

    /** F15 inside a domain: a tenant holding its own control socket stalls only its own domain, and nobody dies. */
    @Test void stall_heldControlSocket_stallsOnlyThatDomain_neverKilled_servesWhenTheHolderIsGone() {
        put(A, spec(0, 1000, 4096, 50));
        put(B, spec(0, 1001, 4096, 50));
        long a1 = node.client(pipe(A), 1000, 100);
        long b1 = node.client(pipe(B), 1001, 100);
        health();
        long daemonA = domain(A).daemonPid();
        long holder = node.holdControl(pipe(A), 1000, FakeMpsControl.CONTROL_CONNECTIONS);

        clock.advance(config.healthInterval().multipliedBy(config.maxMissedHealthChecks() + 3));

        DomainStatus a = domain(A);
        assertThat(a.state()).isEqualTo(DomainState.STALLED);
        assertThat(a.stalledBy()).containsExactly(new DomainStatus.Holder(holder, 1000, 130, "python3 /tmp/hold.py 130"));
        assertThat(a.daemonPid()).isEqualTo(daemonA);
        assertThat(node.processes().killed()).isEmpty();
        assertThat(node.processes().alive(a1)).isTrue();
        assertThat(domain(B).state()).isEqualTo(DomainState.SERVING);
        assertThat(node.tryClient(pipe(B), 1001)).isInstanceOf(Connection.Served.class);
        assertThat(metricsText()).contains("mpshare_mps_daemon_stalled{colour=\"blue\",domain=\"" + A + "\"} 1.0");

        node.processes().exit(holder);
        clock.advance(config.healthInterval().multipliedBy(2));
        assertThat(domain(A).state()).isEqualTo(DomainState.SERVING);
        assertThat(domain(A).stalledBy()).isEmpty();
        assertThat(domain(A).daemonPid()).isEqualTo(daemonA);
        assertThat(node.processes().alive(b1)).isTrue();
    }

    @Test void restart_supervisorAdoptsTheRunningDomainDaemons_clientsUntouched() {
        put(A, spec(0, 1000, 4096, 50));
        long a1 = node.client(pipe(A), 1000, 100);
        node.fault(a1);
        node.tryClient(pipe(A), 1000);
        clock.advance(Duration.ofMillis(400)); // a fault, recorded
        long a2 = node.client(pipe(A), 1000, 100);
        health();
        long daemonA = domain(A).daemonPid();
        int starts = node.starts().size();

        supervisor = newSupervisor(); // the old one is gone (its thread stops with the test's clock)
        supervisor.start();
        clock.advance(Duration.ofMillis(200));
        health();

        DomainStatus a = domain(A);
        assertThat(a.state()).isEqualTo(DomainState.SERVING);
        assertThat(a.daemonPid()).isEqualTo(daemonA);
        assertThat(a.clients()).containsExactly(a2);
        assertThat(a.faults()).isEqualTo(1);
        assertThat(a.lastFault().clients()).containsExactly(a1);
        assertThat(node.processes().alive(a2)).isTrue();
        assertThat(node.starts()).hasSize(starts); // nothing started: A's daemon adopted (the old node daemon still answers, so none over it)
    }

    @Test void restart_domainWhoseDaemonDiedMeanwhile_startedAgainWithItsSettings() {
        put(A, spec(0, 1000, 6144, 40));
        node.killDaemon(pipe(A));
        supervisor = newSupervisor();
        supervisor.start();
        clock.advance(Duration.ofSeconds(2));
        assertThat(domain(A).state()).isEqualTo(DomainState.SERVING);
        assertThat(daemon(A).defaultLimits()).containsEntry(0, 6144L);
        assertThat(daemon(A).defaultActiveThreadPercentage()).isEqualTo(40);
    }

    @Test void daemonExit_domainDown_thenRestartedWithItsSettings() {
        put(A, spec(0, 1000, 6144, 40));
        node.killDaemon(pipe(A));
        clock.runDue();
        assertThat(domain(A).state()).isEqualTo(DomainState.DOWN);
        assertThat(domain(A).lastError()).contains("exited with code 137");
        clock.advance(Duration.ofSeconds(2));
        assertThat(domain(A).state()).isEqualTo(DomainState.SERVING);
        assertThat(daemon(A).defaultLimits()).containsEntry(0, 6144L);
        assertThat(metricsText()).contains("mpshare_mps_domain_restarts_total{colour=\"blue\",domain=\"" + A + "\"} 1.0");
    }

    private String metricsText() {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try {
            metrics.write(out);
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        return out.toString(StandardCharsets.UTF_8);
    }
}
