package io.mpshare.mps;

import com.fasterxml.jackson.databind.JsonNode;
import io.mpshare.mps.MpsException.Reason;

import java.io.IOException;
import java.net.ConnectException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;

/**
 * Reads a supervisor's {@link SupervisorStatus} and sets per-GPU ceilings, for the device plugin.
 * Over HTTP ({@link #forColour}: {@code http://127.0.0.1:<colour port>}) or, without a shared network
 * namespace, from the status file the supervisor rewrites on every change ({@link #readFile}).
 * Every failure is an {@link MpsException}: reason DAEMON_DOWN when the supervisor does not answer.
 */
public final class SupervisorStatusClient {
    private final URI base;
    private final Duration timeout;
    private final HttpClient http;

    public SupervisorStatusClient(URI base, Duration timeout) {
        this.base = base;
        this.timeout = timeout;
        this.http = HttpClient.newBuilder().connectTimeout(timeout).build();
    }

    /** The supervisor of {@code colour} on this node (127.0.0.1, the colour's port). */
    public static SupervisorStatusClient forColour(Colour colour) {
        return new SupervisorStatusClient(URI.create("http://127.0.0.1:" + colour.statusPort()), Duration.ofSeconds(2));
    }

    /** GET /status. */
    public SupervisorStatus status() {
        return parse(send(HttpRequest.newBuilder(base.resolve("/status")).GET()), "/status");
    }

    /** PUT /ceilings/{device}: applies the ceiling live (never restarts the daemon) and returns the new status. */
    public SupervisorStatus setCeiling(int device, long mib) {
        byte[] body = StatusJson.write(Map.of("mib", mib));
        return parse(send(HttpRequest.newBuilder(base.resolve("/ceilings/" + device))
                .header("Content-Type", "application/json").PUT(HttpRequest.BodyPublishers.ofByteArray(body))), "/ceilings/" + device);
    }

    /** Reads {@code <runDir>/<colour>/status.json}; check {@link SupervisorStatus#updatedAt()} for staleness. */
    public static SupervisorStatus readFile(Path statusFile) {
        try {
            return StatusJson.read(Files.readAllBytes(statusFile), SupervisorStatus.class);
        } catch (IOException e) {
            throw new MpsException(Reason.DAEMON_DOWN, "cannot read the supervisor's status " + statusFile + ": " + e.getMessage(), e);
        }
    }

    private HttpResponse<byte[]> send(HttpRequest.Builder request) {
        try {
            return http.send(request.timeout(timeout).build(), HttpResponse.BodyHandlers.ofByteArray());
        } catch (ConnectException e) {
            throw new MpsException(Reason.DAEMON_DOWN, "the MPS supervisor at " + base + " does not answer (not running?)", e);
        } catch (IOException e) {
            throw new MpsException(Reason.DAEMON_DOWN, "the MPS supervisor at " + base + ": " + e, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new MpsException(Reason.TIMEOUT, "interrupted while asking " + base, e);
        }
    }

    private SupervisorStatus parse(HttpResponse<byte[]> response, String path) {
        try {
            if (response.statusCode() != 200) {
                JsonNode err = StatusJson.mapper().readTree(response.body());
                String message = err == null ? "" : err.path("error").asText("");
                Reason reason = switch (response.statusCode()) {
                    case 409 -> Reason.NOT_APPLIED;
                    case 503, 504 -> Reason.TIMEOUT;
                    default -> Reason.OTHER;
                };
                throw new MpsException(reason,
                        path + " answered " + response.statusCode() + ": " + message);
            }
            return StatusJson.read(response.body(), SupervisorStatus.class);
        } catch (IOException e) {
            throw new MpsException(Reason.UNEXPECTED_REPLY, path + " answered something that is not the status JSON: " + e.getMessage(), e);
        }
    }
}
