package io.mpshare.host.api;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.mpshare.core.ledger.NodeState;
import io.mpshare.host.AllocationRequest;
import io.mpshare.host.Answer;
import io.mpshare.host.CallerPolicy;
import io.mpshare.host.CallerPolicy.Caller;
import io.mpshare.host.HostOwners;
import io.mpshare.host.PidOwners;
import io.mpshare.host.HostService;
import io.mpshare.host.state.JobRecord;
import io.mpshare.policing.CycleReport;
import io.mpshare.policing.PolicerEvent;
import io.mpshare.policing.Snapshot;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * Translates one request of the line protocol (docs/host-mode.md) into a call on {@link HostService} and back.
 * Ops: {@code allocate}, {@code started}, {@code release}, {@code ps}. Every answer has {@code ok}; a refusal has
 * {@code code}, {@code retry} and {@code message}. Each request comes with its {@link Caller}: a job is booked in the
 * caller's name (whatever the request's {@code user} says), and {@link CallerPolicy} decides whether the caller may
 * name a process or act on a job (else {@code FORBIDDEN}). {@code ps} shows every job to every caller, as {@code ps} does.
 */
public final class ApiHandler {
    static final ObjectMapper JSON = new ObjectMapper();

    private final HostService service;
    private final Supplier<Optional<CycleReport>> lastCycle;
    private final Supplier<List<PolicerEvent>> recentEvents;
    private final CallerPolicy policy;

    /** With the host's processes ({@code /proc}) deciding who owns a PID. */
    public ApiHandler(HostService service, Supplier<Optional<CycleReport>> lastCycle, Supplier<List<PolicerEvent>> recentEvents) {
        this(service, lastCycle, recentEvents, new CallerPolicy(PidOwners.host()));
    }

    public ApiHandler(HostService service, Supplier<Optional<CycleReport>> lastCycle, Supplier<List<PolicerEvent>> recentEvents,
                      CallerPolicy policy) {
        this.policy = policy;
        this.service = service;
        this.lastCycle = lastCycle;
        this.recentEvents = recentEvents;
    }

    public ObjectNode handle(JsonNode req, Caller caller) {
        String op = req.path("op").asText("");
        return switch (op) {
            case "allocate" -> allocate(req, caller);
            case "started" -> started(req, caller);
            case "release" -> release(req, caller);
            case "ps" -> ps();
            default -> error("BAD_REQUEST", false, "unknown op '" + op + "': allocate, started, release or ps");
        };
    }

    private ObjectNode started(JsonNode req, Caller caller) {
        String id = req.path("job").asText();
        long pid = req.path("pid").asLong();
        Optional<JobRecord> job = service.job(id);
        if (job.isEmpty()) return ok().put("started", false);
        if (refused(policy.mayAct(caller, job.get())) instanceof ObjectNode no) return no;
        if (refused(policy.mayName(caller, pid)) instanceof ObjectNode no) return no;
        return ok().put("started", service.started(id, pid));
    }

    private ObjectNode release(JsonNode req, Caller caller) {
        String id = req.path("job").asText();
        Optional<JobRecord> job = service.job(id);
        if (job.isEmpty()) return ok().put("released", false);
        if (refused(policy.mayAct(caller, job.get())) instanceof ObjectNode no) return no;
        return ok().put("released", service.release(id).isPresent());
    }

    /** The FORBIDDEN answer of a refused verdict, null when allowed. */
    private static ObjectNode refused(CallerPolicy.Verdict v) {
        return v instanceof CallerPolicy.Verdict.Refused r ? error("FORBIDDEN", false, r.reason()) : null;
    }

    private ObjectNode allocate(JsonNode req, Caller caller) {
        List<String> command = new ArrayList<>();
        req.path("command").forEach(c -> command.add(c.asText()));
        long pid = req.path("pid").asLong();
        if (refused(policy.mayName(caller, pid)) instanceof ObjectNode no) return no;
        var r = new AllocationRequest(req.path("memMib").asLong(), req.path("core").asInt(0), req.path("gpuCount").asInt(1),
                pid, caller.name(), command);
        return switch (service.allocate(r)) {
            case Answer.Granted g -> {
                ObjectNode o = ok().put("job", g.job().id()).put("capMibPerGpu", g.job().capMibPerGpu());
                o.set("gpus", JSON.valueToTree(g.job().gpuIndices()));
                ObjectNode env = o.putObject("env");
                g.env().forEach(env::put);
                yield o;
            }
            case Answer.Refused f -> error(f.code().name(), f.retry(), f.message());
        };
    }

    private ObjectNode ps() {
        ObjectNode o = ok();
        var gate = service.gate();
        o.putObject("daemon").put("ready", gate.ready()).put("message", gate.ready() ? "ready" : gate.notReadyReason())
                .put("pipeDir", gate.pipeDir().toString());
        Optional<CycleReport> cycle = lastCycle.get();
        NodeState s = service.node();
        ArrayNode gpus = o.putArray("gpus");
        for (int pos = 0; pos < s.gpuCount(); pos++) {
            var g = s.gpu(pos);
            int index = g.index();
            Optional<Snapshot.GpuSample> sample = cycle.flatMap(c -> c.snapshot().gpus().stream().filter(x -> x.index() == index).findFirst());
            gpus.addObject().put("index", index).put("uuid", g.uuid()).put("model", g.model()).put("totalMib", g.totalMib())
                    .put("allocatedMib", s.allocatedMib(pos)).put("usedMib", sample.map(Snapshot.GpuSample::usedMib).orElse(-1L))
                    .put("healthy", gate.ready());
        }
        ArrayNode jobs = o.putArray("jobs");
        for (JobRecord j : service.jobs()) {
            ObjectNode jo = jobs.addObject().put("job", j.id()).put("pid", j.pid()).put("started", j.started()).put("user", j.user())
                    .put("memMib", j.memMib()).put("core", j.core()).put("capMibPerGpu", j.capMibPerGpu())
                    .put("command", String.join(" ", j.command()));
            jo.set("gpus", JSON.valueToTree(j.gpuIndices()));
            ArrayNode procs = jo.putArray("processes");
            long used = 0;
            for (Snapshot.GpuSample g : cycle.map(c -> c.snapshot().gpus()).orElse(List.of())) {
                for (Snapshot.ProcessSample p : g.processes()) {
                    if (!p.podUid().equals(j.id())) continue;
                    used += p.usedMib();
                    procs.addObject().put("pid", p.pid()).put("gpu", g.index()).put("usedMib", p.usedMib()).put("role", p.role().name());
                }
            }
            jo.put("usedMib", used);
        }
        ArrayNode others = o.putArray("otherProcesses");
        for (Snapshot.GpuSample g : cycle.map(c -> c.snapshot().gpus()).orElse(List.of()))
            for (Snapshot.ProcessSample p : g.processes())
                if (p.podUid().isEmpty() || p.podUid().equals(HostOwners.UNMANAGED)) others.addObject().put("pid", p.pid()).put("gpu", g.index()).put("usedMib", p.usedMib()).put("role", p.role().name());
        ArrayNode events = o.putArray("events");
        for (PolicerEvent e : recentEvents.get())
            events.addObject().put("at", e.at().toString()).put("reason", e.reason()).put("job", e.podUid()).put("gpu", e.gpu())
                    .put("pid", e.pid()).put("message", e.message());
        return o;
    }

    static ObjectNode ok() { return JSON.createObjectNode().put("ok", true); }

    static ObjectNode error(String code, boolean retry, String message) {
        return JSON.createObjectNode().put("ok", false).put("code", code).put("retry", retry).put("message", message);
    }

    /** Keeps the last {@code n} policer events for {@code ps}. */
    public static final class RecentEvents {
        private final Deque<PolicerEvent> events = new ArrayDeque<>();
        private final int n;

        public RecentEvents(int n) { this.n = n; }

        public synchronized void add(PolicerEvent e) {
            events.addLast(e);
            while (events.size() > n) events.removeFirst();
        }

        public synchronized List<PolicerEvent> list() { return List.copyOf(events); }
    }

    static Map<String, String> envOf(JsonNode answer) {
        Map<String, String> env = new LinkedHashMap<>();
        answer.path("env").properties().forEach(e -> env.put(e.getKey(), e.getValue().asText()));
        return env;
    }
}
