package io.mpshare.mps;

import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * What the supervisor reports: the JSON of {@code GET /status} and of {@code <runDir>/<colour>/status.json}
 * (mps/README.md documents each field). Read it with {@link SupervisorStatusClient}.
 *
 * @param daemonUp  the daemon process runs and answered on its pipe at the last check
 * @param ready     daemonUp and every setting applied: new clients get their ceilings (the readiness marker exists)
 * @param phase     STOPPED, STARTING, UP, BACKOFF or STOPPING
 * @param ceilingsMib per-GPU server ceiling (device ordinal → MiB) the supervisor enforces
 * @param ceilingsPending devices whose ceiling is not yet applied to the running daemon (retried every health check)
 * @param servers   MPS servers and their client PIDs, as of the last health check
 * @param updatedAt when this snapshot was taken (ISO-8601)
 */
public record SupervisorStatus(String colour, boolean daemonUp, boolean ready, String phase, long daemonPid,
                               String pipeDir, String logDir, long restarts, String lastError, String lastErrorAt,
                               String upSince, Integer defaultActiveThreadPercentage, Map<Integer, Long> ceilingsMib,
                               List<Integer> ceilingsPending, List<Server> servers, String updatedAt) {
    public SupervisorStatus {
        ceilingsMib = ceilingsMib == null ? Map.of() : Map.copyOf(ceilingsMib);
        ceilingsPending = ceilingsPending == null ? List.of() : List.copyOf(ceilingsPending);
        servers = servers == null ? List.of() : List.copyOf(servers);
    }

    /** One MPS server (one per Linux UID at a time) and the PIDs of its clients. */
    public record Server(long pid, List<Long> clients) {
        public Server { clients = clients == null ? List.of() : List.copyOf(clients); }
    }

    public Optional<Long> ceilingMib(int device) { return Optional.ofNullable(ceilingsMib.get(device)); }

    /** Every client PID of every server. */
    public List<Long> clients() { return servers.stream().flatMap(s -> s.clients().stream()).toList(); }
}
