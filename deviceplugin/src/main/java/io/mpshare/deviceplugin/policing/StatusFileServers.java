package io.mpshare.deviceplugin.policing;

import io.mpshare.mps.Colour;
import io.mpshare.mps.SupervisorStatusClient;
import io.mpshare.policing.DaemonReport;
import io.mpshare.policing.MpsServers;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * The device plugin's {@link MpsServers}: each colour's {@code <runDir>/<colour>/status.json}, which its supervisor
 * rewrites at every health check with its daemon's PID and the flat list of every MPS server the daemon lists. The file
 * lies beside the pipe directory, not in it, so no pod can write it; with hostPID its PIDs are the host's, as NVML's.
 * Both colours are read: during a blue/green upgrade the idle colour's server still serves its clients.
 *
 * <p>A colour with no file is not deployed on this node and is left out. A file that cannot be read throws: the
 * policer then judges nothing that cycle rather than take the real server for a rogue and kill every client.
 */
public final class StatusFileServers implements MpsServers {
    private final Path runDir;

    public StatusFileServers(Path runDir) { this.runDir = Objects.requireNonNull(runDir, "runDir"); }

    @Override public List<DaemonReport> reports() {
        List<DaemonReport> out = new ArrayList<>();
        for (Colour c : Colour.values()) {
            Path file = c.statusFile(runDir);
            if (!Files.isRegularFile(file)) continue;
            out.addAll(DaemonReport.of(SupervisorStatusClient.readFile(file)));
        }
        return out;
    }
}
