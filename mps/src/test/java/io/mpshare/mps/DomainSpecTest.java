package io.mpshare.mps;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The domain request and its id: what the supervisor takes, and the one-line reason for what it refuses. */
class DomainSpecTest {
    static byte[] json(String s) { return s.getBytes(StandardCharsets.UTF_8); }

    @Test void parse_fullBody() {
        DomainSpec s = DomainRoutes.parse(json("{\"gpu\":\"GPU-1\",\"kind\":\"pod\",\"clientUid\":1001,\"ceilingMiB\":2500,\"activeThreadPercentage\":25}"));
        assertThat(s).isEqualTo(new DomainSpec("GPU-1", DomainKind.POD, 1001, 2500, 25));
        assertThat(s.appliedCeilingMiB()).isEqualTo(3072);
    }

    @Test void parse_nullOrMissingUid_isNoUid_unknownFieldsIgnored() {
        assertThat(DomainRoutes.parse(json("{\"gpu\":\"GPU-1\",\"kind\":\"NODE\",\"clientUid\":null,\"ceilingMiB\":1,\"activeThreadPercentage\":100,\"x\":1}")).clientUid()).isNull();
        assertThat(DomainRoutes.parse(json("{\"gpu\":\"GPU-1\",\"kind\":\"node\",\"ceilingMiB\":1,\"activeThreadPercentage\":100}")).kind()).isEqualTo(DomainKind.NODE);
    }

    @Test void parse_refusals_sayWhatToChange() {
        assertThatThrownBy(() -> DomainRoutes.parse(json("{\"kind\":\"pod\",\"ceilingMiB\":1,\"activeThreadPercentage\":1}"))).hasMessageContaining("gpu must be the GPU's UUID");
        assertThatThrownBy(() -> DomainRoutes.parse(json("{\"gpu\":\"GPU-1/../x\",\"kind\":\"pod\",\"ceilingMiB\":1,\"activeThreadPercentage\":1}"))).hasMessageContaining("gpu must be");
        assertThatThrownBy(() -> DomainRoutes.parse(json("{\"gpu\":\"GPU-1\",\"kind\":\"pod\",\"ceilingMiB\":0,\"activeThreadPercentage\":1}"))).hasMessageContaining("ceilingMiB must be > 0, not 0");
        assertThatThrownBy(() -> DomainRoutes.parse(json("{\"gpu\":\"GPU-1\",\"kind\":\"pod\",\"ceilingMiB\":\"8G\",\"activeThreadPercentage\":1}"))).hasMessageContaining("ceilingMiB must be a number");
        assertThatThrownBy(() -> DomainRoutes.parse(json("{\"gpu\":\"GPU-1\",\"kind\":\"pod\",\"clientUid\":-1,\"ceilingMiB\":1,\"activeThreadPercentage\":1}"))).hasMessageContaining("clientUid must be >= 0");
        assertThatThrownBy(() -> DomainRoutes.parse(json("[1]"))).hasMessageContaining("JSON object");
    }

    @Test void id_pathSafeAndShortEnoughForTheSocket() {
        Path run = Path.of("/run/mpshare");
        assertThat(DomainPaths.problem(Colour.GREEN, run, "t-3f2a9c0d1e7b")).isNull();
        assertThat(DomainPaths.of(Colour.GREEN, run, "t-3f2a9c0d1e7b").controlSocket()).isEqualTo(Path.of("/run/mpshare/green/d/t-3f2a9c0d1e7b/pipe/control"));
        assertThat(DomainPaths.problem(Colour.GREEN, run, "../x")).contains("must be 1-32 characters");
        assertThat(DomainPaths.problem(Colour.GREEN, run, "T-1")).contains("must be 1-32 characters");
        assertThat(DomainPaths.problem(Colour.GREEN, run, "a".repeat(33))).contains("must be 1-32 characters");
        assertThat(DomainPaths.problem(Colour.GREEN, Path.of("/" + "r".repeat(70)), "a".repeat(32))).contains("more than a unix socket allows");
    }
}
