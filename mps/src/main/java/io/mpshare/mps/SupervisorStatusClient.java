package io.mpshare.mps;

import com.fasterxml.jackson.databind.JsonNode;
import io.mpshare.mps.MpsException.Reason;

import java.io.IOException;
import java.net.ConnectException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Reads a supervisor's {@link SupervisorStatus}, asks for a heartbeat, sets per-GPU ceilings and creates, reads and deletes
 * fault domains ({@link #putDomain}, {@link #domain}, {@link #deleteDomain}), for the device plugin.
 * Over the supervisor's unix socket ({@link #overSocket}, {@link #forColourSocket}: {@code <runDir>/<colour>/supervisor.sock},
 * what the node agent uses), over its optional loopback HTTP port ({@link #forColour}, the constructor), or from the
 * status file the supervisor rewrites on every change ({@link #readFile}).
 * Every failure is an {@link MpsException}: reason DAEMON_DOWN when the supervisor does not answer, TIMEOUT when it
 * does not answer within the client's timeout.
 */
public final class SupervisorStatusClient {
    /** One request, one answer; the code and body as the server sent them. */
    interface Transport {
        UnixHttp.Response exchange(String method, String path, byte[] body);
    }

    private final String where;
    private final Transport transport;

    /** Over HTTP at {@code base} (e.g. {@code http://127.0.0.1:39997}); {@code timeout} bounds connect and answer. */
    public SupervisorStatusClient(URI base, Duration timeout) {
        this(base.toString(), new HttpTransport(base, timeout));
    }

    private SupervisorStatusClient(String where, Transport transport) {
        this.where = where;
        this.transport = transport;
    }

    /** The supervisor of {@code colour} on this node over its loopback port (only when it runs with {@code --status-port -1}). */
    public static SupervisorStatusClient forColour(Colour colour) {
        return new SupervisorStatusClient(URI.create("http://127.0.0.1:" + colour.statusPort()), Duration.ofSeconds(2));
    }

    /** Over the unix socket at {@code socket}; {@code timeout} bounds the whole exchange, connect included. */
    public static SupervisorStatusClient overSocket(Path socket, Duration timeout) {
        return new SupervisorStatusClient(socket.toString(), new UnixTransport(socket, timeout));
    }

    /** The supervisor of {@code colour} under {@code runDir}, over {@link Colour#supervisorSocket}. */
    public static SupervisorStatusClient forColourSocket(Colour colour, Path runDir, Duration timeout) {
        return overSocket(colour.supervisorSocket(runDir), timeout);
    }

    /** Where this client asks (a socket path or a URL), for messages. */
    public String where() { return where; }

    /** GET /status: the supervisor's last published snapshot. */
    public SupervisorStatus status() {
        return parse(transport.exchange("GET", "/status", new byte[0]), "/status");
    }

    /**
     * GET /heartbeat: a snapshot taken on the supervisor's own thread. A 503 (its thread did not answer in time: hung
     * or stuck) is an {@link MpsException} with reason TIMEOUT, as is no answer within this client's timeout.
     */
    public SupervisorStatus heartbeat() {
        return parse(transport.exchange("GET", "/heartbeat", new byte[0]), "/heartbeat");
    }

    /** PUT /ceilings/{device}: applies the ceiling live (never restarts the daemon) and returns the new status. */
    public SupervisorStatus setCeiling(int device, long mib) {
        byte[] body = StatusJson.write(Map.of("mib", mib));
        return parse(transport.exchange("PUT", "/ceilings/" + device, body), "/ceilings/" + device);
    }

    /**
     * PUT /domains/{id}: creates the domain (starts its daemon) or applies a changed ceiling and thread share to it. Returns
     * the domain: SERVING once its daemon answers with every setting applied (the supervisor waits up to 2 s for a new
     * one), else STARTING: poll {@link #domain}. A spec the supervisor cannot apply is an {@link MpsException} with reason
     * OTHER (400: the message says what to change) or NOT_APPLIED (409: the id exists for another GPU or kind).
     */
    public DomainStatus putDomain(String id, DomainSpec spec) {
        String path = "/domains/" + id;
        return parse(transport.exchange("PUT", path, StatusJson.write(spec)), path, DomainStatus.class);
    }

    /** GET /domains/{id}: the domain as last published, or empty when the supervisor runs no such domain. */
    public Optional<DomainStatus> domain(String id) {
        String path = "/domains/" + id;
        UnixHttp.Response r = transport.exchange("GET", path, new byte[0]);
        return r.code() == 404 ? Optional.empty() : Optional.of(parse(r, path, DomainStatus.class));
    }

    /** GET /domains: every domain as last published. */
    public List<DomainStatus> domains() {
        return List.of(parse(transport.exchange("GET", "/domains", new byte[0]), "/domains", DomainStatus[].class));
    }

    /**
     * DELETE /domains/{id}: the domain drains (no new client is expected) and its daemon quits once it has no client
     * left. Returns the draining domain, or empty when there was none (already gone: deleting twice is harmless).
     */
    public Optional<DomainStatus> deleteDomain(String id) {
        String path = "/domains/" + id;
        UnixHttp.Response r = transport.exchange("DELETE", path, new byte[0]);
        return r.code() == 404 ? Optional.empty() : Optional.of(parse(r, path, DomainStatus.class));
    }

    /** Reads {@code <runDir>/<colour>/status.json}; check {@link SupervisorStatus#updatedAt()} for staleness. */
    public static SupervisorStatus readFile(Path statusFile) {
        try {
            return StatusJson.read(Files.readAllBytes(statusFile), SupervisorStatus.class);
        } catch (IOException e) {
            throw new MpsException(Reason.DAEMON_DOWN, "cannot read the supervisor's status " + statusFile + ": " + e.getMessage(), e);
        }
    }

    private SupervisorStatus parse(UnixHttp.Response response, String path) { return parse(response, path, SupervisorStatus.class); }

    /** 200 and 202 carry the answer; any other code is an {@link MpsException} with the server's one-line reason. */
    private <T> T parse(UnixHttp.Response response, String path, Class<T> type) {
        try {
            if (response.code() != 200 && response.code() != 202) {
                JsonNode err = StatusJson.mapper().readTree(response.body());
                String message = err == null ? "" : err.path("error").asText("");
                Reason reason = switch (response.code()) {
                    case 409 -> Reason.NOT_APPLIED;
                    case 503, 504 -> Reason.TIMEOUT;
                    default -> Reason.OTHER;
                };
                throw new MpsException(reason, "the MPS supervisor at " + where + ": " + path + " answered " + response.code() + ": " + message);
            }
            return StatusJson.read(response.body(), type);
        } catch (IOException e) {
            throw new MpsException(Reason.UNEXPECTED_REPLY, path + " answered something that is not the " + type.getSimpleName() + " JSON: " + e.getMessage(), e);
        }
    }

    private record HttpTransport(URI base, Duration timeout, HttpClient http) implements Transport {
        HttpTransport(URI base, Duration timeout) { this(base, timeout, HttpClient.newBuilder().connectTimeout(timeout).build()); }

        @Override public UnixHttp.Response exchange(String method, String path, byte[] body) {
            HttpRequest.Builder b = HttpRequest.newBuilder(base.resolve(path)).timeout(timeout).header("Content-Type", "application/json")
                    .method(method, body.length == 0 ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofByteArray(body));
            try {
                HttpResponse<byte[]> r = http.send(b.build(), HttpResponse.BodyHandlers.ofByteArray());
                return new UnixHttp.Response(r.statusCode(), r.headers().firstValue("Content-Type").orElse(""), r.body());
            } catch (ConnectException e) {
                throw new MpsException(Reason.DAEMON_DOWN, "the MPS supervisor at " + base + " does not answer (not running?)", e);
            } catch (HttpTimeoutException e) {
                throw new MpsException(Reason.TIMEOUT, "the MPS supervisor at " + base + " did not answer within " + timeout.toMillis() + " ms", e);
            } catch (IOException e) {
                throw new MpsException(Reason.DAEMON_DOWN, "the MPS supervisor at " + base + ": " + e, e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new MpsException(Reason.TIMEOUT, "interrupted while asking " + base, e);
            }
        }
    }
}
