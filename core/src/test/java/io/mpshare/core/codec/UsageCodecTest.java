package io.mpshare.core.codec;

import io.mpshare.core.codec.UsageCodec.ContainerUsage;
import io.mpshare.core.codec.UsageCodec.GpuUsage;
import io.mpshare.core.codec.UsageCodec.PodUsage;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class UsageCodecTest {
    private static final Instant AT = Instant.parse("2026-11-30T03:24:15Z");

    @Test
    void encode_writesTheDocumentedLine() {
        var u = new PodUsage(AT, List.of(new GpuUsage(0, 7680, 6012, 3), new GpuUsage(3, 7680, 100, 1)),
                List.of(new ContainerUsage("main", 0, 5500, 2), new ContainerUsage("side", 0, 512, 1), new ContainerUsage("main", 3, 100, 1)));
        assertThat(UsageCodec.encode(u))
                .isEqualTo("v1;at=2026-11-30T03:24:15Z;g=0:7680:6012:3,3:7680:100:1;c=main@0:5500:2,side@0:512:1,main@3:100:1");
    }

    @Test
    void decode_roundTrips() {
        var u = new PodUsage(AT, List.of(new GpuUsage(1, 2560, 3000, 2)),
                List.of(new ContainerUsage("train", 1, 2900, 1), new ContainerUsage(UsageCodec.UNKNOWN_CONTAINER, 1, 100, 1)));
        assertThat(UsageCodec.decode(UsageCodec.encode(u))).isEqualTo(u);
        assertThat(u.usedMib()).isEqualTo(3000);
        assertThat(u.allocatedMib()).isEqualTo(2560);
    }

    @Test
    void decode_idlePodHasNoContainerField() {
        var u = new PodUsage(AT, List.of(new GpuUsage(0, 1536, 0, 0)), List.of());
        String text = UsageCodec.encode(u);
        assertThat(text).isEqualTo("v1;at=2026-11-30T03:24:15Z;g=0:1536:0:0");
        assertThat(UsageCodec.decode(text)).isEqualTo(u);
    }

    @Test
    void decode_skipsUnknownFields() {
        assertThat(UsageCodec.decode("v1;at=2026-11-30T03:24:15Z;g=0:1:2:1;future=x").gpus()).hasSize(1);
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "v2;at=2026-11-30T03:24:15Z", "v1;g=0:1:2:1", "v1;at=yesterday", "v1;at=2026-11-30T03:24:15Z;g=0:1:2",
            "v1;at=2026-11-30T03:24:15Z;c=main:0:1:1", "v1;at=2026-11-30T03:24:15Z;g=x:1:2:3", "v1;at=2026-11-30T03:24:15Z;oops"})
    void decode_malformed_throwsWithTheAnnotationName(String text) {
        assertThatThrownBy(() -> UsageCodec.decode(text)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("mpshare.io/usage");
    }
}
