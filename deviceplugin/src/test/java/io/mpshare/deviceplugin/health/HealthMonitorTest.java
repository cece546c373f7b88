package io.mpshare.deviceplugin.health;

import io.mpshare.deviceplugin.devices.HealthState;
import io.mpshare.mps.fake.FakeMpsControl;
import io.mpshare.testing.ManualScheduler;
import io.mpshare.nvml.fake.FakeNvml;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;

class HealthMonitorTest {
    final FakeNvml nvml = new FakeNvml().addH200().addH200();
    final FakeMpsControl mps = new FakeMpsControl();
    final ManualScheduler sched = new ManualScheduler();
    final HealthMonitor monitor = new HealthMonitor(nvml, mps::daemonUp, sched, Duration.ofMinutes(10));
    final List<Instant> unhealthyAt = new ArrayList<>();
    final List<HealthState> seen = new ArrayList<>();

    HealthMonitorTest() {
        monitor.addListener(h -> {
            seen.add(h);
            if (!h.daemonUp()) unhealthyAt.add(sched.instant());
        });
    }

    @Test void daemonCrash_unhealthyWithinTwoSeconds() {
        monitor.start(sched, Duration.ofMillis(500));
        sched.advance(Duration.ofSeconds(3));
        assertThat(monitor.current().daemonUp()).isTrue();
        Instant crash = sched.instant();
        mps.crash();
        sched.advance(Duration.ofSeconds(2));
        assertThat(unhealthyAt).hasSize(1);
        assertThat(Duration.between(crash, unhealthyAt.getFirst())).isLessThanOrEqualTo(Duration.ofMillis(500));
    }

    @Test void daemonRestart_healthyAgain() {
        monitor.start(sched, Duration.ofMillis(500));
        mps.crash();
        sched.advance(Duration.ofSeconds(1));
        assertThat(monitor.current().gpuHealthy(0)).isFalse();
        mps.restart();
        sched.advance(Duration.ofSeconds(1));
        assertThat(monitor.current().gpuHealthy(0)).isTrue();
        assertThat(seen).extracting(HealthState::daemonUp).containsExactly(false, true);
    }

    @Test void probeThrows_countsAsDown() {
        var m = new HealthMonitor(nvml, () -> { throw new java.net.ConnectException("refused"); }, sched, Duration.ofMinutes(10));
        HealthState h = m.tick();
        assertThat(h.daemonUp()).isFalse();
        assertThat(h.reason()).contains("refused");
    }

    @Test void criticalXid_gpuUnhealthyUntilQuietPeriodPasses() {
        nvml.injectXid(1, 79);
        assertThat(monitor.tick().xidGpus()).containsExactly(1);
        assertThat(monitor.current().gpuHealthy(0)).isTrue();
        sched.advance(Duration.ofMinutes(9));
        assertThat(monitor.tick().gpuHealthy(1)).isFalse();
        sched.advance(Duration.ofMinutes(1));
        assertThat(monitor.tick().gpuHealthy(1)).isTrue();
    }

    @Test void applicationXid_ignored() {
        nvml.injectXid(0, 13);
        assertThat(monitor.tick().gpuHealthy(0)).isTrue();
    }

    @Test void nvmlFailure_keepsLastKnownXidState() {
        nvml.failNext("drainCriticalXids", 15, "GPU is lost");
        assertThat(monitor.tick().daemonUp()).isTrue();
    }

    @Test void faultedDomain_closesOnlyItsGpu_whileFaulted_healthyAgainWhenItServes() {
        var faulted = new AtomicReference<Map<Integer, String>>(Map.of());
        var m = new HealthMonitor(nvml, mps::daemonUp, sched, Duration.ofMinutes(10), faulted::get);
        assertThat(m.tick().gpuHealthy(0)).isTrue();
        faulted.set(Map.of(1, "MPS domain t-0123456789ab on GPU 1 faulted"));
        HealthState h = m.tick();
        assertThat(h.gpuHealthy(0)).isTrue();
        assertThat(h.gpuHealthy(1)).isFalse();
        assertThat(h.reason()).contains("MPS domain t-0123456789ab on GPU 1 faulted");
        faulted.set(Map.of());
        assertThat(m.tick().gpuHealthy(1)).isTrue();
    }
}
