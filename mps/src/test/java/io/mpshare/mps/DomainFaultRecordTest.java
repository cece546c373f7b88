package io.mpshare.mps;

import io.mpshare.mps.DomainService.Answer;
import io.mpshare.mps.fake.FakeMpsControl.Connection;
import io.mpshare.mps.fake.FakeMpsNode;
import io.mpshare.testing.ManualScheduler;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A domain's fault is counted together with its whole record, however long its daemon's lane takes to read the
 * clients: the device plugin tells each fault once, when it sees the count grow, and its Events name what the record
 * says. The daemons' control commands run on an executor the test releases by hand (virtual threads in production).
 */
class DomainFaultRecordTest {
    static final String A = "t-aaaaaaaaaaaa";
    @TempDir Path runDir;
    final ManualScheduler clock = new ManualScheduler();
    final FakeMpsNode node = new FakeMpsNode(1);
    final Queue<Runnable> commands = new ArrayDeque<>();

    @Test void fault_countedOnlyOnceItsClientsAreKilled_withTheirPidsInTheSameChange() {
        SupervisorConfig config = SupervisorConfig.defaults(Colour.BLUE, runDir).withHealthInterval(Duration.ofSeconds(1));
        MpsSupervisor.Parts base = node.parts(config.pipeDir(), clock);
        MpsSupervisor supervisor = new MpsSupervisor(config, new MpsSupervisor.Parts(base.launcher(), base.nodeControl(), base.controls(),
                commands::add, base.faultSources(), base.faultPoll()), clock, clock, new SupervisorMetrics(Colour.BLUE));
        supervisor.start();
        settle(Duration.ofMillis(400));
        CompletableFuture<Answer> put = supervisor.put(A, new DomainSpec(node.gpu(0), DomainKind.TENANT, 1000, 4096, 50));
        settle(Duration.ofMillis(400));
        assertThat(put.join()).isInstanceOf(Answer.Accepted.class);
        Path pipe = DomainPaths.of(Colour.BLUE, runDir, A).pipeDir();
        long a1 = node.client(pipe, 1000, 100), a2 = node.client(pipe, 1000, 100);
        settle(config.healthInterval().multipliedBy(2));

        node.fault(a1);
        assertThat(node.tryClient(pipe, 1000)).isInstanceOf(Connection.Refused.class); // the server logs its teardown
        clock.advance(Duration.ofMillis(400)); // the detectors polled; the daemon's lane has not read the clients yet
        DomainStatus during = supervisor.domain(A).orElseThrow();
        assertThat(during.state()).isEqualTo(DomainState.FAULTED);
        assertThat(during.faults()).as("not counted before its record is whole").isZero();
        assertThat(during.lastFault()).isNull();

        settle(Duration.ofMillis(100));
        DomainStatus after = supervisor.domain(A).orElseThrow();
        assertThat(after.faults()).isEqualTo(1);
        assertThat(after.lastFault().source()).isEqualTo("log");
        assertThat(after.lastFault().clients()).containsExactlyInAnyOrder(a1, a2);
        assertThat(node.processes().killed()).containsExactlyInAnyOrder(a1, a2);
    }

    /** Advances the clock in small steps, running the daemons' commands as they come (their results are steps). */
    private void settle(Duration d) {
        for (Duration done = Duration.ZERO; done.compareTo(d) < 0; done = done.plusMillis(50)) {
            clock.advance(Duration.ofMillis(50));
            while (!commands.isEmpty()) {
                commands.poll().run();
                clock.runDue();
            }
        }
    }
}
