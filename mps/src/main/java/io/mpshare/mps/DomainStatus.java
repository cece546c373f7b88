package io.mpshare.mps;

import java.util.List;

/**
 * One domain as the supervisor reports it ({@code GET /domains/{id}}, and each element of {@code /status}'s
 * {@code domains}). mps/README.md documents each field; unknown fields must be ignored by readers (the format only grows).
 *
 * @param pipeDir                the domain's {@code CUDA_MPS_PIPE_DIRECTORY}: mount it, read-only, into the domain's pods
 * @param state                  see {@link DomainState}
 * @param stateSince             when the domain entered {@code state} (ISO-8601)
 * @param daemonPid              its control daemon's PID (host PID with hostPID), -1 while none runs
 * @param servers                its MPS servers' PIDs, as of the last health check
 * @param clients                every client PID of those servers
 * @param ceilingMiB             the server ceiling as applied (whole GiB)
 * @param faults                 faults since the domain was created (kept across supervisor restarts), each counted once
 *                               its clients were killed, together with {@code lastFault}
 * @param lastFault              the latest fault, or null
 * @param stalledBy              while STALLED: the processes holding connections to its {@code control} socket, most first
 * @param lastError              the last thing that went wrong for this domain, or null
 */
public record DomainStatus(String id, String gpu, DomainKind kind, Integer clientUid, String pipeDir, DomainState state,
                           String stateSince, long daemonPid, List<Long> servers, List<Long> clients, long ceilingMiB,
                           int activeThreadPercentage, long faults, Fault lastFault, List<Holder> stalledBy, String lastError) {
    public DomainStatus {
        servers = servers == null ? List.of() : List.copyOf(servers);
        clients = clients == null ? List.of() : List.copyOf(clients);
        stalledBy = stalledBy == null ? List.of() : List.copyOf(stalledBy);
    }

    /**
     * One fault of a server of the domain.
     *
     * @param at      when the supervisor acted on it (ISO-8601)
     * @param source  the detector whose signal it acted on ({@code log}, {@code server-status}, …)
     * @param clients the client PIDs it killed (SIGKILL, all at once): every client of the faulted server
     * @param signals every detector that reported this fault, with when it first did: which one is first
     */
    public record Fault(String at, String source, List<Long> clients, List<Signal> signals) {
        public Fault {
            clients = clients == null ? List.of() : List.copyOf(clients);
            signals = signals == null ? List.of() : List.copyOf(signals);
        }
    }

    /** One detector's report: {@code source} ({@code log}, {@code xid}, {@code server-status}), when, and what it saw. */
    public record Signal(String source, String at, String detail) {}

    /**
     * A process holding connections to a stalled daemon's {@code control} socket (from {@code /proc}).
     *
     * @param connections how many of its unix sockets could be connections to that socket
     * @param command     its command line, cut to 120 characters, for a person to read (the process wrote it: not evidence)
     */
    public record Holder(long pid, int uid, int connections, String command) {}
}
