package io.mpshare.policing;

import io.mpshare.mps.MpsControl;
import io.mpshare.mps.MpsException;
import io.mpshare.policing.Action.Evict;
import io.mpshare.policing.Action.Kill;
import io.mpshare.policing.Action.Report;
import io.mpshare.policing.Action.TerminateClient;
import io.mpshare.policing.Outcome.Result;
import io.mpshare.policing.PolicerEvent.Kind;
import io.mpshare.policing.metrics.PolicerMetrics;

import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Carries out planned {@link Action}s, once each.
 *
 * <h2>Implementation notes</h2>
 * <ul>
 *   <li><b>De-duplication.</b> An action is done the first cycle it is planned, then remembered by its key
 *       for as long as every following cycle plans it again; the first cycle that does not plan it forgets
 *       it (the process is gone, or the pod came back under). The same holds for reports, so an event is
 *       emitted once per condition, not once a second. Keys of GPUs that could not be sampled this cycle
 *       are kept: a missed sample is not a recovery.</li>
 *   <li><b>Escalation.</b> FACTS.md: a client asleep outside CUDA outlived {@code terminate_client} by 30 s.
 *       A terminate still planned {@code escalateAfter} after it was first sent becomes a SIGKILL of that
 *       PID, once.</li>
 *   <li><b>Finding the server.</b> {@code terminate_client} needs the client's server PID: each daemon is asked
 *       for its servers and their clients, once per cycle and only when a terminate is due. A client no
 *       daemon lists (a daemon outside the host PID namespace, or a pod's own daemon) is SIGKILLed instead.</li>
 *   <li><b>Killing a non-client</b> is preceded by a second read of that GPU's MPS clients: a process that shows
 *       as a client now is left for the next cycle to judge. An NVML error on that read also spares it.</li>
 *   <li><b>Failures</b> are reported (event, failure metric) and retried after {@code retryAfter}; a blocked
 *       eviction likewise. Nothing here throws: one bad action never stops the others.</li>
 *   <li>Single-threaded: called by the policer under its lock.</li>
 * </ul>
 */
final class Enforcer {
    private record Done(Instant first, Instant retryAt, int gpu) {}

    private final PolicerConfig config;
    private final MpsDaemons daemons;
    private final ProcessKiller killer;
    private final Evictor evictor;
    private final EventSink events;
    private final PolicerMetrics metrics;
    private final Sampler sampler;
    private final Map<String, Done> done = new HashMap<>();

    Enforcer(PolicerConfig config, MpsDaemons daemons, ProcessKiller killer, Evictor evictor, EventSink events,
             PolicerMetrics metrics, Sampler sampler) {
        this.config = config;
        this.daemons = daemons;
        this.killer = killer;
        this.evictor = evictor;
        this.events = events;
        this.metrics = metrics;
        this.sampler = sampler;
    }

    List<Outcome> enforce(Instant now, List<Action> planned, Set<Integer> unsampledGpus) {
        List<Outcome> out = new ArrayList<>();
        Set<String> keep = new HashSet<>();
        Servers servers = new Servers();
        for (Action a : planned) {
            keep.add(a.key());
            Done d = done.get(a.key());
            if (due(now, d)) {
                Outcome o = perform(now, a, servers);
                out.add(o);
                remember(now, a, o, d);
            } else if (a instanceof TerminateClient t && escalationDue(now, d)) {
                Kill k = new Kill(t.pid(), t.cause());
                keep.add(k.key());
                Done kd = done.get(k.key());
                if (due(now, kd)) {
                    Outcome o = kill(now, k, Result.ESCALATED);
                    out.add(o);
                    remember(now, k, o, kd);
                }
            }
        }
        done.entrySet().removeIf(e -> !keep.contains(e.getKey()) && !unsampledGpus.contains(e.getValue().gpu()));
        return out;
    }

    /** Ends the pod's MPS clients through their daemons (pod deletion). Returns the PIDs asked to end. */
    List<Long> endClients(Instant now, String podUid, List<Snapshot.ProcessSample> clients) {
        Servers servers = new Servers();
        List<Long> ended = new ArrayList<>();
        for (var c : clients) {
            if (!c.podUid().equals(podUid)) continue;
            try {
                var s = servers.of(c.pid());
                if (s.isEmpty()) continue; // no daemon serves it: kubelet's stop will end it
                s.get().control().terminateClient(s.get().server(), c.pid());
                ended.add(c.pid());
                metrics.action("end_pod", "pod_deleted");
            } catch (MpsException e) {
                metrics.failure("end_pod");
                events.emit(new PolicerEvent(now, Kind.ACTION_FAILED, podUid, Optional.empty(), -1, c.pid(), c.container(),
                        "could not end MPS client " + c.pid() + " of a deleted pod: " + e.getMessage()));
            }
        }
        if (!ended.isEmpty())
            events.emit(new PolicerEvent(now, Kind.POD_ENDED, podUid, Optional.empty(), -1, 0, "",
                    "ended " + ended.size() + " MPS client(s) " + ended + " through the control daemon before the pod's containers stop"));
        return ended;
    }

    /** Never done, or failed/blocked and its retry time has come. */
    private static boolean due(Instant now, Done d) {
        return d == null || (d.retryAt() != null && !now.isBefore(d.retryAt()));
    }

    private boolean escalationDue(Instant now, Done d) {
        return !config.escalateAfter().isZero() && !now.isBefore(d.first().plus(config.escalateAfter()));
    }

    private void remember(Instant now, Action a, Outcome o, Done before) {
        Instant first = before == null ? now : before.first();
        switch (o.result()) {
            case DONE, FELL_BACK, ESCALATED -> done.put(a.key(), new Done(first, null, a.cause().gpu()));
            case BLOCKED, FAILED -> done.put(a.key(), new Done(first, now.plus(config.retryAfter()), a.cause().gpu()));
            case SKIPPED -> { /* judged again next cycle */ }
        }
    }

    private Outcome perform(Instant now, Action a, Servers servers) {
        return switch (a) {
            case Report r -> report(now, r);
            case TerminateClient t -> terminate(now, t, servers);
            case Kill k -> kill(now, k, Result.DONE);
            case Evict e -> evict(now, e);
        };
    }

    private Outcome report(Instant now, Report r) {
        metrics.finding(r.cause());
        metrics.action("event", r.cause().reason());
        events.emit(Events.of(now, r.cause()));
        return new Outcome(r, Result.DONE, "");
    }

    private Outcome terminate(Instant now, TerminateClient t, Servers servers) {
        try {
            var s = servers.of(t.pid());
            if (s.isEmpty()) {
                Outcome o = kill(now, new Kill(t.pid(), t.cause()), Result.FELL_BACK);
                return new Outcome(t, o.result(), "no control daemon lists client " + t.pid() + "; " + o.detail());
            }
            s.get().control().terminateClient(s.get().server(), t.pid());
            metrics.action("terminate", t.cause().reason());
            events.emit(Events.acted(now, t.cause(), t.pid(), Kind.CLIENT_TERMINATED,
                    "terminate_client " + s.get().server() + " " + t.pid() + " sent to the MPS control daemon"));
            return new Outcome(t, Result.DONE, "server " + s.get().server());
        } catch (MpsException e) {
            return failed(now, t, t.pid(), e.getMessage());
        }
    }

    private Outcome kill(Instant now, Kill k, Result success) {
        boolean nonClient = k.cause() instanceof Finding.Rogue r && r.process().role() == Snapshot.Role.NOT_MPS;
        if (nonClient && sampler.isMpsClientNow(k.cause().gpu(), k.pid()))
            return new Outcome(k, Result.SKIPPED, "process " + k.pid() + " is an MPS client on a second look");
        if (!killer.kill(k.pid())) return failed(now, k, k.pid(), "SIGKILL of " + k.pid() + " was refused");
        metrics.action("kill", k.cause().reason());
        events.emit(Events.acted(now, k.cause(), k.pid(), Kind.PROCESS_KILLED, "process " + k.pid() + " SIGKILLed"
                + (success == Result.ESCALATED ? " (still on the GPU " + config.escalateAfter().toSeconds() + " s after terminate_client)" : "")));
        return new Outcome(k, success, "SIGKILL " + k.pid());
    }

    private Outcome evict(Instant now, Evict e) {
        Evictor.Result r;
        try {
            r = evictor.evict(e.podUid(), Events.of(now, e.cause()).message());
        } catch (RuntimeException ex) {
            r = Evictor.Result.FAILED;
        }
        return switch (r) {
            case EVICTED, GONE -> {
                metrics.action("evict", e.cause().reason());
                events.emit(Events.acted(now, e.cause(), 0, Kind.POD_EVICTED, "eviction requested (" + r.name().toLowerCase() + ")"));
                yield new Outcome(e, Result.DONE, r.name());
            }
            case BLOCKED -> {
                metrics.failure("evict");
                events.emit(Events.acted(now, e.cause(), 0, Kind.EVICTION_BLOCKED,
                        "eviction refused (PodDisruptionBudget); trying again in " + config.retryAfter().toSeconds() + " s"));
                yield new Outcome(e, Result.BLOCKED, "");
            }
            case FAILED -> failed(now, e, 0, "eviction failed");
        };
    }

    private Outcome failed(Instant now, Action a, long pid, String why) {
        metrics.failure(a.kind());
        events.emit(Events.acted(now, a.cause(), pid, Kind.ACTION_FAILED, a.kind() + " failed: " + why));
        return new Outcome(a, Result.FAILED, why);
    }

    /** Client PID → (daemon, server PID), asked of the daemons at most once per cycle. */
    private final class Servers {
        record Server(MpsControl control, long server) {}

        private Map<Long, Server> byClient;

        Optional<Server> of(long clientPid) {
            if (byClient == null) {
                byClient = new HashMap<>();
                MpsException last = null;
                for (MpsControl c : daemons.daemons()) {
                    try {
                        for (long s : c.serverPids()) for (long p : c.clientPids(s)) byClient.put(p, new Server(c, s));
                    } catch (MpsException e) {
                        last = e;
                    }
                }
                if (byClient.isEmpty() && last != null) { byClient = null; throw last; }
            }
            return Optional.ofNullable(byClient.get(clientPid));
        }
    }
}
