package io.mpshare.policing;

import io.mpshare.core.codec.UsageCodec.ContainerUsage;
import io.mpshare.core.codec.UsageCodec.GpuUsage;
import io.mpshare.core.codec.UsageCodec.PodUsage;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

class ChangedUsageSinkTest {
    static final Instant T = Instant.parse("2026-11-30T04:00:00Z");
    final List<Set<String>> forwarded = new ArrayList<>();
    final ChangedUsageSink sink = new ChangedUsageSink(m -> forwarded.add(m.keySet()), 256, Duration.ofMinutes(5));

    static PodUsage usage(int seconds, long used, int procs) {
        return new PodUsage(T.plusSeconds(seconds), List.of(new GpuUsage(0, 2560, used, procs)),
                procs == 0 ? List.of() : List.of(new ContainerUsage("main", 0, used, procs)));
    }

    @Test
    void publish_forwardsNewPods_andOnlyChangesBeyondTheTolerance() {
        sink.publish(Map.of("a", usage(0, 1000, 1), "b", usage(0, 0, 0)));
        sink.publish(Map.of("a", usage(10, 1200, 1), "b", usage(10, 0, 0)));   // +200: within 256
        sink.publish(Map.of("a", usage(20, 1300, 1), "b", usage(20, 612, 1))); // a: +300 since last forwarded; b: a process came
        sink.publish(Map.of("a", usage(30, 1300, 2), "b", usage(30, 612, 1))); // a: process count changed
        assertThat(forwarded).containsExactly(Set.of("a", "b"), Set.of("a", "b"), Set.of("a"));
    }

    @Test
    void publish_refreshesAfterMaxAge_andForgetsPodsThatLeft() {
        sink.publish(Map.of("a", usage(0, 1000, 1)));
        sink.publish(Map.of("a", usage(299, 1000, 1)));
        sink.publish(Map.of("a", usage(300, 1000, 1)));
        sink.publish(Map.of());
        sink.publish(Map.of("a", usage(310, 1000, 1)));
        assertThat(forwarded).containsExactly(Set.of("a"), Set.of("a"), Set.of("a"));
    }
}
