package io.mpshare.host;

import io.mpshare.mps.MpsControl;
import io.mpshare.mps.MpsException;
import io.mpshare.mps.SupervisorStatus;
import io.mpshare.policing.DaemonReport;
import io.mpshare.policing.MpsServers;

import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.function.Supplier;

/**
 * Host mode's {@link MpsServers}: the in-process supervisor's status (its daemon's PID and the servers it listed at the
 * last health check). While the supervisor runs no daemon of its own, the daemon that answers on the host's pipe
 * directory is asked for its servers: one left by an earlier run that still serves jobs (a restart leaves it alone,
 * docs/host-mode.md) must not have its server taken for an unmanaged process and killed. Only root can start a daemon
 * on that pipe directory.
 */
final class HostMpsServers implements MpsServers {
    private final Supplier<SupervisorStatus> status;
    private final MpsControl pipe;
    private final InstantSource clock;

    HostMpsServers(Supplier<SupervisorStatus> status, MpsControl pipe, InstantSource clock) {
        this.status = status;
        this.pipe = pipe;
        this.clock = clock;
    }

    @Override public List<DaemonReport> reports() {
        SupervisorStatus s = status.get();
        List<DaemonReport> out = new ArrayList<>();
        out.addAll(DaemonReport.of(s));
        if (s.daemonPid() <= 0) {
            try {
                out.add(new DaemonReport(clock.instant(), -1, Set.copyOf(pipe.serverPids())));
            } catch (MpsException e) {
                // no daemon answers on the pipe: no server of mpshare's runs
            }
        }
        return out;
    }
}
