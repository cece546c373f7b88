package io.mpshare.deviceplugin.policing;

import io.mpshare.mps.MpsException;
import io.mpshare.policing.DaemonReport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The servers each colour's supervisor wrote in its status.json, as the policer reads them. */
class StatusFileServersTest {
    @TempDir Path run;

    void status(String colour, String json) throws IOException {
        Files.createDirectories(run.resolve(colour));
        Files.writeString(run.resolve(colour).resolve("status.json"), json);
    }

    static String json(String colour, long daemonPid, String servers, String updatedAt) {
        return "{\"colour\":\"" + colour + "\",\"daemonUp\":true,\"ready\":true,\"phase\":\"UP\",\"daemonPid\":" + daemonPid
                + ",\"pipeDir\":\"/run/mpshare/" + colour + "/pipe\",\"logDir\":\"/run/mpshare/" + colour + "/log\",\"restarts\":0,"
                + "\"lastError\":null,\"lastErrorAt\":null,\"upSince\":\"2026-11-30T04:00:05Z\",\"defaultActiveThreadPercentage\":100,"
                + "\"ceilingsMib\":{\"0\":8192},\"ceilingsPending\":[],\"servers\":" + servers + ",\"updatedAt\":\"" + updatedAt + "\","
                + "\"aFieldOfANewerSupervisor\":{\"domains\":[]}}";
    }

    @Test
    void bothColours_daemonAndEveryServer_asOfTheirLastHealthCheck() throws IOException {
        status("blue", json("blue", 620, "[{\"pid\":835,\"clients\":[794,851]},{\"pid\":836,\"clients\":[]}]", "2026-11-30T04:00:16Z"));
        status("green", json("green", 720, "[]", "2026-11-30T04:00:17Z"));
        assertThat(new StatusFileServers(run).reports()).containsExactly(
                new DaemonReport(Instant.parse("2026-11-30T04:00:16Z"), 620, Set.of(835L, 836L)),
                new DaemonReport(Instant.parse("2026-11-30T04:00:17Z"), 720, Set.of()));
    }

    @Test
    void colourNotDeployed_isLeftOut() throws IOException {
        assertThat(new StatusFileServers(run).reports()).isEmpty();
        status("green", json("green", 720, "[{\"pid\":900,\"clients\":[]}]", "2026-11-30T04:00:17Z"));
        assertThat(new StatusFileServers(run).reports()).singleElement().satisfies(r -> assertThat(r.serverPids()).containsExactly(900L));
    }

    @Test
    void fileThatIsNotAStatus_throws_soTheCycleJudgesNothing() throws IOException {
        status("blue", "{\"servers\":[{\"pid\":");
        assertThatThrownBy(() -> new StatusFileServers(run).reports()).isInstanceOf(MpsException.class).hasMessageContaining("status.json");
    }
}
