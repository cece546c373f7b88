package io.mpshare.deviceplugin.domains;

import io.mpshare.deviceplugin.domains.DomainReport.State;
import io.mpshare.mps.MpsException;

import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One colour's supervisor as the domain API shows it, with MPS's measured fault behaviour: a PUT starts a daemon
 * (STARTING until {@link #started}, or SERVING at once when {@code startsServing}); a fault of a domain's server kills
 * every client of that server at once and the domain is FAULTED — it refuses new clients — until those clients have
 * exited ({@link #clientsExited}); other domains are untouched. A DELETE drains; the daemon quits once no client is left.
 */
final class FakeSupervisor implements DomainSupervisor {
    private final String colour;
    private final Map<String, DomainReport> domains = new LinkedHashMap<>();
    private final Map<String, List<Long>> clients = new LinkedHashMap<>();
    final List<String> calls = new ArrayList<>();
    boolean startsServing = true;
    boolean down;

    FakeSupervisor(String colour) { this.colour = colour; }

    @Override public synchronized List<DomainReport> domains() {
        if (down) throw new MpsException(MpsException.Reason.DAEMON_DOWN, "no MPS supervisor socket (mps-control of this colour not running?)");
        return List.copyOf(domains.values());
    }

    @Override public synchronized DomainReport put(String id, DomainAsk ask) {
        if (down) throw new MpsException(MpsException.Reason.DAEMON_DOWN, "no MPS supervisor socket");
        calls.add("PUT " + id + " ceiling=" + ask.ceilingMib() + " threads=" + ask.threadPercent() + " uid=" + ask.clientUid());
        DomainReport had = domains.get(id);
        State state = had != null && had.state() != State.DRAINING ? had.state() : startsServing ? State.SERVING : State.STARTING;
        var r = new DomainReport(id, ask.gpu(), ask.kind(), state, "/run/mpshare/" + colour + "/d/" + id + "/pipe", ask.ceilingMib(), ask.threadPercent(),
                had == null ? 0 : had.faults(), had == null ? null : had.lastFault(), List.of());
        domains.put(id, r);
        clients.putIfAbsent(id, new ArrayList<>());
        return r;
    }

    @Override public synchronized void delete(String id) {
        calls.add("DELETE " + id);
        DomainReport r = domains.get(id);
        if (r == null) return;
        if (clients.getOrDefault(id, List.of()).isEmpty()) {
            domains.remove(id);
            clients.remove(id);
        } else {
            domains.put(id, with(r, State.DRAINING));
        }
    }

    synchronized void started(String id) { domains.computeIfPresent(id, (k, r) -> with(r, State.SERVING)); }

    synchronized void connect(String id, long pid) { clients.get(id).add(pid); }

    /** A client's fatal fault: every client of the domain's server is killed at once; FAULTED until they have exited. */
    synchronized List<Long> fault(String id, Instant at) {
        DomainReport r = domains.get(id);
        List<Long> killed = List.copyOf(clients.get(id));
        domains.put(id, new DomainReport(id, r.gpu(), r.kind(), State.FAULTED, r.pipeDir(), r.ceilingMib(), r.threadPercent(), r.faults() + 1,
                new DomainReport.Fault(at, "log", killed), List.of()));
        return killed;
    }

    /** The faulted clients have exited: the server takes new clients again. */
    synchronized void clientsExited(String id) {
        clients.get(id).clear();
        domains.computeIfPresent(id, (k, r) -> with(r, State.SERVING));
    }

    synchronized void stall(String id, DomainReport.Holder holder) {
        DomainReport r = domains.get(id);
        domains.put(id, new DomainReport(id, r.gpu(), r.kind(), State.STALLED, r.pipeDir(), r.ceilingMib(), r.threadPercent(), r.faults(),
                r.lastFault(), List.of(holder)));
    }

    synchronized DomainReport domain(String id) { return domains.get(id); }

    synchronized Map<String, DomainReport> all() { return Map.copyOf(domains); }

    private static DomainReport with(DomainReport r, State s) {
        return new DomainReport(r.id(), r.gpu(), r.kind(), s, r.pipeDir(), r.ceilingMib(), r.threadPercent(), r.faults(), r.lastFault(), List.of());
    }
}
