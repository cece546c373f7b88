package io.mpshare.mps.fault;

import io.mpshare.mps.fault.FaultJudge.Finding;
import io.mpshare.mps.fault.FaultSignal.Strength;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** Which domain faulted: a fault line names its domain; a hint needs an Xid on the same GPU; an Xid alone names nobody. */
class FaultJudgeTest {
    static final Instant T = Instant.parse("2026-12-01T10:00:00Z");
    static final Map<String, String> GPUS = Map.of("t-a", "GPU-0", "t-b", "GPU-0", "t-c", "GPU-1");
    final FaultJudge judge = new FaultJudge(Duration.ofSeconds(3), Duration.ofSeconds(10));

    static FaultSignal log(String domain, Strength s, long ms) { return FaultSignal.forDomain("log", T.plusMillis(ms), domain, s, "line"); }

    static FaultSignal xid(String gpu, long ms) { return FaultSignal.forGpu("xid", T.plusMillis(ms), gpu, "Xid 31"); }

    @Test void faultLine_thatDomain_withTheEarlierXidOfItsGpuAttached() {
        assertThat(judge.take(xid("GPU-0", 0), GPUS)).isEmpty();
        List<Finding> f = judge.take(log("t-a", Strength.FAULT, 900), GPUS);
        assertThat(f).singleElement().satisfies(x -> {
            assertThat(x.domain()).isEqualTo("t-a");
            assertThat(x.source()).isEqualTo("log");
            assertThat(x.signals()).extracting(FaultSignal::source).containsExactly("xid", "log");
        });
    }

    @Test void xidAlone_nobody_evenWithOneDomainOnTheGpu() {
        assertThat(judge.take(xid("GPU-1", 0), GPUS)).isEmpty();
        assertThat(judge.take(xid("GPU-0", 100), GPUS)).isEmpty();
    }

    @Test void hintThenXid_orXidThenHint_onTheSameGpu_thatDomainOnly() {
        assertThat(judge.take(log("t-a", Strength.HINT, 0), GPUS)).isEmpty();
        assertThat(judge.take(xid("GPU-0", 1000), GPUS)).extracting(Finding::domain).containsExactly("t-a");
        FaultJudge other = new FaultJudge(Duration.ofSeconds(3), Duration.ofSeconds(10));
        assertThat(other.take(xid("GPU-0", 0), GPUS)).isEmpty();
        assertThat(other.take(log("t-b", Strength.HINT, 2000), GPUS)).singleElement()
                .satisfies(x -> assertThat(x.source()).isEqualTo("log+xid"));
    }

    @Test void hintAndXid_otherGpuOrTooFarApart_nobody() {
        assertThat(judge.take(log("t-c", Strength.HINT, 0), GPUS)).isEmpty();
        assertThat(judge.take(xid("GPU-0", 100), GPUS)).isEmpty(); // t-c is on GPU-1
        assertThat(judge.take(log("t-a", Strength.HINT, 3200), GPUS)).isEmpty(); // 3.1 s after the Xid
    }

    @Test void oldSignalsForgotten_afterTheRecall() {
        judge.take(xid("GPU-0", 0), GPUS);
        assertThat(judge.take(log("t-a", Strength.FAULT, 11_000), GPUS)).singleElement()
                .satisfies(x -> assertThat(x.signals()).extracting(FaultSignal::source).containsExactly("log"));
    }
}
