package io.mpshare.mps;

import com.fasterxml.jackson.databind.JsonNode;
import io.mpshare.mps.UnixHttp.Response;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The supervisor's API, independent of the transport (the unix socket {@link SupervisorSocketServer}, the optional
 * loopback {@link SupervisorHttp}): {@code GET /status}, {@code GET /heartbeat}, {@code GET /healthz}, {@code GET /metrics},
 * {@code PUT|POST /ceilings/<device>} with {@code {"mib": N}}, and the fault domains' {@code /domains} ({@link DomainRoutes}).
 * mps/README.md documents each answer.
 *
 * <p>{@code /heartbeat} is answered by the supervisor's own thread ({@link MpsSupervisor#ping}) within
 * {@code heartbeatDeadline}. If that thread does not answer in time because it is inside one of its own steps (a
 * control command) for less than {@code busyLimit}, the published status is answered: busy is not hung, and a loaded
 * machine must not flap the GPUs. Otherwise 503: a supervisor whose thread is stuck cannot notice its daemon's death, so
 * it must not look healthy. A supervisor whose whole process is stopped does not answer at all; the caller's deadline
 * covers that.
 */
final class SupervisorApi {
    private static final Pattern CEILING = Pattern.compile("/ceilings/(\\d+)/?");
    private static final long APPLY_TIMEOUT_S = 30;
    private final MpsSupervisor supervisor;
    private final DomainService domains;
    private final DomainRoutes domainRoutes;
    private final SupervisorMetrics metrics;
    private final Duration heartbeatDeadline;
    private final Duration busyLimit;

    /**
     * @param heartbeatDeadline how long {@code /heartbeat} waits for the supervisor's thread
     * @param busyLimit         a thread that is that long inside one step (a control command takes tens of ms; under load,
     *                          hundreds) counts as hung; shorter, as busy, and the published status is answered
     */
    SupervisorApi(MpsSupervisor supervisor, DomainService domains, SupervisorMetrics metrics, Duration heartbeatDeadline, Duration busyLimit) {
        this.supervisor = supervisor;
        this.domains = domains;
        this.domainRoutes = new DomainRoutes(domains, supervisor.colour(), supervisor.runDir());
        this.metrics = metrics;
        this.heartbeatDeadline = heartbeatDeadline;
        this.busyLimit = busyLimit;
    }

    Response handle(String method, String path, byte[] body) {
        try {
            return switch (path.endsWith("/") && path.length() > 1 ? path.substring(0, path.length() - 1) : path) {
                case "/status" -> get(method, () -> json(200, status(supervisor.status())));
                case "/heartbeat" -> get(method, this::heartbeat);
                case "/healthz" -> get(method, this::healthz);
                case "/metrics" -> get(method, this::metrics);
                case String p when p.equals("/domains") || p.startsWith("/domains/") -> domainRoutes.handle(method, p, body);
                default -> path.startsWith("/ceilings") ? ceiling(method, path, body)
                        : error(404, "unknown path " + path + ": use /status, /heartbeat, /healthz, /metrics, /ceilings/<device> or /domains/<id>");
            };
        } catch (RuntimeException e) {
            return error(500, String.valueOf(e.getMessage()));
        }
    }

    /** The supervisor's status with the domains of the service this API serves (the supervisor's own unless a fake is given). */
    private SupervisorStatus status(SupervisorStatus s) { return domains == supervisor ? s : s.withDomains(domains.domains()); }

    private interface Answer { Response get() throws IOException; }

    private static Response get(String method, Answer a) {
        if (!method.equals("GET")) return error(405, "use GET");
        try {
            return a.get();
        } catch (IOException e) {
            return error(500, e.getMessage());
        }
    }

    private Response heartbeat() {
        try {
            return json(200, status(supervisor.ping().get(heartbeatDeadline.toNanos(), TimeUnit.NANOSECONDS)));
        } catch (TimeoutException e) {
            var busy = supervisor.busyFor();
            if (busy.isPresent() && busy.get().compareTo(busyLimit) < 0) return json(200, status(supervisor.status())); // busy, not hung
            return error(503, "the supervisor's thread did not answer within " + heartbeatDeadline.toMillis() + " ms ("
                    + busy.map(d -> "one step has run for " + d.toMillis() + " ms: hung").orElse("hung or stopped") + ")");
        } catch (ExecutionException e) {
            return error(503, "the supervisor did not answer: " + e.getCause().getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return error(503, "interrupted");
        }
    }

    private Response healthz() {
        SupervisorStatus s = supervisor.status();
        return new Response(s.ready() ? 200 : 503, "text/plain",
                (s.ready() ? "ready\n" : "not ready: " + s.lastError() + "\n").getBytes(StandardCharsets.UTF_8));
    }

    private Response metrics() throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        metrics.write(out);
        return new Response(200, metrics.contentType(), out.toByteArray());
    }

    private Response ceiling(String method, String path, byte[] body) {
        if (!method.equals("PUT") && !method.equals("POST")) return error(405, "use PUT or POST /ceilings/<device> with {\"mib\": N}");
        Matcher m = CEILING.matcher(path);
        if (!m.matches()) return error(404, "use /ceilings/<device ordinal>, e.g. /ceilings/0");
        long mib;
        try {
            JsonNode json = StatusJson.mapper().readTree(body);
            if (json == null || !json.path("mib").canConvertToLong() || json.path("mib").asLong() <= 0)
                return error(400, "the body must be {\"mib\": N} with N > 0");
            mib = json.path("mib").asLong();
        } catch (IOException e) {
            return error(400, "the body must be JSON {\"mib\": N}: " + e.getMessage());
        }
        int device;
        try {
            device = Integer.parseInt(m.group(1));
        } catch (NumberFormatException e) {
            return error(404, "device ordinal out of range: " + m.group(1));
        }
        try {
            return json(200, status(supervisor.setCeiling(device, mib).get(APPLY_TIMEOUT_S, TimeUnit.SECONDS)));
        } catch (ExecutionException e) {
            boolean transientFailure = e.getCause() instanceof MpsException me
                    && (me.reason() == MpsException.Reason.DAEMON_DOWN || me.reason() == MpsException.Reason.TIMEOUT);
            return transientFailure ? error(503, "stored; applied when the daemon answers again: " + e.getCause().getMessage())
                    : error(409, "rejected by the daemon: " + e.getCause().getMessage());
        } catch (TimeoutException e) {
            return error(504, "the ceiling was not applied within " + APPLY_TIMEOUT_S + " s");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return error(503, "interrupted");
        }
    }

    static Response json(int code, Object value) { return new Response(code, "application/json", StatusJson.write(value)); }

    static Response error(int code, String message) { return json(code, Map.of("error", message)); }
}
