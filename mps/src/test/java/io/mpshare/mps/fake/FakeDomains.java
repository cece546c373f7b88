package io.mpshare.mps.fake;

import io.mpshare.mps.Colour;
import io.mpshare.mps.DomainPaths;
import io.mpshare.mps.DomainService;
import io.mpshare.mps.DomainSpec;
import io.mpshare.mps.DomainState;
import io.mpshare.mps.DomainStatus;
import io.mpshare.mps.MpsException;

import java.nio.file.Path;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * Domains whose states the test moves by hand, behind the supervisor's real {@code /domains} routes (serve it with
 * {@code new SupervisorSocketServer(supervisor, fakeDomains, metrics, socket)}): for the device plugin's tests of what it
 * does on each state, without modelling MPS. A PUT of a new id answers STARTING ({@link #startServing} moves it on) or,
 * with {@link #serveAtOnce}, SERVING; a DELETE drains, and {@link #lastClientLeft} ends the domain. For MPS's own
 * behaviour (faults, stalls, re-adoption) drive a real {@code MpsSupervisor} over {@link FakeMpsNode} instead.
 * Thread-safe.
 *
 * <pre>{@code
 * FakeDomains domains = new FakeDomains(Colour.BLUE, runDir, clock).serveAtOnce(true);
 * domains.fault("t-3f2a9c0d1e7b", List.of(4242L, 4243L)); // FAULTED, lastFault names the clients killed
 * domains.recover("t-3f2a9c0d1e7b");                        // SERVING again
 * }</pre>
 */
public final class FakeDomains implements DomainService {
    private final Colour colour;
    private final Path runDir;
    private final InstantSource clock;
    private final Map<String, DomainStatus> domains = new LinkedHashMap<>();
    private final Map<String, List<CompletableFuture<DomainStatus>>> waiting = new LinkedHashMap<>();
    private final List<String> requests = new ArrayList<>();
    private boolean serveAtOnce;
    private long nextPid = 7000;

    public FakeDomains(Colour colour, Path runDir, InstantSource clock) {
        this.colour = colour;
        this.runDir = runDir;
        this.clock = clock;
    }

    /** New domains answer SERVING at once (otherwise STARTING until {@link #startServing}). */
    public synchronized FakeDomains serveAtOnce(boolean b) { serveAtOnce = b; return this; }

    /** Every PUT and DELETE so far, as {@code PUT t-… GPU-… tenant 8192 30} and {@code DELETE t-…}. */
    public synchronized List<String> requests() { return List.copyOf(requests); }

    @Override public synchronized CompletableFuture<Answer> put(String id, DomainSpec spec) {
        requests.add("PUT " + id + " " + spec.gpu() + " " + spec.kind().id() + " " + spec.ceilingMiB() + " " + spec.activeThreadPercentage());
        DomainStatus old = domains.get(id);
        if (old != null && (!old.gpu().equals(spec.gpu()) || old.kind() != spec.kind()))
            return CompletableFuture.completedFuture(new Answer.Refused(true, "domain " + id + " exists for " + old.gpu() + " (" + old.kind().id() + ")"));
        DomainState state = old == null ? (serveAtOnce ? DomainState.SERVING : DomainState.STARTING)
                : old.state() == DomainState.DRAINING ? DomainState.SERVING : old.state();
        DomainStatus s = new DomainStatus(id, spec.gpu(), spec.kind(), spec.clientUid(), DomainPaths.of(colour, runDir, id).pipeDir().toString(),
                state, old != null && old.state() == state ? old.stateSince() : now(), old == null ? nextPid++ : old.daemonPid(),
                old == null ? List.of() : old.servers(), old == null ? List.of() : old.clients(), spec.appliedCeilingMiB(),
                spec.activeThreadPercentage(), old == null ? 0 : old.faults(), old == null ? null : old.lastFault(), List.of(), null);
        set(s);
        return CompletableFuture.completedFuture(new Answer.Accepted(s));
    }

    @Override public synchronized CompletableFuture<Optional<DomainStatus>> delete(String id) {
        requests.add("DELETE " + id);
        DomainStatus d = domains.get(id);
        if (d == null) return CompletableFuture.completedFuture(Optional.empty());
        DomainStatus draining = with(d, DomainState.DRAINING);
        set(draining);
        return CompletableFuture.completedFuture(Optional.of(draining));
    }

    @Override public synchronized Optional<DomainStatus> domain(String id) { return Optional.ofNullable(domains.get(id)); }

    @Override public synchronized List<DomainStatus> domains() { return List.copyOf(domains.values()); }

    @Override public synchronized CompletableFuture<DomainStatus> whenServing(String id) {
        DomainStatus d = domains.get(id);
        if (d == null) return CompletableFuture.failedFuture(new MpsException("no domain " + id));
        if (d.state() == DomainState.SERVING) return CompletableFuture.completedFuture(d);
        CompletableFuture<DomainStatus> f = new CompletableFuture<>();
        waiting.computeIfAbsent(id, k -> new ArrayList<>()).add(f);
        return f;
    }

    // ---- driving the fake ----

    /** A STARTING (or STALLED, FAULTED, DOWN) domain serves. */
    public synchronized void startServing(String id) { set(with(require(id), DomainState.SERVING)); }

    /** The domain's server has these clients (and server PID {@code server}). */
    public synchronized void clients(String id, long server, List<Long> clients) {
        DomainStatus d = require(id);
        set(new DomainStatus(d.id(), d.gpu(), d.kind(), d.clientUid(), d.pipeDir(), d.state(), d.stateSince(), d.daemonPid(), List.of(server),
                clients, d.ceilingMiB(), d.activeThreadPercentage(), d.faults(), d.lastFault(), d.stalledBy(), d.lastError()));
    }

    /** A server of the domain faulted: FAULTED, {@code killed} recorded as the clients the supervisor killed, detected by {@code log}. */
    public synchronized void fault(String id, List<Long> killed) {
        DomainStatus d = require(id);
        String at = now();
        DomainStatus.Fault f = new DomainStatus.Fault(at, "log", killed, List.of(new DomainStatus.Signal("log", at, "Server teardown in progress")));
        set(new DomainStatus(d.id(), d.gpu(), d.kind(), d.clientUid(), d.pipeDir(), DomainState.FAULTED, at, d.daemonPid(), d.servers(),
                List.of(), d.ceilingMiB(), d.activeThreadPercentage(), d.faults() + 1, f, List.of(), "fault: clients " + killed + " killed"));
    }

    /** The daemon stopped answering with connections held by {@code holders}: STALLED. */
    public synchronized void stall(String id, List<DomainStatus.Holder> holders) {
        DomainStatus d = require(id);
        set(new DomainStatus(d.id(), d.gpu(), d.kind(), d.clientUid(), d.pipeDir(), DomainState.STALLED, now(), d.daemonPid(), d.servers(),
                d.clients(), d.ceilingMiB(), d.activeThreadPercentage(), d.faults(), d.lastFault(), holders, "the control daemon stopped answering"));
    }

    /** FAULTED or STALLED is over: SERVING again. */
    public synchronized void recover(String id) { startServing(id); }

    /** A draining domain's last client left: the daemon quit and the domain is gone. */
    public synchronized void lastClientLeft(String id) {
        DomainStatus d = domains.remove(id);
        if (d == null) return;
        for (CompletableFuture<DomainStatus> f : waiting.getOrDefault(id, List.of())) f.completeExceptionally(new MpsException("domain " + id + " stopped"));
        waiting.remove(id);
    }

    private DomainStatus require(String id) {
        DomainStatus d = domains.get(id);
        if (d == null) throw new IllegalArgumentException("no domain " + id);
        return d;
    }

    private void set(DomainStatus s) {
        domains.put(s.id(), s);
        if (s.state() == DomainState.SERVING) {
            for (CompletableFuture<DomainStatus> f : waiting.getOrDefault(s.id(), List.of())) f.complete(s);
            waiting.remove(s.id());
        }
    }

    private DomainStatus with(DomainStatus d, DomainState state) {
        return new DomainStatus(d.id(), d.gpu(), d.kind(), d.clientUid(), d.pipeDir(), state, d.state() == state ? d.stateSince() : now(),
                d.daemonPid(), d.servers(), d.clients(), d.ceilingMiB(), d.activeThreadPercentage(), d.faults(), d.lastFault(),
                state == DomainState.STALLED ? d.stalledBy() : List.of(), d.lastError());
    }

    private String now() { Instant t = clock.instant(); return t.toString(); }
}
