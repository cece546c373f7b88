package io.mpshare.cli;

import io.mpshare.deviceplugin.DevicePluginConfig;
import io.mpshare.deviceplugin.DevicePluginPreflight;
import io.mpshare.mps.Colour;
import io.mpshare.mps.SupervisorPreflight;
import io.mpshare.mps.preflight.InstanceLock;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A node agent started beside a live one of its kind, through the real command line: one line that names what runs,
 * which process holds what and what to do, exit 1, and nothing changed (the first one's sockets answer, its ready
 * marker stays; the API server is not even asked). The live one is this test process holding the agent's lock and
 * socket, as a first agent does.
 */
class SecondAgentIT {
    @TempDir Path dir;
    static final long ME = ProcessHandle.current().pid();

    private static ServerSocketChannel listen(Path socket) throws IOException {
        Files.createDirectories(socket.getParent());
        ServerSocketChannel ch = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
        ch.bind(UnixDomainSocketAddress.of(socket));
        return ch;
    }

    private static boolean answers(Path socket) {
        try (SocketChannel ch = SocketChannel.open(UnixDomainSocketAddress.of(socket))) {
            return ch.isConnected();
        } catch (IOException e) {
            return false;
        }
    }

    /** The kubeconfig named does not exist: had the command gone as far as the API server, that would be its answer. */
    private CliRun devicePlugin(Path pluginDir, int metricsPort) {
        return CliRun.of("device-plugin", "--node-name", "n1", "--fake-gpus", "16384", "--metrics-port", Integer.toString(metricsPort),
                "--plugin-dir", pluginDir.toString(), "--run-dir", dir.resolve("run").toString(), "--kubeconfig", dir.resolve("no-kubeconfig").toString());
    }

    private static void oneLine(CliRun r, String start, String end) {
        assertThat(r.exitCode()).as(r.err()).isEqualTo(ExitCodes.FAILED);
        assertThat(r.errLines()).as(r.err()).hasSize(1);
        assertThat(r.err()).startsWith(start).contains(end).doesNotContain("\tat ", "Exception");
        assertThat(r.out()).isEmpty();
    }

    @Test void devicePlugin_besideALiveOne_refusedBeforeTheApiServer() throws Exception {
        Path dp = dir.resolve("device-plugins");
        Path mem = dp.resolve(DevicePluginConfig.MEM_SOCKET);
        try (InstanceLock first = DevicePluginPreflight.of(dp, 0).claim(); ServerSocketChannel live = listen(mem)) {
            CliRun r = devicePlugin(dp, 0);
            oneLine(r, "mpshare device-plugin: another device plugin is running here: pid " + ME + " (",
                    " holds " + dp.resolve(DevicePluginPreflight.LOCK) + " and serves " + mem + ". Stop it first: one device plugin per node. Nothing was changed");
            assertThat(answers(mem)).isTrue();
            assertThat(dp.resolve(DevicePluginConfig.CORE_SOCKET)).doesNotExist();
        }
    }

    @Test void devicePlugin_metricsPortTaken_namesPortFlagAndHolder() throws Exception {
        Path dp = dir.resolve("device-plugins");
        try (ServerSocket taken = new ServerSocket(0)) {
            int port = taken.getLocalPort();
            CliRun r = devicePlugin(dp, port);
            oneLine(r, "mpshare device-plugin: port " + port + " (--metrics-port) is in use: pid " + ME + " (",
                    " listens on port " + port + " (--metrics-port). Stop that process, or choose another port with --metrics-port. Nothing was changed");
        }
        assertThat(dp).as("nothing created: no lock, no socket").doesNotExist();
    }

    @Test void mpsControl_sameColourTwice_refused_readyMarkerKept_otherColourFree() throws Exception {
        Path run = dir.resolve("run");
        Path sock = Colour.BLUE.supervisorSocket(run);
        Path fake = Files.writeString(dir.resolve("nvidia-cuda-mps-control"), "#!/bin/sh\nexit 1\n");
        Files.setPosixFilePermissions(fake, PosixFilePermissions.fromString("rwx------"));
        try (InstanceLock first = SupervisorPreflight.mpsControl(Colour.BLUE, run, sock, Optional.empty()).claim(); ServerSocketChannel live = listen(sock)) {
            Path ready = Files.writeString(Colour.BLUE.readyMarker(run), "4242\n");
            CliRun r = CliRun.of("mps-control", "--colour", "blue", "--run-dir", run.toString(), "--mps-control-binary", fake.toString());
            oneLine(r, "mpshare mps-control: the blue MPS supervisor is running here: pid " + ME + " (",
                    " holds " + Colour.BLUE.lockFile(run) + " and serves " + sock + ". Stop it first: one supervisor per colour "
                            + "(a second daemon beside it is the other colour, --colour green; docs/upgrade.md). Nothing was changed");
            assertThat(ready).hasContent("4242");
            assertThat(answers(sock)).isTrue();
            // blue/green: the other colour is a deliberate second daemon
            SupervisorPreflight.mpsControl(Colour.GREEN, run, Colour.GREEN.supervisorSocket(run), Optional.empty()).check();

            CliRun host = CliRun.of("host", "--run-dir", run.toString(), "--socket", dir.resolve("host.sock").toString(),
                    "--state-file", dir.resolve("state.json").toString(), "--mps-control-binary", fake.toString());
            oneLine(host, "mpshare host: an MPS supervisor of " + run + " is running here: pid " + ME + " (",
                    " holds " + Colour.BLUE.lockFile(run) + ". Stop it first, or give this one its own --run-dir. Nothing was changed");
        }
    }
}
