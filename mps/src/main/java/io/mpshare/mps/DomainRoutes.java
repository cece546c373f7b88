package io.mpshare.mps;

import com.fasterxml.jackson.databind.JsonNode;
import io.mpshare.mps.DomainService.Answer;
import io.mpshare.mps.UnixHttp.Response;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * {@code /domains}: {@code GET /domains}, {@code GET|PUT|DELETE /domains/{id}} (mps/README.md documents each answer).
 * A PUT answers 200 with the domain once it is SERVING (it waits up to {@link #PUT_WAIT} for a new daemon), 202 while it
 * is not yet (the caller polls {@code GET /domains/{id}}); 400 for a body or id that cannot be applied, 409 for an id
 * that exists for another GPU or kind. A DELETE answers 202 (draining) or 404.
 */
final class DomainRoutes {
    static final Duration PUT_WAIT = Duration.ofSeconds(2);
    private static final long CALL_TIMEOUT_S = 30;

    private final DomainService domains;
    private final Colour colour;
    private final Path runDir;

    DomainRoutes(DomainService domains, Colour colour, Path runDir) {
        this.domains = domains;
        this.colour = colour;
        this.runDir = runDir;
    }

    Response handle(String method, String path, byte[] body) {
        try {
            return route(method, path, body);
        } catch (Unavailable e) {
            return SupervisorApi.error(503, e.getMessage());
        }
    }

    private Response route(String method, String path, byte[] body) {
        if (path.equals("/domains")) {
            return method.equals("GET") ? SupervisorApi.json(200, domains.domains()) : SupervisorApi.error(405, "use GET /domains");
        }
        String id = path.substring("/domains/".length());
        String problem = DomainPaths.problem(colour, runDir, id);
        if (problem != null) return SupervisorApi.error(404, problem);
        return switch (method) {
            case "GET" -> domains.domain(id).map(d -> SupervisorApi.json(200, d)).orElseGet(() -> notFound(id));
            case "PUT" -> put(id, body);
            case "DELETE" -> await(domains.delete(id)).map(d -> SupervisorApi.json(202, d)).orElseGet(() -> notFound(id));
            default -> SupervisorApi.error(405, "use GET, PUT or DELETE /domains/" + id);
        };
    }

    private Response put(String id, byte[] body) {
        DomainSpec spec;
        try {
            spec = parse(body);
        } catch (IllegalArgumentException e) {
            return SupervisorApi.error(400, e.getMessage());
        }
        Answer answer = await(domains.put(id, spec));
        return switch (answer) {
            case Answer.Refused r -> SupervisorApi.error(r.conflict() ? 409 : 400, r.reason());
            case Answer.Accepted a when a.status().state() == DomainState.SERVING -> SupervisorApi.json(200, a.status());
            case Answer.Accepted a -> {
                DomainStatus now = waitServing(id).orElseGet(() -> domains.domain(id).orElse(a.status()));
                yield SupervisorApi.json(now.state() == DomainState.SERVING ? 200 : 202, now);
            }
        };
    }

    private Optional<DomainStatus> waitServing(String id) {
        try {
            return Optional.of(domains.whenServing(id).get(PUT_WAIT.toMillis(), TimeUnit.MILLISECONDS));
        } catch (TimeoutException | ExecutionException e) {
            return Optional.empty();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Optional.empty();
        }
    }

    /** The body as a spec; a one-line reason for anything that is not one. */
    static DomainSpec parse(byte[] body) {
        JsonNode json;
        try {
            json = StatusJson.mapper().readTree(body);
        } catch (IOException e) {
            throw new IllegalArgumentException("the body must be JSON {\"gpu\", \"kind\", \"clientUid\", \"ceilingMiB\", \"activeThreadPercentage\"}: " + e.getMessage());
        }
        if (json == null || !json.isObject())
            throw new IllegalArgumentException("the body must be a JSON object {\"gpu\", \"kind\", \"clientUid\", \"ceilingMiB\", \"activeThreadPercentage\"}");
        JsonNode uid = json.path("clientUid");
        if (!uid.isMissingNode() && !uid.isNull() && !uid.canConvertToInt()) throw new IllegalArgumentException("clientUid must be a number or null");
        if (!json.path("ceilingMiB").canConvertToLong()) throw new IllegalArgumentException("ceilingMiB must be a number of MiB > 0");
        if (!json.path("activeThreadPercentage").canConvertToInt()) throw new IllegalArgumentException("activeThreadPercentage must be a number 1..100");
        return new DomainSpec(json.path("gpu").isTextual() ? json.path("gpu").asText() : null, DomainKind.parse(json.path("kind").asText(null)),
                uid.isMissingNode() || uid.isNull() ? null : uid.asInt(), json.path("ceilingMiB").asLong(), json.path("activeThreadPercentage").asInt());
    }

    private static Response notFound(String id) { return SupervisorApi.error(404, "no domain " + id); }

    private static <T> T await(Future<T> f) {
        try {
            return f.get(CALL_TIMEOUT_S, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            throw new Unavailable("the supervisor did not take the request: " + e.getCause().getMessage());
        } catch (TimeoutException e) {
            throw new Unavailable("the supervisor did not take the request within " + CALL_TIMEOUT_S + " s");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new Unavailable("interrupted");
        }
    }

    /** The supervisor's thread did not take the request: 503, the caller retries. */
    private static final class Unavailable extends RuntimeException {
        Unavailable(String message) { super(message); }
    }

}
