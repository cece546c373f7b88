package io.mpshare.mps;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.regex.Pattern;

/**
 * One fault domain's folder, {@code <runDir>/<colour>/d/<id>/}: {@code pipe/} (its {@code CUDA_MPS_PIPE_DIRECTORY}, the
 * one folder its pods mount), {@code log/} ({@code CUDA_MPS_LOG_DIRECTORY}, and {@code daemon.log}: the daemon's
 * stdout, where a foreground daemon and its servers write their log), and {@code domain.json} (what the supervisor
 * must know to adopt the daemon after its own restart). The id is short and path-safe: the daemon's socket
 * {@code pipe/control} must stay under the 108 bytes a unix socket path may have.
 */
public record DomainPaths(String id, Path dir) {
    private static final Pattern ID = Pattern.compile("[a-z0-9][a-z0-9-]{0,31}");
    /** sun_path is 108 bytes with its terminating NUL. */
    static final int MAX_SOCKET_PATH_BYTES = 107;

    public static DomainPaths of(Colour colour, Path runDir, String id) {
        return new DomainPaths(id, colour.domainsDir(runDir).resolve(id));
    }

    /** Why {@code id} cannot name a domain under {@code runDir}, or null when it can. */
    public static String problem(Colour colour, Path runDir, String id) {
        if (id == null || !ID.matcher(id).matches())
            return "domain id '" + id + "' must be 1-32 characters of a-z, 0-9 and '-' (e.g. t-3f2a9c0d1e7b)";
        int bytes = of(colour, runDir, id).controlSocket().toString().getBytes(StandardCharsets.UTF_8).length;
        if (bytes > MAX_SOCKET_PATH_BYTES)
            return "domain id '" + id + "': its control socket path would be " + bytes + " bytes, more than a unix socket allows ("
                    + MAX_SOCKET_PATH_BYTES + "): use a shorter id or run dir";
        return null;
    }

    public Path pipeDir() { return dir.resolve("pipe"); }

    public Path logDir() { return dir.resolve("log"); }

    /** The daemon's stdout and stderr (foreground mode logs there, servers included). */
    public Path daemonLog() { return logDir().resolve("daemon.log"); }

    /** What the supervisor keeps for adoption after its restart. */
    public Path record() { return dir.resolve("domain.json"); }

    /** The control daemon's socket, the one a stalled daemon's holders connect to. */
    public Path controlSocket() { return pipeDir().resolve("control"); }
}
