package io.mpshare.core.codec;

import io.mpshare.core.codec.DomainsCodec.Domain;
import io.mpshare.core.codec.DomainsCodec.NodeDomains;
import io.mpshare.core.codec.DomainsCodec.Suspect;
import io.mpshare.core.isolation.FaultDomains.Kind;
import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class DomainsCodecTest {
    static final Instant AT = Instant.parse("2026-12-01T10:00:00Z");

    @Test void encode_writesTheDocumentedLine() {
        var n = new NodeDomains(AT, List.of(
                new Domain(0, "t-3f2a9c0d1e7b", Kind.TENANT, "SERVING", 2, 1, Instant.parse("2026-12-01T09:58:03Z"), "team-a/1000"),
                new Domain(0, "node", Kind.NODE, "SERVING", 1, 0, null, "gpu-a")),
                List.of(new Suspect("team-a/Job/train", Instant.parse("2026-12-01T10:58:03Z"))));
        assertThat(DomainsCodec.encode(n)).isEqualTo("v1;at=2026-12-01T10:00:00Z;d=0|t-3f2a9c0d1e7b|tenant|SERVING|2|1|2026-12-01T09:58:03Z|team-a/1000,"
                + "0|node|node|SERVING|1|0|-|gpu-a;s=team-a/Job/train|2026-12-01T10:58:03Z");
        assertThat(DomainsCodec.decode(DomainsCodec.encode(n))).isEqualTo(n);
        assertThat(n.onGpu(0)).hasSize(2);
        assertThat(n.onGpu(1)).isEmpty();
    }

    @Test void decode_noDomains_roundTrips() {
        var n = new NodeDomains(AT, List.of(), List.of());
        assertThat(DomainsCodec.encode(n)).isEqualTo("v1;at=2026-12-01T10:00:00Z");
        assertThat(DomainsCodec.decode("v1;at=2026-12-01T10:00:00Z")).isEqualTo(n);
    }

    @Test void decode_bad_oneLineSayingWhat() {
        assertThatThrownBy(() -> DomainsCodec.decode("v2;at=x")).hasMessageContaining("not a v1");
        assertThatThrownBy(() -> DomainsCodec.decode("v1;at=2026-12-01T10:00:00Z;d=0|t-1|tenant|SERVING|2"))
                .hasMessageContaining("must have 8 fields");
        assertThatThrownBy(() -> DomainsCodec.decode("v1;at=2026-12-01T10:00:00Z;d=0|t-1|gpu|SERVING|2|0|-|x"))
                .hasMessageContaining("tenant, pod or node");
        assertThatThrownBy(() -> new Domain(0, "t-1", Kind.POD, "SERVING", 1, 0, null, "a,b")).hasMessageContaining("has one of");
    }
}
