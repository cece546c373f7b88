package io.mpshare.mps;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * What the supervisor reports: the JSON of {@code GET /status} and of {@code <runDir>/<colour>/status.json}
 * (mps/README.md documents each field). Read it with {@link SupervisorStatusClient}. The top-level fields describe the
 * colour's node daemon ({@code <colour>/pipe}); {@code domains} the fault domains' daemons.
 *
 * @param daemonUp  the daemon process runs (UP) and answers its health reads: at most one in a row timed out, none found
 *                  nobody on the pipe
 * @param ready     daemonUp and every setting applied: new clients get their ceilings (the readiness marker exists)
 * @param phase     STOPPED, STARTING, UP, STALLED, BACKOFF or STOPPING
 * @param ceilingsMib per-GPU server ceiling (device ordinal → MiB) the supervisor enforces
 * @param ceilingsPending devices whose ceiling is not yet applied to the running daemon (retried every health check)
 * @param servers   every MPS server of every daemon of this colour (node daemon and domains) with its client PIDs, as of
 *                  the last health checks: the policer recognises the MPS server by these PIDs
 * @param updatedAt when this snapshot was taken (ISO-8601)
 * @param stalledBy while the node daemon is STALLED: who holds connections to its {@code control} socket
 * @param domains   the fault domains' daemons
 */
public record SupervisorStatus(String colour, boolean daemonUp, boolean ready, String phase, long daemonPid,
                               String pipeDir, String logDir, long restarts, String lastError, String lastErrorAt,
                               String upSince, Integer defaultActiveThreadPercentage, Map<Integer, Long> ceilingsMib,
                               List<Integer> ceilingsPending, List<Server> servers, String updatedAt,
                               List<DomainStatus.Holder> stalledBy, List<DomainStatus> domains) {
    public SupervisorStatus {
        ceilingsMib = ceilingsMib == null ? Map.of() : Map.copyOf(ceilingsMib);
        ceilingsPending = ceilingsPending == null ? List.of() : List.copyOf(ceilingsPending);
        servers = servers == null ? List.of() : List.copyOf(servers);
        stalledBy = stalledBy == null ? List.of() : List.copyOf(stalledBy);
        domains = domains == null ? List.of() : List.copyOf(domains);
    }

    /** One MPS server (one per Linux UID at a time) and the PIDs of its clients. */
    public record Server(long pid, List<Long> clients) {
        public Server { clients = clients == null ? List.of() : List.copyOf(clients); }
    }

    public Optional<Long> ceilingMib(int device) { return Optional.ofNullable(ceilingsMib.get(device)); }

    /** Every client PID of every server. */
    public List<Long> clients() { return servers.stream().flatMap(s -> s.clients().stream()).toList(); }

    /** The domain {@code id}, or empty. */
    public Optional<DomainStatus> domain(String id) { return domains.stream().filter(d -> d.id().equals(id)).findFirst(); }

    /**
     * This status with {@code others} as its domains, their servers added to the flat list (a domain reports its servers
     * and all their clients; where it has one server, the clients are that server's).
     */
    SupervisorStatus withDomains(List<DomainStatus> others) {
        List<Server> all = new ArrayList<>(servers.stream().filter(s -> domains.stream().noneMatch(d -> d.servers().contains(s.pid()))).toList());
        for (DomainStatus d : others)
            for (long pid : d.servers()) all.add(new Server(pid, d.servers().size() == 1 ? d.clients() : List.of()));
        return new SupervisorStatus(colour, daemonUp, ready, phase, daemonPid, pipeDir, logDir, restarts, lastError, lastErrorAt,
                upSince, defaultActiveThreadPercentage, ceilingsMib, ceilingsPending, all, updatedAt, stalledBy, others);
    }
}
