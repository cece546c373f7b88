package io.mpshare.mps.preflight;

import io.mpshare.mps.preflight.Occupancy.Kind;
import io.mpshare.mps.preflight.Occupancy.Use;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;

class OccupancyTest {
    static final Optional<Holder> PLUGIN = Optional.of(new Holder(1234, "mpshare device-plugin"));

    @Test void describe_onePerProcess_socketsOfOneFolderNamedOnce() {
        var o = new Occupancy(List.of(
                new Use(Kind.LOCK, "/dp/.mpshare/device-plugin.lock", PLUGIN),
                new Use(Kind.SOCKET, "/dp/mem.sock", PLUGIN),
                new Use(Kind.SOCKET, "/dp/core.sock", PLUGIN),
                new Use(Kind.PORT, "port 39996 (--metrics-port)", PLUGIN)));
        assertThat(o.describe()).isEqualTo("pid 1234 (mpshare device-plugin) holds /dp/.mpshare/device-plugin.lock, "
                + "serves mem.sock and core.sock in /dp, and listens on port 39996 (--metrics-port)");
        assertThat(o.agentRunning()).isTrue();
    }

    @Test void describe_unseenProcess_isAnotherProcess_andSeparateClause() {
        var o = new Occupancy(List.of(
                new Use(Kind.SOCKET, "/a/s.sock", Optional.empty()),
                new Use(Kind.PORT, "port 80 (--port)", Optional.of(new Holder(7, "")))));
        assertThat(o.describe()).isEqualTo("another process serves /a/s.sock; pid 7 listens on port 80 (--port)");
    }

    @Test void portAlone_isNotAnAgentRunning() {
        var o = new Occupancy(List.of(new Use(Kind.PORT, "port 80 (--port)", Optional.empty())));
        assertThat(o.agentRunning()).isFalse();
        assertThat(o.ports()).containsExactly("port 80 (--port)");
    }

    @Test void and_listsAsASentenceDoes() {
        assertThat(Occupancy.and(List.of("a"))).isEqualTo("a");
        assertThat(Occupancy.and(List.of("a", "b"))).isEqualTo("a and b");
        assertThat(Occupancy.and(List.of("a", "b", "c"))).isEqualTo("a, b, and c");
    }
}
