package io.mpshare.policing;

import io.mpshare.policing.proc.ProcFs;

import java.time.Instant;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * Which non-client GPU processes are the MPS server, from what mpshare's supervisors reported ({@link DaemonReport})
 * and what the kernel says ({@code /proc/<pid>/stat}); never from a name, which any process can take (a link named
 * {@code nvidia-cuda-mps-server}, {@code exec -a}).
 *
 * <h2>Implementation notes</h2>
 * <ul>
 *   <li><b>A server</b> is a PID a report lists, or a child of a daemon a report names: the control daemon launches
 *       every server itself, so a server started since the supervisor's last health check (up to one interval, 5 s by
 *       default) is recognised by its parent before the list names it. No tenant process can be a child of the
 *       daemon.</li>
 *   <li><b>Reuse.</b> A report is as old as the supervisor's last health check, and a status file outlives a
 *       supervisor that was killed. A PID counts only while the process that holds it started no later than the report
 *       ({@code at}): a process that took a dead server's or daemon's PID afterwards is not vouched for, however long
 *       the report lies there. No slack is needed: the start time read ({@link ProcFs#startedAt}) is never later than
 *       the true one (the boot time is cut to whole seconds), so a process the report saw always passes, and one that
 *       started more than a second after it never does.</li>
 *   <li>Everything else that holds a GPU outside MPS is {@code NOT_MPS}, whatever it calls itself.</li>
 * </ul>
 */
final class ServerIdentity {
    private final ProcFs proc;

    ServerIdentity(ProcFs proc) { this.proc = Objects.requireNonNull(proc, "proc"); }

    /** The servers and daemons these reports vouch for now (call once per cycle). */
    Recognised recognise(List<DaemonReport> reports) {
        Set<Long> servers = new HashSet<>();
        Set<Long> daemons = new HashSet<>();
        for (DaemonReport r : reports) {
            for (long pid : r.serverPids()) if (reported(pid, r.at())) servers.add(pid);
            if (r.daemonPid() > 0 && reported(r.daemonPid(), r.at())) daemons.add(r.daemonPid());
        }
        return new Recognised(Set.copyOf(servers), Set.copyOf(daemons));
    }

    /** The process now holding {@code pid} is the one a report of {@code at} named: it already ran then. */
    private boolean reported(long pid, Instant at) {
        return pid > 0 && proc.startedAt(pid).map(started -> !started.isAfter(at)).orElse(false);
    }

    /** One cycle's answer. */
    final class Recognised {
        private final Set<Long> servers;
        private final Set<Long> daemons;

        private Recognised(Set<Long> servers, Set<Long> daemons) {
            this.servers = servers;
            this.daemons = daemons;
        }

        /** Whether the process {@code pid} is an MPS server of one of mpshare's daemons. */
        boolean isServer(long pid) {
            return servers.contains(pid) || (!daemons.isEmpty() && proc.parentPid(pid).map(daemons::contains).orElse(false));
        }

        Set<Long> servers() { return servers; }

        Set<Long> daemons() { return daemons; }
    }
}
