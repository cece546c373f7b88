package io.mpshare.policing;

import io.mpshare.mps.DomainStatus;
import io.mpshare.mps.SupervisorStatus;

import java.time.DateTimeException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * What one of mpshare's own MPS supervisors last said about its control daemon: the daemon's PID and the PID of every
 * MPS server that daemon listed ({@code get_server_list}), as of {@code at}. The policer takes a GPU process for the
 * MPS server only on such a report ({@code ServerIdentity}), never on what the process calls itself.
 *
 * @param at         when the supervisor read it; a PID whose process started after this is not the one it named
 * @param daemonPid  the control daemon ({@code nvidia-cuda-mps-control -f}), host PID; -1 when it has none
 * @param serverPids every MPS server the daemon listed, host PIDs
 */
public record DaemonReport(Instant at, long daemonPid, Set<Long> serverPids) {
    public DaemonReport {
        Objects.requireNonNull(at, "at");
        serverPids = Set.copyOf(serverPids);
    }

    /**
     * A supervisor's status as reports, one per control daemon it runs: the colour's node daemon ({@code daemonPid}
     * with the flat {@code servers} list) and each fault domain's daemon with its own servers, all as of
     * {@code updatedAt}. A domain's daemon must be reported too: a server it starts between two health reads is known
     * as its child. Empty when the status says no time ({@code updatedAt} missing or unreadable): its PIDs could then
     * not be checked against reuse.
     */
    public static List<DaemonReport> of(SupervisorStatus s) {
        if (s.updatedAt() == null) return List.of();
        Instant at;
        try {
            at = Instant.parse(s.updatedAt());
        } catch (DateTimeException e) {
            return List.of();
        }
        List<DaemonReport> out = new ArrayList<>();
        out.add(new DaemonReport(at, s.daemonPid(), s.servers().stream().map(SupervisorStatus.Server::pid).collect(Collectors.toSet())));
        for (DomainStatus d : s.domains()) out.add(new DaemonReport(at, d.daemonPid(), Set.copyOf(d.servers())));
        return out;
    }
}
